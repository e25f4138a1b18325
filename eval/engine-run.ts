/**
 * The engine's own outputs on a generated set, for the end-to-end rows of the evaluations
 * (issue 49): the set's cameras and mics go through the real product pipeline in Chromium
 * (`multicam edit`, in-process: src/cli/main.ts `runEdit` with `analysisOnly`), with detected
 * turns, measured sync and faces, and the job is scored against the set's truth.
 *
 * The caller holds /tmp/multicam-browser.lock (`runEdit` builds the app and launches Chromium):
 * wrap the whole eval command in `flock`, not this module.
 *
 * Time: the engine's timeline starts at its earliest source as the truth's does, but its
 * offsets are measured. {@link onTruth} puts the job on the truth's timeline source by source
 * (a cut on camera `s` at job time `u` shows what that camera recorded at truth time
 * `u − measured offset + true offset`); the turns and removed ranges, which belong to no one
 * source, move by the median of those shifts. Drift is ignored (the sets have none or a few
 * ppm: milliseconds over minutes).
 *
 * Speakers: the engine names its own (`S1`, …); {@link onTruth} maps them to the truth's by
 * the DER's optimal one-to-one mapping (0.25 s collar, against the speech-level truth).
 *
 * @example
 * const run = await runEngine({ videos, audio }, { autoMap: 'always' });
 * if (run.outcome === 'ready') console.log(onTruth(run.job, truth).derPct);
 *
 * @module
 */
import { mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { diarizationErrorRate } from '../src/analysis/diarize/der.ts';
import { parseEditArgs } from '../src/cli/args.ts';
import { runEdit } from '../src/cli/main.ts';
import type { AutoMapMode, CameraMapCamera, Cut, Job, TimeRange, Turn } from '../src/contract/types.ts';
import type { StageRunRecord } from '../src/pipeline/runner.ts';
import type { ExpectedCamera, Truth, TruthSource } from '../tools/fixtures/truth.ts';

/** What the engine did with one set. */
export type EngineRun =
  | {
      /** The job reached `ready`: `mappedBy` says whether the service mapped it itself (autoMap) or asked and the CLI took the camera map's proposal. */
      outcome: 'ready';
      job: Job;
      mappedBy: 'service' | 'proposal';
      lines: string[];
      seconds: number;
    }
  /** The service could not tell who is on which camera: the CLI listed the speakers and exited 4. */
  | { outcome: 'needs-mapping'; lines: string[]; seconds: number }
  /** The job failed, timed out, or the run threw. */
  | { outcome: 'failed'; code: number; message: string; lines: string[]; seconds: number };

/** The files a user would pick: the cameras, and the close mics if the set has them. */
export function filesOf(dir: string, truth: Pick<Truth, 'sources'>): { videos: string[]; audio: string[] } {
  return {
    videos: truth.sources.filter((s) => s.kind === 'video').map((s) => join(dir, s.file)),
    audio: truth.sources.filter((s) => s.kind === 'audio').map((s) => join(dir, s.file)),
  };
}

/**
 * Runs one set through the engine up to `ready` (analysis only: no render) in its own Chromium.
 * Never throws for the job's sake: a question for a mapping and a failure are outcomes.
 */
export async function runEngine(
  files: { videos: readonly string[]; audio: readonly string[] },
  options: {
    autoMap?: AutoMapMode;
    timeoutS?: number;
    log?: (line: string) => void;
    /** An active-speaker ONNX model for the camera map (`--active-speaker-model`), e.g. `LR_ASD_MODEL_PATH`. */
    activeSpeakerModel?: string;
    /** Called with the engine's stage runs and their metrics (the mapping stage says which path judged each camera). */
    onStageRuns?: (runs: StageRunRecord[]) => void;
  } = {},
): Promise<EngineRun> {
  const outDir = resolve(import.meta.dirname, '../.cache/eval-engine');
  mkdirSync(outDir, { recursive: true });
  const args = parseEditArgs([
    ...files.videos,
    ...files.audio.flatMap((a) => ['--audio', a]),
    '-o',
    join(outDir, 'unused.mp4'),
    '--auto-map',
    options.autoMap ?? 'always',
    '--timeout',
    String(options.timeoutS ?? 1800),
    ...(options.activeSpeakerModel ? ['--active-speaker-model', options.activeSpeakerModel] : []),
  ]);
  const lines: string[] = [];
  let job: Job | null = null;
  const t0 = performance.now();
  const seconds = (): number => Math.round((performance.now() - t0) / 1000);
  let code: number;
  try {
    code = await runEdit(
      args,
      (line) => {
        lines.push(line);
        options.log?.(line);
      },
      {
        analysisOnly: true,
        onDone: (j) => void (job = j.job),
        ...(options.onStageRuns ? { onStageRuns: options.onStageRuns } : {}),
      },
    );
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { outcome: 'failed', code: -1, message, lines, seconds: seconds() };
  }
  if (code === 4) return { outcome: 'needs-mapping', lines, seconds: seconds() };
  const done = job as Job | null;
  if (code !== 0 || done === null) {
    const message = lines.filter((l) => l.startsWith('multicam:')).join(' ') || `exit ${code}`;
    return { outcome: 'failed', code, message, lines, seconds: seconds() };
  }
  // `followJob` says "mapping by the service …" when autoMap mapped, "mapping from the
  // service's camera map …" when the service asked and the CLI took the proposal.
  const mappedBy = lines.some((l) => l.includes('mapping from the service')) ? 'proposal' : 'service';
  return { outcome: 'ready', job: done, mappedBy, lines, seconds: seconds() };
}

/** A one-line account of a run that did not reach `ready`, for the log. */
export function describeFailure(run: Exclude<EngineRun, { outcome: 'ready' }>): string {
  if (run.outcome === 'failed') return `engine failed (${run.message}) after ${run.seconds} s`;
  const ask = run.lines.find((l) => l.includes('Speakers heard:')) ?? '';
  const heard = /Speakers heard:([\s\S]*?)(?:\nCameras:|$)/.exec(ask)?.[1] ?? '';
  return `asks for a mapping after ${run.seconds} s (heard: ${heard.replace(/\s+/g, ' ').trim() || 'nobody listed'})`;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? 0 : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** A job put on the truth's timeline and speakers (see the module doc). */
export interface JobOnTruth {
  /** Job source id → the truth's source (by label, else file name). */
  sourceOf: Map<string, TruthSource>;
  /** The job's cuts on the truth's timeline, with the truth's file names as source ids. */
  cuts: Cut[];
  /** Any cuts of the job's sources (a replan of the job's outputs) put on the truth's timeline as {@link cuts}. */
  toTruth(cuts: readonly Cut[]): Cut[];
  /** The job's removed ranges on the truth's timeline. */
  removed: TimeRange[];
  /** The job's turns on the truth's timeline (the engine's speaker names). */
  turns: Turn[];
  /** DER of the job's turns against the speech-level truth, 0.25 s collar, in %. */
  derPct: number;
  /** Speakers the engine heard, and the truth's. */
  speakersHeard: number;
  /** Engine speaker → truth speaker (the DER's mapping); unmatched ones are absent. */
  truthSpeaker: Map<string, string>;
  /** The worst error, over every pair of sources, of one's offset relative to the other (ms). */
  syncErrorMs: number;
  /** The job's camera map entry of a truth file, its speakers and positions named as the truth's (`?S4` for an unmatched engine speaker). */
  cameraOf(file: string): CameraMapCamera | undefined;
}

/** Puts `job` on `truth`'s timeline and speakers. */
export function onTruth(job: Job, truth: Pick<Truth, 'sources' | 'speech'>): JobOnTruth {
  const sourceOf = new Map<string, TruthSource>();
  for (const s of job.sources) {
    const t =
      truth.sources.find((x) => x.label === s.label) ??
      truth.sources.find((x) => x.file === s.label || basename(x.file) === `${s.label}.${s.ext}`);
    if (t) sourceOf.set(s.id, t);
  }
  // Truth time of job time u on source s: u + shift(s).
  const shift = new Map(
    job.sources
      .filter((s) => sourceOf.has(s.id))
      .map((s) => [s.id, sourceOf.get(s.id)!.offsetMs - (s.offsetMs ?? 0)] as const),
  );
  const common = median([...shift.values()]);
  const toTruth = (list: readonly Cut[]): Cut[] =>
    list.map((c) => {
      const d = shift.get(c.sourceId) ?? common;
      return {
        ...c,
        sourceId: sourceOf.get(c.sourceId)?.file ?? c.sourceId,
        startMs: c.startMs + d,
        endMs: c.endMs + d,
      };
    });
  const cuts = toTruth(job.cuts);
  const removed = (job.removed_ranges ?? []).map((r) => ({ startMs: r.startMs + common, endMs: r.endMs + common }));
  const turns = job.turns.map((t) => ({ ...t, startMs: t.startMs + common, endMs: t.endMs + common }));
  const reference = truth.speech.map((t) => ({ speaker: t.speaker, startMs: t.startMs, endMs: t.endMs }));
  const der = diarizationErrorRate(reference, turns, { collarMs: 250 });
  const truthSpeaker = new Map(Object.entries(der.mapping).map(([ref, hyp]) => [hyp, ref]));
  const shifts = [...shift.values()];
  const syncErrorMs = shifts.length === 0 ? NaN : Math.max(...shifts) - Math.min(...shifts);
  const name = (s: string): string => truthSpeaker.get(s) ?? `?${s}`;
  const cameraOf = (file: string): CameraMapCamera | undefined => {
    const id = [...sourceOf].find(([, t]) => t.file === file)?.[0];
    const c = job.camera_map?.cameras.find((x) => x.sourceId === id);
    if (!c) return undefined;
    const positions = c.positions
      ? Object.fromEntries(Object.entries(c.positions).map(([k, v]) => [k, name(v)]))
      : undefined;
    return { ...c, sourceId: file, speakers: c.speakers.map(name), ...(positions ? { positions } : {}) };
  };
  return {
    sourceOf,
    cuts,
    toTruth,
    removed,
    turns,
    derPct: der.der * 100,
    speakersHeard: der.hypothesisSpeakers,
    truthSpeaker,
    syncErrorMs,
    cameraOf,
  };
}

/**
 * Whether the engine's camera (named as the truth's, {@link JobOnTruth.cameraOf}) is the
 * expected one: kind, speakers (in any order: the engine orders them by its own names) and,
 * for a shot of several people, their positions (unless `check.positions` is false). `multi`
 * (a switched feed): kind only.
 */
export function engineCameraRight(
  c: CameraMapCamera | undefined,
  e: ExpectedCamera,
  check: { positions: boolean } = { positions: true },
): boolean {
  if (!c || c.kind !== e.kind) return false;
  if (e.kind === 'multi') return true;
  const sorted = (xs: readonly string[]): string => JSON.stringify([...xs].sort());
  if (sorted(c.speakers) !== sorted(e.speakers)) return false;
  if (!check.positions || e.kind === 'closeup' || e.positions === undefined) return true;
  const pos = (p: CameraMapCamera['positions']): string =>
    JSON.stringify(Object.entries(p ?? {}).sort(([a], [b]) => a.localeCompare(b)));
  return pos(c.positions) === pos(e.positions);
}

/** `cam1 closeup/high [spk1]` for the log. */
export function describeCamera(c: CameraMapCamera | undefined, file: string): string {
  if (!c) return `${file} missing`;
  const pos = c.positions
    ? ` {${Object.entries(c.positions)
        .map(([k, v]) => `${k}:${v}`)
        .join(' ')}}`
    : '';
  return `${file} ${c.kind}/${c.confidence} [${c.speakers.join(',')}]${pos} (${c.evidence ?? 'motion'})`;
}
