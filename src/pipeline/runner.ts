/**
 * The engine runner: the page side of the pipeline. In a page that embeds the library it takes
 * the engine Web Lock (one engine per browser profile and database, whatever the number of
 * tabs), then runs the work the service worker's queue engine writes to the `work` store,
 * one stage at a time, in web workers (media, analysis, vision, render), and reports every
 * result through the stage reporter.
 *
 * Durability: a work record stays in the store while its stage runs and is removed only once
 * the stage has finished (just before the result is reported, so the reporter's automatic
 * retry can queue the stage again). On start the runner also queues every job left in a
 * running status (syncing, diarizing, rendering) or in mapping without a camera map, so a
 * reload or crash never loses a stage; it runs again from the start.
 *
 * @module
 */
import { wrap, type Remote } from 'comlink';
import { createMediaClient, type MediaClient } from '../media/client.ts';
import { createRenderClient, type RenderClient } from '../render/client.ts';
import { DB_NAME, openDatabase, type Database, type JobRecord } from '../store/db.ts';
import { listEventsForJob } from '../store/events.ts';
import { ORPHAN_GRACE_MS, sweepOrphanRuns, type SweepResult } from '../store/sweep.ts';
import { getJobRecord } from '../store/jobs.ts';
import { addWork, deleteWork, listWork } from '../store/work.ts';
import { holdAssetCache } from '../models/asset-cache.ts';
import { CameraSampling } from '../vision/camera-sampling.ts';
import { resolveVisionAssets, type VisionWorkerApi } from '../vision/protocol.ts';
import { announceEvents } from '../webhooks/events-channel.ts';
import type { EngineStage, EngineWork } from '../contract/engine.ts';
import { ENGINE_CHANNEL, ENGINE_LOCK, type EngineMessage } from './queue-engine.ts';
import type { StageFailure, StageReporter } from '../jobs/reporter.ts';
import { isAbort, type StageAssets, type StageResult, type StageRun, type StageWorkers } from './stages/context.ts';
import { runDiarizing } from './stages/diarizing.ts';
import { ProxyQueue, type ProxyBuildRecord } from './proxies.ts';
import { runMapping } from './stages/mapping.ts';
import type { AnalysisWorkerApi } from '../speakers/protocol.ts';
import { runRendering } from './stages/rendering.ts';
import { runSyncing } from './stages/syncing.ts';
import { StageStallError, StallWatchdog, stallLimitMs, WorkerCalls } from './watchdog.ts';

/** Options of {@link startEngineRunner}. */
export interface EngineRunnerOptions {
  /** The stage reporter of a service on the same database (`service.reporter`). */
  reporter: StageReporter;
  /** IndexedDB database name; default the store's. */
  dbName?: string;
  /**
   * Where the VAD model and onnxruntime's wasm are served (default `/models/…` and `/wasm/ort/`
   * on this origin), the optional host models of single-mix speaker detection
   * (`segmentationModelUrl`, `embeddingModelUrl`; none by default), the vision worker's models
   * (`VisionAssets`, src/vision/protocol.ts: the face model, null to map by motion only, and the
   * optional active-speaker model of the camera map, `activeSpeakerModelUrl`, e.g. LR-ASD's
   * ONNX), and the optional GPL ffmpeg core (`ffmpegWasmBase`, e.g. `/wasm/`; off by default).
   * Relative URLs are resolved against this page.
   */
  assets?: Partial<Omit<StageAssets, 'assetCache'>>;
  /** Called with the ids of events recorded by stage reports; default `announceEvents` (wakes webhook delivery). */
  announce?: (ids: readonly string[]) => void;
  /**
   * How long a chunk run referenced by nothing may stay silent before the start-up sweep
   * collects it as left by a dead writer (default {@link ORPHAN_GRACE_MS}); tests pass 0.
   */
  orphanGraceMs?: number;
}

/** One finished stage run, for logs and tests. */
export interface StageRunRecord {
  jobId: string;
  stage: EngineStage;
  startedAt: number;
  elapsedMs: number;
  /** `stalled`: stopped by the watchdog after no sign of life (reported as a retryable failure). */
  outcome: 'succeeded' | 'failed' | 'stalled' | 'cancelled' | 'stopped';
  /** The failure reported, when it failed or stalled. */
  failure?: StageFailure;
  /** Figures the stage gave (e.g. VAD time), when it succeeded. */
  metrics?: Record<string, number | string>;
}

/** The running engine; see the module comment. */
export interface EngineRunner {
  /** Resolves once this context holds the engine lock and has queued the work left behind. */
  readonly started: Promise<void>;
  /** Whether this context runs the engine (false while another tab holds the lock). */
  readonly active: boolean;
  /** Finished stage runs, oldest first. */
  readonly history: readonly StageRunRecord[];
  /** Proxies built (or given up) in the background after analysis, oldest first (src/pipeline/proxies.ts). */
  readonly proxyHistory: readonly ProxyBuildRecord[];
  /** The stage running now, if any. */
  readonly running: EngineWork | null;
  /** Stops the running stage (its work stays queued for the next engine), frees the workers and the lock. */
  stop(): Promise<void>;
  /** Resolves with what the start-up sweep of orphan chunks collected (null before the engine started, or when it failed). */
  swept(): Promise<SweepResult | null>;
}

/** The Web Lock name for a database: {@link ENGINE_LOCK}, suffixed for databases other than the default. */
export function engineLockName(dbName: string): string {
  return dbName === DB_NAME ? ENGINE_LOCK : `${ENGINE_LOCK}:${dbName}`;
}

const STAGES: { [S in EngineStage]: (run: StageRun) => Promise<StageResult<S>> } = {
  syncing: runSyncing,
  diarizing: runDiarizing,
  mapping: runMapping,
  rendering: runRendering,
};

/** Whether the job still needs `stage` run (a stale work item is dropped). */
function needsStage(job: JobRecord, stage: EngineStage): boolean {
  if (stage === 'mapping') return job.status === 'mapping' && job.cameraMap === null;
  return job.status === stage;
}

/** Jobs left mid-stage by a reload or crash, as work. */
function leftBehind(jobs: readonly JobRecord[]): EngineWork[] {
  const out: EngineWork[] = [];
  for (const job of jobs) {
    if (job.status === 'syncing' || job.status === 'diarizing' || job.status === 'rendering')
      out.push({ jobId: job.id, stage: job.status });
    else if (job.status === 'mapping' && job.cameraMap === null && job.mappedBy === null)
      out.push({ jobId: job.id, stage: 'mapping' });
  }
  return out;
}

/** A worker failed outside any call (its script did not load, or an error escaped): comlink calls into it would never settle. */
export class WorkerCrashError extends Error {
  override readonly name = 'WorkerCrashError';
}

/** The stage workers, and how to end them. */
type EngineWorkers = StageWorkers & {
  /** Asks each worker to free what it holds, then terminates it. */
  dispose(): Promise<void>;
  /** Terminates every worker at once, without asking (one may be stuck): the next stage starts fresh ones. */
  terminate(): void;
};

/**
 * The stage workers, each started on first use. `onCrash` hears of a worker's `error` event;
 * the crashed worker is dropped so the next stage starts a fresh one. `calls` follows each
 * worker's calls and answers (the watchdog's signs of life).
 */
function lazyWorkers(
  onCrash: (error: WorkerCrashError) => void,
  assets: StageAssets,
  calls: WorkerCalls,
): EngineWorkers {
  let media: MediaClient | undefined;
  let mediaWorker: Worker | undefined;
  let renderWorker: Worker | undefined;
  let analysis: { worker: Worker; remote: Remote<AnalysisWorkerApi> } | undefined;
  /** The vision workers: [0] for everything, [1] a second camera lane the mapping stage may open. */
  const visions: Array<{ worker: Worker; remote: Remote<VisionWorkerApi> } | undefined> = [];
  let render: RenderClient | undefined;
  const visionRemote = (lane = 0): Remote<VisionWorkerApi> => {
    let vision = visions[lane];
    if (!vision) {
      const worker = watch(
        new Worker(new URL('../../workers/vision.worker.ts', import.meta.url), { type: 'module' }),
        'vision',
        () => {
          if (visions[lane]?.worker === worker) visions[lane] = undefined;
        },
      );
      vision = visions[lane] = { worker, remote: wrap<VisionWorkerApi>(worker) };
    }
    return vision.remote;
  };
  const cameras = new CameraSampling(
    {
      remote: visionRemote,
      started: () => visions.flatMap((vision) => (vision ? [vision.remote] : [])),
      close(lane) {
        visions[lane]?.worker.terminate();
        visions[lane] = undefined;
      },
    },
    assets,
  );
  const watch = (worker: Worker, name: string, drop: () => void): Worker => {
    calls.watch(worker, name);
    worker.addEventListener('error', (event) => {
      drop();
      calls.forget(worker);
      worker.terminate();
      onCrash(new WorkerCrashError(`the ${name} worker failed: ${event.message || 'it could not start'}`));
    });
    return worker;
  };
  return {
    media: () =>
      (media ??= createMediaClient(
        (mediaWorker = watch(
          new Worker(new URL('../../workers/media.worker.ts', import.meta.url), { type: 'module' }),
          'media',
          () => (media = undefined),
        )),
        assets.ffmpegWasmBase === undefined ? {} : { ffmpegWasmBase: assets.ffmpegWasmBase },
      )),
    analysis() {
      if (!analysis) {
        const worker = watch(
          new Worker(new URL('../../workers/analysis.worker.ts', import.meta.url), { type: 'module' }),
          'analysis',
          () => (analysis = undefined),
        );
        analysis = { worker, remote: wrap<AnalysisWorkerApi>(worker) };
      }
      return analysis.remote;
    },
    vision: visionRemote,
    cameraMotion: (jobId, sourceId, blob) => cameras.sample(jobId, sourceId, blob),
    hurryCameraMotion: (jobId) => cameras.hurry(jobId),
    dropCameraMotion: (jobId) => cameras.drop(jobId),
    render: () =>
      (render ??= createRenderClient(
        (renderWorker = watch(
          new Worker(new URL('../../workers/render.worker.ts', import.meta.url), { type: 'module' }),
          'render',
          () => (render = undefined),
        )),
      )),
    async dispose() {
      await media?.dispose();
      analysis?.worker.terminate();
      for (const vision of visions) vision?.worker.terminate();
      visions.length = 0;
      render?.dispose();
      media = analysis = render = undefined;
      cameras.clear();
    },
    terminate() {
      for (const worker of [mediaWorker, analysis?.worker, ...visions.map((v) => v?.worker), renderWorker]) {
        if (!worker) continue;
        worker.terminate();
        calls.forget(worker);
      }
      visions.length = 0;
      media = analysis = render = undefined;
      mediaWorker = renderWorker = undefined;
      cameras.clear();
    },
  };
}

/** A queued stage to run: its work, the keys of its work records and its job. */
interface QueuedWork {
  work: EngineWork;
  keys: number[];
  job: JobRecord;
}

/** The state the runner's steps share. */
interface EngineState {
  readonly dbName: string;
  readonly announce: (ids: readonly string[]) => void;
  readonly reporter: StageReporter;
  readonly assets: StageAssets;
  readonly history: StageRunRecord[];
  readonly workers: EngineWorkers;
  /** The workers' unanswered calls; each answer is a sign of life for the watchdog. */
  readonly calls: WorkerCalls;
  /** Ids of the events announced already. */
  readonly announced: Set<string>;
  active: boolean;
  stopping: boolean;
  db: Database | undefined;
  channel: BroadcastChannel | undefined;
  current: { jobId: string; stage: EngineStage; controller: AbortController; watchdog: StallWatchdog } | undefined;
  looping: boolean;
  again: boolean;
  readonly orphanGraceMs: number;
  /** The start-up sweep of orphan chunks, once the engine has started. */
  sweep: Promise<SweepResult | null> | undefined;
  /** The cameras' proxies, built while no stage runs or waits. */
  readonly proxies: ProxyQueue;
}

/** The stage assets of `options`, made absolute as seen from this page (the workers fetch them). */
function stageAssets(options: EngineRunnerOptions): StageAssets {
  const absolute = (url: string): string => new URL(url, self.location.href).href;
  const { vadModelUrl, segmentationModelUrl, embeddingModelUrl, ffmpegWasmBase } = options.assets ?? {};
  return {
    ...resolveVisionAssets(options.assets ?? {}, self.location.href),
    vadModelUrl: vadModelUrl ?? new URL('/models/silero_vad_v6.onnx', self.location.origin).href,
    ...(segmentationModelUrl ? { segmentationModelUrl: absolute(segmentationModelUrl) } : {}),
    ...(embeddingModelUrl ? { embeddingModelUrl: absolute(embeddingModelUrl) } : {}),
    ...(ffmpegWasmBase ? { ffmpegWasmBase: absolute(ffmpegWasmBase) } : {}),
  };
}

async function announceNew(state: EngineState, jobId: string): Promise<void> {
  if (!state.db) return;
  const ids = (await listEventsForJob(state.db, jobId))
    .filter((e) => e.delivery.state === 'pending' && !state.announced.has(e.id))
    .map((e) => e.id);
  for (const id of ids) state.announced.add(id);
  if (ids.length > 0) state.announce(ids);
}

/** The oldest queued work that still applies, with the keys of its records; stale records are dropped. */
async function nextWork(open: Database): Promise<QueuedWork | null> {
  const stale: number[] = [];
  let found: QueuedWork | null = null;
  for (const { key, work } of await listWork(open)) {
    if (found) {
      if (work.jobId === found.work.jobId && work.stage === found.work.stage) found.keys.push(key);
      continue;
    }
    const job = await getJobRecord(open, work.jobId);
    if (!job || !needsStage(job, work.stage)) stale.push(key);
    else found = { work, keys: [key], job };
  }
  if (stale.length > 0) await deleteWork(open, stale);
  return found;
}

/** A stage's progress for the reporter, throttled: a write per whole percent is plenty for polling clients. */
function progressWriter(
  reporter: StageReporter,
  work: EngineWork,
): { onProgress: (fraction: number) => void; written: () => Promise<void> } {
  let lastProgress = -1;
  let progressWrite: Promise<void> = Promise.resolve();
  return {
    onProgress: (fraction) => {
      if (fraction - lastProgress < 0.01) return;
      lastProgress = fraction;
      progressWrite = progressWrite
        .then(() => reporter.setProgress(work.jobId, fraction, work.stage))
        .catch(() => undefined);
    },
    written: () => progressWrite,
  };
}

/**
 * Runs the stage of `run`: its result, or 'aborted' when it was cancelled or stopped (a crashed
 * worker fails it; so does the watchdog, with its own message).
 */
export async function raceStage(
  stage: EngineStage,
  run: StageRun,
  runStage: (run: StageRun) => Promise<StageResult<EngineStage>> = STAGES[stage],
): Promise<StageResult<EngineStage> | 'aborted'> {
  const { signal } = run;
  // Settles as soon as the signal aborts, even when a call into a dead worker never does.
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  const failed = (error: unknown): StageResult<EngineStage> => ({
    ok: false,
    failure: {
      message:
        error instanceof StageStallError
          ? error.message
          : `the ${stage} stage failed: ${error instanceof Error ? error.message : String(error)}`,
    },
  });
  const failsStage = (reason: unknown): boolean =>
    reason instanceof WorkerCrashError || reason instanceof StageStallError;
  try {
    const result = await Promise.race([runStage(run), aborted]);
    if (signal.aborted) return failsStage(signal.reason) ? failed(signal.reason) : 'aborted';
    return result;
  } catch (error) {
    if (failsStage(signal.reason)) return failed(signal.reason);
    else if (signal.aborted || isAbort(error)) return 'aborted';
    else return failed(error);
  }
}

/** Reports a finished stage (or drops its work when cancelled) and records it in the history. */
async function recordOutcome(
  state: EngineState,
  open: Database,
  { work, keys }: QueuedWork,
  result: StageResult<EngineStage> | 'aborted',
  startedAt: number,
  stalled: boolean,
): Promise<void> {
  const { reporter, history } = state;
  const elapsedMs = Date.now() - startedAt;
  if (result === 'aborted') {
    // Stopped (reload, pagehide): the work stays queued. Cancelled (deleteJob): it is gone.
    if (state.stopping)
      history.push({ jobId: work.jobId, stage: work.stage, startedAt, elapsedMs, outcome: 'stopped' });
    else {
      await deleteWork(open, keys);
      history.push({ jobId: work.jobId, stage: work.stage, startedAt, elapsedMs, outcome: 'cancelled' });
    }
    return;
  }
  // Removed before reporting: a retry the reporter queues must not be merged into these records.
  await deleteWork(open, keys);
  // Before the outcome, so a job that moves on (or fails) already shows what went wrong on the way.
  if (result.warnings && result.warnings.length > 0) await reporter.addWarnings(work.jobId, result.warnings);
  if (result.ok) {
    try {
      await reporter.stageSucceeded(work.jobId, work.stage, result.output);
    } finally {
      await result.afterReport?.().catch(() => undefined);
    }
    history.push({
      jobId: work.jobId,
      stage: work.stage,
      startedAt,
      elapsedMs,
      outcome: 'succeeded',
      ...(result.metrics ? { metrics: result.metrics } : {}),
    });
  } else {
    await reporter.stageFailed(work.jobId, work.stage, result.failure);
    history.push({
      jobId: work.jobId,
      stage: work.stage,
      startedAt,
      elapsedMs,
      outcome: stalled ? 'stalled' : 'failed',
      failure: result.failure,
    });
  }
  await announceNew(state, work.jobId);
}

async function runOne(state: EngineState, open: Database, next: QueuedWork): Promise<void> {
  const { work, job } = next;
  const controller = new AbortController();
  // No sign of life (progress, a worker's message) for the limit: the stage is stopped and failed (retryably).
  const watchdog = new StallWatchdog({
    stage: work.stage,
    limitMs: stallLimitMs(job),
    onStall: (error) => controller.abort(error),
    waitingOn: () => state.calls.pending(),
  });
  state.current = { jobId: work.jobId, stage: work.stage, controller, watchdog };
  const startedAt = Date.now();
  const progress = progressWriter(state.reporter, work);
  const { workers, assets } = state;
  let result: StageResult<EngineStage> | 'aborted';
  try {
    result = await raceStage(work.stage, {
      db: open,
      job,
      workers,
      assets,
      signal: controller.signal,
      onProgress: (fraction) => {
        watchdog.alive();
        progress.onProgress(fraction);
      },
      alive: () => watchdog.alive(),
    });
  } finally {
    watchdog.stop();
    state.current = undefined;
  }
  const stalled = controller.signal.reason instanceof StageStallError;
  // A stalled call may never settle: fresh workers for the next stage (as after a crash).
  if (stalled) workers.terminate();
  await progress.written();
  await recordOutcome(state, open, next, result, startedAt, stalled);
}

/** Runs queued work until none is left; a wake-up during the loop makes it look again. */
async function pump(state: EngineState): Promise<void> {
  if (state.looping) {
    state.again = true;
    return;
  }
  state.looping = true;
  try {
    do {
      state.again = false;
      while (!state.stopping && state.db) {
        const next = await nextWork(state.db);
        if (!next) break;
        await runOne(state, state.db, next);
      }
    } while (state.again && !state.stopping);
  } catch (error) {
    console.error('[multicam engine]', error);
  } finally {
    state.looping = false;
  }
  // The stage queue is empty: the background proxy work may go on (it never holds a stage up).
  if (!state.stopping) state.proxies.poke();
}

/** Opens the database, listens on the engine channel and queues the work left behind. */
async function activate(state: EngineState): Promise<void> {
  const { dbName } = state;
  const db = (state.db = await openDatabase(dbName));
  const channel = (state.channel = new BroadcastChannel(ENGINE_CHANNEL));
  channel.onmessage = (event: MessageEvent<EngineMessage>) => {
    const message = event.data;
    if (message.dbName !== dbName) return;
    if (message.type === 'cancel') {
      state.workers.dropCameraMotion(message.jobId);
      state.proxies.cancel(message.jobId);
      if (state.current?.jobId === message.jobId)
        state.current.controller.abort(new DOMException('the job was deleted', 'AbortError'));
    } else void pump(state);
  };
  const now = Date.now();
  for (const work of leftBehind(await db.getAll('jobs'))) await addWork(db, work, now);
  state.active = true;
  // Chunks that a crashed or closed writer (upload, render, complete) left behind: collected once
  // per engine start, in the background (it never holds up the queue's work).
  state.sweep = sweepOrphanRuns(db, { graceMs: state.orphanGraceMs }).catch((error: unknown) => {
    console.warn('[multicam engine] sweeping orphan chunks failed', error);
    return null;
  });
}

/**
 * Starts the engine in this page: waits for the engine lock, then runs queued work until
 * {@link EngineRunner.stop}.
 *
 * @example
 * const multicam = await startMulticam();
 * const engine = startEngineRunner({ reporter: multicam.service.reporter });
 * addEventListener('pagehide', () => void engine.stop());
 */
export function startEngineRunner(options: EngineRunnerOptions): EngineRunner {
  // The workers fetch each model and wasm once for this page, through a cache of its own.
  const assetCache = holdAssetCache();
  const assets: StageAssets = { ...stageAssets(options), ...(assetCache ? { assetCache: assetCache.name } : {}) };
  // Any message from an engine worker is a sign of life of the running stage.
  const calls = new WorkerCalls(() => state.current?.watchdog.alive());
  const state: EngineState = {
    dbName: options.dbName ?? DB_NAME,
    announce: options.announce ?? announceEvents,
    reporter: options.reporter,
    assets,
    history: [],
    // A crashed worker fails the running stage (retried once by the reporter) instead of hanging it.
    workers: lazyWorkers((error) => state.current?.controller.abort(error), assets, calls),
    calls,
    announced: new Set<string>(),
    active: false,
    stopping: false,
    db: undefined,
    channel: undefined,
    current: undefined,
    looping: false,
    again: false,
    orphanGraceMs: options.orphanGraceMs ?? ORPHAN_GRACE_MS,
    sweep: undefined,
    proxies: new ProxyQueue({ db: () => state.db, busy: () => state.looping || state.current !== undefined }),
  };
  const lockRequest = new AbortController();
  let release: (() => void) | undefined;
  let markStarted: () => void = () => undefined;
  let failStart: (error: unknown) => void = () => undefined;
  const started = new Promise<void>((resolve, reject) => {
    markStarted = resolve;
    failStart = reject;
  });

  void navigator.locks
    .request(engineLockName(state.dbName), { signal: lockRequest.signal }, async () => {
      if (state.stopping) return;
      try {
        await activate(state);
      } catch (error) {
        failStart(error);
        return;
      }
      markStarted();
      void pump(state);
      // Hold the lock until stop().
      await new Promise<void>((resolve) => (release = resolve));
    })
    .catch((error: unknown) => failStart(error));

  return {
    started,
    get active() {
      return state.active;
    },
    history: state.history,
    proxyHistory: state.proxies.history,
    get running() {
      return state.current ? { jobId: state.current.jobId, stage: state.current.stage } : null;
    },
    async swept() {
      await started;
      return (await state.sweep) ?? null;
    },
    async stop() {
      state.stopping = true;
      lockRequest.abort();
      state.current?.controller.abort(new DOMException('the engine stopped', 'AbortError'));
      while (state.looping) await new Promise((resolve) => setTimeout(resolve, 20));
      await state.proxies.stop();
      state.channel?.close();
      await state.workers.dispose();
      state.db?.close();
      state.active = false;
      release?.();
      await assetCache?.release();
    },
  };
}
