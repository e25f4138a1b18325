/**
 * The engine's stall watchdog: a stage whose worker call never answers is stopped after the
 * limit and fails (retryably) with a message naming the stage and the call; a stage that keeps
 * showing signs of life (progress, worker messages) runs past the limit untouched. Time is a
 * manual clock: nothing waits for real.
 */
import { describe, expect, test } from 'vitest';
import { raceStage } from '../../../src/pipeline/runner.ts';
import type { StageResult, StageRun } from '../../../src/pipeline/stages/context.ts';
import {
  STALL_LIMIT_MS,
  StageStallError,
  StallWatchdog,
  stallLimitMs,
  WorkerCalls,
  type CallChannel,
  type WatchdogTimer,
} from '../../../src/pipeline/watchdog.ts';
import type { EngineStage } from '../../../src/contract/engine.ts';
import type { JobRecord } from '../../../src/store/db.ts';

const MINUTE = 60_000;

/** Test double of the clock and timers: time moves only when {@link advance} says so. */
class ManualTimerDouble implements WatchdogTimer {
  #now = 0;
  #next = 0;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();
  now(): number {
    return this.#now;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const id = ++this.#next;
    this.#timers.set(id, { at: this.#now + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  /** Moves time on by `ms`, running each timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].callback();
    }
    this.#now = end;
  }
}

/** Test double of a worker that takes comlink calls and never answers them (as WebKitGTK's stalled decode did). */
class NeverAnsweringWorkerDouble implements CallChannel {
  readonly posted: unknown[] = [];
  readonly #listeners: Array<(event: MessageEvent) => void> = [];
  postMessage(message: unknown, _transfer: Transferable[] = []): void {
    this.posted.push(message);
  }
  addEventListener(_type: 'message', listener: (event: MessageEvent) => void): void {
    this.#listeners.push(listener);
  }
  /** A message from the worker (a reply to another call, say). */
  send(data: unknown): void {
    for (const listener of this.#listeners) listener(new MessageEvent('message', { data }));
  }
}

/** A watched stage run: its watchdog aborts `run.signal`, as the runner's does. */
function watchedRun(stage: EngineStage, timer: ManualTimerDouble) {
  const controller = new AbortController();
  const ref: { watchdog?: StallWatchdog } = {};
  const calls = new WorkerCalls(() => ref.watchdog?.alive(), timer);
  const dog = (ref.watchdog = new StallWatchdog({
    stage,
    limitMs: STALL_LIMIT_MS,
    onStall: (error) => controller.abort(error),
    waitingOn: () => calls.pending(),
    timer,
  }));
  const progress: number[] = [];
  const run = {
    signal: controller.signal,
    onProgress: (fraction: number) => {
      dog.alive();
      progress.push(fraction);
    },
    alive: () => dog.alive(),
  } as unknown as StageRun;
  return { controller, calls, watchdog: dog, run, progress };
}

/** Lets pending promise callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('stall watchdog', () => {
  test('a worker call that never answers fails the stage after the limit, naming the stage and the call', async () => {
    const timer = new ManualTimerDouble();
    const { controller, calls, run } = watchedRun('syncing', timer);
    const media = calls.watch(new NeverAnsweringWorkerDouble(), 'media');
    const stage = (): Promise<StageResult<EngineStage>> => {
      media.postMessage({ id: 'call-1', type: 'APPLY', path: ['decodeAudio'], argumentList: [] }, []);
      return new Promise(() => undefined); // never settles
    };
    const outcome = raceStage('syncing', run, stage);
    timer.advance(STALL_LIMIT_MS - 1);
    await settle();
    expect(controller.signal.aborted).toBe(false);
    timer.advance(1);
    expect(controller.signal.reason).toBeInstanceOf(StageStallError);
    const result = await outcome;
    expect(result).toEqual({
      ok: false,
      failure: {
        message: "syncing stalled: the media worker's decodeAudio gave no answer for 10 min, so it was stopped",
      },
    });
    // Retryable: not marked permanent, so the reporter's automatic retry runs.
    expect(result !== 'aborted' && !result.ok && result.failure.permanent).toBeFalsy();
  });

  test('a stage that reports progress every minute runs well past the limit', async () => {
    const timer = new ManualTimerDouble();
    const { controller, run, progress } = watchedRun('rendering', timer);
    let finish: (result: StageResult<EngineStage>) => void = () => undefined;
    const stage = (r: StageRun): Promise<StageResult<EngineStage>> => {
      for (let minute = 1; minute <= 30; minute++) timer.setTimeout(() => r.onProgress(minute / 30), minute * MINUTE);
      return new Promise((resolve) => (finish = resolve));
    };
    const outcome = raceStage('rendering', run, stage);
    timer.advance(30 * MINUTE + STALL_LIMIT_MS - 1);
    expect(progress).toHaveLength(30);
    expect(controller.signal.aborted).toBe(false);
    finish({ ok: false, failure: { message: 'done (a test outcome)' } });
    expect(await outcome).toEqual({ ok: false, failure: { message: 'done (a test outcome)' } });
  });

  test("a worker's messages and a call's own progress are signs of life; answered calls are not named", async () => {
    const timer = new ManualTimerDouble();
    const { controller, calls, run } = watchedRun('diarizing', timer);
    const analysis = calls.watch(new NeverAnsweringWorkerDouble(), 'analysis');
    const media = calls.watch(new NeverAnsweringWorkerDouble(), 'media');
    analysis.postMessage({ id: 'a', type: 'APPLY', path: ['diarizeSources'] }, []);
    media.postMessage({ id: 'm', type: 'APPLY', path: ['decodeAudio'] }, []);
    expect(calls.pending().map((c) => `${c.worker}.${c.method}`)).toEqual([
      'analysis.diarizeSources',
      'media.decodeAudio',
    ]);
    // Twenty-four minutes (the limit is 10): a worker message at 8, the decode's own progress at 16.
    timer.advance(8 * MINUTE);
    media.send({ id: 'm', type: 'RAW', value: null });
    timer.advance(8 * MINUTE);
    run.alive?.();
    timer.advance(8 * MINUTE);
    expect(controller.signal.aborted).toBe(false);
    timer.advance(2 * MINUTE);
    expect(controller.signal.aborted).toBe(true);
    expect((controller.signal.reason as Error).message).toBe(
      "diarizing stalled: the analysis worker's diarizeSources gave no answer for 10 min, so it was stopped",
    );
  });

  test('with no call unanswered, the message says the stage gave no sign of life', () => {
    const timer = new ManualTimerDouble();
    const { controller } = watchedRun('mapping', timer);
    timer.advance(STALL_LIMIT_MS);
    expect((controller.signal.reason as Error).message).toBe(
      'mapping stalled: it reported no progress and its workers sent nothing for 10 min, so it was stopped',
    );
  });

  test('a stopped watchdog never fires', () => {
    const timer = new ManualTimerDouble();
    const { controller, watchdog } = watchedRun('syncing', timer);
    watchdog.stop();
    timer.advance(10 * STALL_LIMIT_MS);
    expect(controller.signal.aborted).toBe(false);
  });

  test('the limit is 10 minutes, or half the longest source', () => {
    const job = (durations: Array<number | null>) =>
      ({ sources: durations.map((durationMs) => ({ durationMs })) }) as unknown as JobRecord;
    expect(stallLimitMs(job([null, null]))).toBe(10 * MINUTE);
    expect(stallLimitMs(job([10 * MINUTE, 3 * MINUTE]))).toBe(10 * MINUTE);
    expect(stallLimitMs(job([120 * MINUTE, 60 * MINUTE]))).toBe(60 * MINUTE);
  });
});
