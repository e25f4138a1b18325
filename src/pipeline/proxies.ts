/**
 * The engine's proxy work: each camera's light copy for the review editor, built in the
 * background once a job's analysis is done (docs/proxies.md). The runner pokes the queue
 * whenever its stage queue is empty; one proxy is built at a time, in a media worker of its own,
 * and no new one starts while a stage runs or waits (stages come first, and a job never waits on
 * its proxies). Each proxy is stored as a file of the job and recorded on its source; a job
 * deleted meanwhile finds the build cancelled, or its file deleted when the record is gone.
 *
 * @module
 */
import { createMediaClient, type MediaClient } from '../media/client.ts';
import { AppendWithHeadPatches, PROXY_BITRATE, PROXY_HEAD_BYTES } from '../media/proxy-plan.ts';
import type { BuiltProxy } from '../media/protocol.ts';
import type { Database, StoredProxy } from '../store/db.ts';
import { createFileWriter, deleteFile, openFileBlob, rewriteFileStart } from '../store/files.ts';
import { getJobRecord } from '../store/jobs.ts';
import { LocalFileUnavailableError } from '../store/local-files.ts';
import { needsProxy, nextProxyWork, proxyKey, recordProxy, type ProxyWork } from '../jobs/proxies.ts';
import { isAbort, sourceName } from './stages/context.ts';

/** One proxy the queue finished or gave up on, for logs, tests and the benchmark. */
export interface ProxyBuildRecord {
  jobId: string;
  sourceId: string;
  outcome: StoredProxy['status'] | 'skipped' | 'cancelled';
  /** Wall-clock ms from the file's opening to the proxy stored. */
  elapsedMs: number;
  /** The source's length, ms (× real time = durationMs / elapsedMs). */
  durationMs: number;
  bytes: number;
  reason?: string;
}

/** What the queue needs from the engine. */
export interface ProxyQueueOptions {
  /** The engine's open database (none while it is not started). */
  db: () => Database | undefined;
  /** Whether a stage runs or is queued: no new proxy starts then. */
  busy: () => boolean;
  /** The media worker proxies are built in; default a worker of its own, started on first use. */
  media?: () => MediaClient;
  /** What the origin may still store (default `navigator.storage.estimate()` where there is one). */
  storageEstimate?: () => Promise<{ quota?: number; usage?: number }>;
  /** Called after each proxy finished or given up (the runner wakes nothing; tests listen). */
  onRecord?: (record: ProxyBuildRecord) => void;
}

/** A proxy of `durationMs` takes about this many bytes (its bitrate, a tenth more for the container and peaks). */
export function proxyBytesEstimate(durationMs: number): number {
  return Math.ceil((durationMs / 1000) * (PROXY_BITRATE / 8) * 1.1);
}

/** The queue; see the module comment. */
export class ProxyQueue {
  /** Finished builds, oldest first. */
  readonly history: ProxyBuildRecord[] = [];
  private running: { work: ProxyWork; controller: AbortController } | null = null;
  private readonly skipped = new Set<string>();
  private stopped = false;
  private client: MediaClient | undefined;
  private worker: Worker | undefined;

  constructor(private readonly options: ProxyQueueOptions) {}

  /** Whether a proxy is being built now. */
  get building(): ProxyWork | null {
    return this.running?.work ?? null;
  }

  /** Looks for a proxy to build and starts it, unless one runs, a stage is busy, or the queue stopped. */
  poke(): void {
    if (this.running || this.stopped || this.options.busy()) return;
    const db = this.options.db();
    if (!db) return;
    const controller = new AbortController();
    // Claimed at once so a second poke in the meantime starts nothing.
    this.running = { work: { jobId: '', sourceId: '' }, controller };
    void this.next(db, controller)
      .catch((error: unknown) => console.warn('[multicam proxies]', error))
      .finally(() => {
        this.running = null;
        if (!this.stopped) this.poke();
      });
  }

  /** Stops the build of a deleted job's camera (its partial file is deleted). */
  cancel(jobId: string): void {
    if (this.running?.work.jobId === jobId)
      this.running.controller.abort(new DOMException('the job was deleted', 'AbortError'));
  }

  /** Stops the build in progress and the worker; nothing starts afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.running?.controller.abort(new DOMException('the engine stopped', 'AbortError'));
    while (this.running) await new Promise((resolve) => setTimeout(resolve, 20));
    await this.client?.dispose().catch(() => undefined);
    this.client = undefined;
  }

  private media(): MediaClient {
    if (this.options.media) return this.options.media();
    if (!this.client) {
      const worker = new Worker(new URL('../../workers/media.worker.ts', import.meta.url), { type: 'module' });
      worker.addEventListener('error', (event) => {
        // A crashed worker never answers: the build in progress fails, the next one starts a fresh worker.
        this.running?.controller.abort(new Error(`the media worker failed: ${event.message || 'it could not start'}`));
        worker.terminate();
        if (this.worker === worker) this.client = this.worker = undefined;
      });
      this.worker = worker;
      this.client = createMediaClient(worker);
    }
    return this.client;
  }

  private async next(db: Database, controller: AbortController): Promise<void> {
    const work = nextProxyWork(await db.getAll('jobs'), this.skipped);
    if (!work || !this.running) return;
    this.running.work = work;
    const record = await this.build(db, work, controller.signal);
    this.history.push(record);
    this.options.onRecord?.(record);
  }

  private async build(db: Database, work: ProxyWork, signal: AbortSignal): Promise<ProxyBuildRecord> {
    const startedAt = performance.now();
    const job = await getJobRecord(db, work.jobId);
    const source = job?.sources.find((s) => s.id === work.sourceId);
    const base = { jobId: work.jobId, sourceId: work.sourceId, durationMs: source?.durationMs ?? 0, bytes: 0 };
    const elapsed = (): number => Math.round(performance.now() - startedAt);
    if (!job || !source || source.fileId === null || !needsProxy(job, source))
      return { ...base, outcome: 'skipped', elapsedMs: elapsed() };
    const name = sourceName(job, source);
    const give = async (proxy: StoredProxy): Promise<ProxyBuildRecord> => {
      await recordProxy(db, job.id, source.id, proxy);
      return {
        ...base,
        outcome: proxy.status,
        elapsedMs: elapsed(),
        ...('reason' in proxy ? { reason: proxy.reason } : {}),
      };
    };
    let blob: Blob;
    try {
      blob = await openFileBlob(db, source.fileId);
    } catch (error) {
      // A file used in place that no page holds now: tried again when the engine starts next.
      this.skipped.add(proxyKey(job.id, source.id));
      if (error instanceof LocalFileUnavailableError)
        return { ...base, outcome: 'skipped', elapsedMs: elapsed(), reason: error.message };
      throw error;
    }
    const room = await this.room();
    const needed = proxyBytesEstimate(source.durationMs ?? 0);
    if (room !== null && needed > room)
      return give({
        status: 'failed',
        reason: `this browser can store ${(room / 1e6).toFixed(0)} MB more for this site and the proxy of camera ${name} needs about ${(needed / 1e6).toFixed(0)} MB: the editor plays the original`,
      });
    const writer = createFileWriter(db, 'video/mp4', Date.now());
    let built: BuiltProxy;
    try {
      built = await this.media().buildProxy(blob, {
        label: name,
        signal,
        sink: { append: (data) => writer.write(data) },
      });
    } catch (error) {
      await writer.abort().catch(() => undefined);
      if (signal.aborted || isAbort(error)) return { ...base, outcome: 'cancelled', elapsedMs: elapsed() };
      return give({
        status: 'failed',
        reason: `the proxy of camera ${name} could not be built: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    if (built.outcome === 'unavailable') {
      await writer.abort();
      return give({ status: 'unavailable', reason: built.reason ?? 'this browser cannot make a proxy of it' });
    }
    const fileId = await writer.close();
    if (built.headPatches.length > 0)
      await rewriteFileStart(
        db,
        fileId,
        (head) => AppendWithHeadPatches.apply(head, built.headPatches),
        PROXY_HEAD_BYTES,
      );
    const buildMs = elapsed();
    const proxy: StoredProxy = {
      status: 'ready',
      fileId,
      width: built.width,
      height: built.height,
      size: built.size,
      buildMs,
      durationMs: source.durationMs ?? 0,
      codec: built.codec,
    };
    // The job was deleted meanwhile (or the source has a proxy already): no byte stays behind.
    if (!(await recordProxy(db, job.id, source.id, proxy))) {
      await deleteFile(db, fileId);
      return { ...base, outcome: 'cancelled', elapsedMs: buildMs, bytes: built.size };
    }
    return { ...base, outcome: 'ready', elapsedMs: buildMs, bytes: built.size };
  }

  /** Bytes the origin may still store, or null when the browser does not say. */
  private async room(): Promise<number | null> {
    const estimate =
      this.options.storageEstimate ??
      (typeof navigator !== 'undefined' && navigator.storage?.estimate ? () => navigator.storage.estimate() : null);
    if (!estimate) return null;
    try {
      const { quota, usage } = await estimate();
      return quota === undefined || usage === undefined ? null : Math.max(0, quota - usage);
    } catch {
      return null;
    }
  }
}
