/**
 * The engine's stall watchdog: a stage run that shows no sign of life for too long is stopped
 * and failed (retryably), so a job never sits in a stage for ever without saying why (a worker
 * call that never settles, as the media worker's `decodeAudio` did in WebKitGTK, sends no error
 * and no reply).
 *
 * A sign of life is any progress the stage reports, any sign of life it passes on from a worker
 * call (e.g. the media worker's decode progress) and any message an engine worker sends (a
 * comlink reply). {@link WorkerCalls} notes the comlink calls sent to each worker and not yet
 * answered, so the failure can name what the stage was waiting on.
 *
 * @module
 */
import type { EngineStage } from '../contract/engine.ts';
import type { JobRecord } from '../store/db.ts';

/** The least time a running stage may go without a sign of life before it is stopped: 10 minutes. */
export const STALL_LIMIT_MS = 10 * 60_000;

/**
 * Longer sources get longer: the limit is at least this share of the job's longest source (a
 * 2-hour source, 60 minutes). One worker call (a camera's frame sampling, speaker detection)
 * answers once, at its end; measured, the analysis stages run 20× to 230× faster than real
 * time in Chromium (docs/long-footage.md; rendering, 4×, reports progress throughout), and
 * Firefox decodes in software: half of real time leaves a slow, loaded machine plenty. A stall
 * is rare, and stopping a live stage would be worse than noticing a dead one late.
 */
export const STALL_MEDIA_SHARE = 0.5;

/** The stall limit for a job's stage: {@link STALL_LIMIT_MS}, or more for long sources (known once probed). */
export function stallLimitMs(job: Pick<JobRecord, 'sources'>): number {
  const longest = Math.max(0, ...job.sources.map((s) => s.durationMs ?? 0));
  return Math.max(STALL_LIMIT_MS, Math.round(longest * STALL_MEDIA_SHARE));
}

/** The clock and timer the watchdog uses; tests pass a manual one. */
export interface WatchdogTimer {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The wall clock and the global timers. */
export const wallTimer: WatchdogTimer = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A stage run was stopped because it showed no sign of life for the stall limit. */
export class StageStallError extends Error {
  override readonly name = 'StageStallError';
}

/** A comlink call sent to a worker and not answered yet. */
export interface PendingCall {
  /** The worker's name, e.g. `media`. */
  worker: string;
  /** The method called, e.g. `decodeAudio`. */
  method: string;
  /** When it was sent ({@link WatchdogTimer.now}). */
  sentAt: number;
}

/** What {@link WorkerCalls.watch} needs of a worker: its `postMessage` (wrapped) and its messages. */
export interface CallChannel {
  postMessage(message: unknown, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

/** The `id` and method of a comlink request (`{ id, type, path }`), or null for other messages. */
function comlinkRequest(message: unknown): { id: string; method: string } | null {
  if (typeof message !== 'object' || message === null) return null;
  const { id, type, path } = message as { id?: unknown; type?: unknown; path?: unknown };
  if (typeof id !== 'string' || typeof type !== 'string' || type === 'RELEASE') return null;
  const method = Array.isArray(path) && path.length > 0 ? path.join('.') : type.toLowerCase();
  return { id, method };
}

/**
 * The comlink calls of the engine's workers: which are unanswered, and a sign of life on each
 * message a worker sends.
 */
export class WorkerCalls {
  readonly #pending = new Map<CallChannel, Map<string, PendingCall>>();

  constructor(
    private readonly onLife: () => void,
    private readonly timer: Pick<WatchdogTimer, 'now'> = wallTimer,
  ) {}

  /** Follows `worker`'s calls and answers from now on; returns it. */
  watch<W extends CallChannel>(worker: W, name: string): W {
    const pending = new Map<string, PendingCall>();
    this.#pending.set(worker, pending);
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (message: unknown, transfer: Transferable[]): void => {
      const request = comlinkRequest(message);
      if (request) pending.set(request.id, { worker: name, method: request.method, sentAt: this.timer.now() });
      post(message, transfer);
    };
    worker.addEventListener('message', (event) => {
      const id = (event.data as { id?: unknown } | null)?.id;
      if (typeof id === 'string') pending.delete(id);
      this.onLife();
    });
    return worker;
  }

  /** Forgets a worker's unanswered calls (it was terminated). */
  forget(worker: CallChannel): void {
    this.#pending.delete(worker);
  }

  /** The unanswered calls, oldest first. */
  pending(): PendingCall[] {
    return [...this.#pending.values()].flatMap((calls) => [...calls.values()]).sort((a, b) => a.sentAt - b.sentAt);
  }
}

/** Options of {@link StallWatchdog}. */
export interface StallWatchdogOptions {
  stage: EngineStage;
  /** How long the stage may go without a sign of life. */
  limitMs: number;
  /** Called once, when the limit passes without a sign of life; the runner aborts the stage with it. */
  onStall: (error: StageStallError) => void;
  /** The calls the stage may be waiting on (unanswered, oldest first), for the message. */
  waitingOn?: () => readonly PendingCall[];
  timer?: WatchdogTimer;
}

/** Minutes for messages: `5 min`, `2.5 min`. */
function minutes(ms: number): string {
  return `${Math.round(ms / 6000) / 10} min`;
}

/**
 * Watches one stage run: {@link alive} on each sign of life; {@link stop} when the run ends.
 * One timer at a time, re-armed for the time left when it fires after a sign of life, so a
 * sign of life costs no timer work.
 */
export class StallWatchdog {
  readonly #options: StallWatchdogOptions;
  readonly #timer: WatchdogTimer;
  #lastLife: number;
  #handle: unknown;
  #stopped = false;

  constructor(options: StallWatchdogOptions) {
    this.#options = options;
    this.#timer = options.timer ?? wallTimer;
    this.#lastLife = this.#timer.now();
    this.#arm(options.limitMs);
  }

  /** A sign of life: the limit starts again. */
  alive(): void {
    this.#lastLife = this.#timer.now();
  }

  /** The run ended: no more checks. */
  stop(): void {
    this.#stopped = true;
    this.#timer.clearTimeout(this.#handle);
  }

  #arm(ms: number): void {
    this.#handle = this.#timer.setTimeout(() => this.#check(), ms);
  }

  #check(): void {
    if (this.#stopped) return;
    const { limitMs, stage } = this.#options;
    const silentMs = this.#timer.now() - this.#lastLife;
    if (silentMs < limitMs) {
      this.#arm(limitMs - silentMs);
      return;
    }
    this.#stopped = true;
    const calls = [...new Set((this.#options.waitingOn?.() ?? []).map((c) => `the ${c.worker} worker's ${c.method}`))];
    const what =
      calls.length > 0
        ? `${calls.join(' and ')} gave no answer`
        : 'it reported no progress and its workers sent nothing';
    this.#options.onStall(new StageStallError(`${stage} stalled: ${what} for ${minutes(limitMs)}, so it was stopped`));
  }
}
