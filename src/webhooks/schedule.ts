/**
 * The retry schedule of webhook deliveries and the pure bookkeeping of one delivery:
 * claiming an attempt, then recording its outcome. No I/O here; the dispatcher stores what
 * these functions return.
 *
 * @module
 */
import { LIMITS } from '../contract/types.ts';

/** How deliveries are retried. */
export interface RetrySchedule {
  /** Attempts per event, the first included. */
  attempts: number;
  /** Each attempt is aborted after this many ms. */
  attemptTimeoutMs: number;
  /** Wait after failed attempt n (index n - 1) before attempt n + 1, in ms. */
  backoffMs: readonly number[];
}

/**
 * The spec's schedule: 3 attempts of at most 10 s each; 5 s after the first failure and
 * 30 s after the second, so a receiver that restarts within about half a minute still gets
 * the event.
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  attempts: LIMITS.webhookAttempts,
  attemptTimeoutMs: LIMITS.webhookAttemptTimeoutMs,
  backoffMs: [5_000, 30_000],
};

/** One attempt in the delivery log. */
export interface DeliveryLogEntry {
  attempt: number;
  /** When the attempt started, ms since epoch. */
  at: number;
  durationMs: number;
  /** The HTTP status, when the receiver answered. */
  status?: number;
  /** Why the attempt failed, when it did. */
  error?: string;
}

/** The delivery bookkeeping kept on each event record (`EventRecord.delivery`). */
export interface Delivery {
  state: 'pending' | 'delivered' | 'failed' | 'skipped';
  /** Attempts started so far (an attempt is counted when it is claimed, before sending). */
  attempts: number;
  /** When the next attempt may start, ms since epoch. */
  nextAttemptAt: number;
  log: DeliveryLogEntry[];
}

/** Validates a schedule given by an embedding app or a test. */
export function checkRetrySchedule(schedule: RetrySchedule): RetrySchedule {
  if (!Number.isInteger(schedule.attempts) || schedule.attempts < 1) {
    throw new RangeError(`schedule.attempts must be an integer >= 1 (got ${schedule.attempts})`);
  }
  if (!(schedule.attemptTimeoutMs > 0)) {
    throw new RangeError(`schedule.attemptTimeoutMs must be > 0 (got ${schedule.attemptTimeoutMs})`);
  }
  schedule.backoffMs.forEach((ms, i) => {
    if (!(ms >= 0)) throw new RangeError(`schedule.backoffMs[${i}] must be >= 0 (got ${ms})`);
  });
  return schedule;
}

/** The wait after failed attempt `attempt` (1-based); the last entry repeats if the list is short. */
export function backoffAfter(attempt: number, schedule: RetrySchedule): number {
  const list = schedule.backoffMs;
  if (list.length === 0) return 0;
  return list[Math.min(attempt, list.length) - 1] ?? 0;
}

/** Whether the delivery should be attempted (or concluded) at `now`. */
export function isDue(delivery: Delivery, now: number): boolean {
  return delivery.state === 'pending' && delivery.nextAttemptAt <= now;
}

/**
 * Claims the next attempt at `now`: counts it and stores, before anything is sent, when the
 * attempt after it is due should this one never report back (the tab is closed or crashes
 * mid-request): the attempt's time limit plus the backoff. Returns `null` when all attempts
 * have been used up by attempts that never reported back; then {@link abandon} concludes it.
 */
export function claimAttempt(delivery: Delivery, now: number, schedule: RetrySchedule): Delivery | null {
  if (delivery.attempts >= schedule.attempts) return null;
  const attempt = delivery.attempts + 1;
  return {
    ...withInterruptedAttemptLogged(delivery, now),
    attempts: attempt,
    nextAttemptAt: now + schedule.attemptTimeoutMs + backoffAfter(attempt, schedule),
  };
}

/** The outcome of one attempt. */
export interface AttemptOutcome {
  at: number;
  durationMs: number;
  status?: number;
  error?: string;
}

/** Whether an HTTP status acknowledges a delivery (any 2xx). */
export function acknowledges(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status <= 299;
}

/**
 * Records the outcome of the claimed attempt: delivered on a 2xx; failed after the last
 * attempt; otherwise pending, due one backoff after the attempt ended.
 */
export function recordOutcome(delivery: Delivery, outcome: AttemptOutcome, schedule: RetrySchedule): Delivery {
  const entry: DeliveryLogEntry = { attempt: delivery.attempts, at: outcome.at, durationMs: outcome.durationMs };
  if (outcome.status !== undefined) entry.status = outcome.status;
  if (outcome.error !== undefined) entry.error = outcome.error;
  const log = [...delivery.log, entry];
  if (acknowledges(outcome.status)) return { ...delivery, state: 'delivered', log };
  if (delivery.attempts >= schedule.attempts) return { ...delivery, state: 'failed', log };
  const end = outcome.at + outcome.durationMs;
  return { ...delivery, state: 'pending', nextAttemptAt: end + backoffAfter(delivery.attempts, schedule), log };
}

/**
 * Concludes a delivery whose last attempt was claimed but never reported back (the page
 * closed mid-request): state `failed`, with a log line saying so.
 */
export function abandon(delivery: Delivery, now: number): Delivery {
  return { ...withInterruptedAttemptLogged(delivery, now), state: 'failed' };
}

/** Adds a log line for a claimed attempt that has none (it was interrupted), so the log shows every attempt. */
function withInterruptedAttemptLogged(delivery: Delivery, now: number): Delivery {
  const last = delivery.attempts;
  if (last === 0 || delivery.log.some((entry) => entry.attempt === last)) return delivery;
  const error = `attempt ${last} never reported back: the page or worker closed during it`;
  return { ...delivery, log: [...delivery.log, { attempt: last, at: now, durationMs: 0, error }] };
}
