import { describe, expect, test } from 'vitest';
import {
  abandon,
  backoffAfter,
  checkRetrySchedule,
  claimAttempt,
  DEFAULT_RETRY_SCHEDULE,
  isDue,
  recordOutcome,
  type Delivery,
} from '../../../src/webhooks/schedule.ts';

const T0 = 1_700_000_000_000;
const fresh = (): Delivery => ({ state: 'pending', attempts: 0, nextAttemptAt: T0, log: [] });

describe('the default retry schedule', () => {
  test('is 3 attempts of 10 s, 5 s after the first failure and 30 s after the second', () => {
    expect(DEFAULT_RETRY_SCHEDULE.attempts).toBe(3);
    expect(DEFAULT_RETRY_SCHEDULE.attemptTimeoutMs).toBe(10_000);
    expect(backoffAfter(1, DEFAULT_RETRY_SCHEDULE)).toBe(5_000);
    expect(backoffAfter(2, DEFAULT_RETRY_SCHEDULE)).toBe(30_000);
  });

  test('three failures in a row: attempts at t, t+d1+5 s, ... then failed, with the whole log', () => {
    const s = DEFAULT_RETRY_SCHEDULE;
    let d = fresh();
    // Attempt 1 at T0, answered 500 after 200 ms.
    d = claimAttempt(d, T0, s)!;
    expect(d.attempts).toBe(1);
    // Stored before sending: should this attempt never report back, the next is due after the time limit + 5 s.
    expect(d.nextAttemptAt).toBe(T0 + 10_000 + 5_000);
    d = recordOutcome(d, { at: T0, durationMs: 200, status: 500 }, s);
    expect(d).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: T0 + 200 + 5_000 });
    expect(isDue(d, T0 + 5_199)).toBe(false);
    expect(isDue(d, T0 + 5_200)).toBe(true);
    // Attempt 2 times out after 10 s.
    const t2 = T0 + 5_200;
    d = claimAttempt(d, t2, s)!;
    expect(d.nextAttemptAt).toBe(t2 + 10_000 + 30_000);
    d = recordOutcome(d, { at: t2, durationMs: 10_000, error: 'no answer within 10000 ms' }, s);
    expect(d).toMatchObject({ state: 'pending', attempts: 2, nextAttemptAt: t2 + 10_000 + 30_000 });
    // Attempt 3 fails: no more attempts.
    const t3 = t2 + 40_000;
    d = claimAttempt(d, t3, s)!;
    d = recordOutcome(d, { at: t3, durationMs: 50, status: 503 }, s);
    expect(d.state).toBe('failed');
    expect(d.log.map((e) => [e.attempt, e.status ?? e.error])).toEqual([
      [1, 500],
      [2, 'no answer within 10000 ms'],
      [3, 503],
    ]);
    expect(isDue(d, t3 + 1e9)).toBe(false);
    expect(claimAttempt(d, t3, s)).toBeNull();
  });

  test('any 2xx acknowledges; 1xx, 3xx and 4xx do not', () => {
    const s = DEFAULT_RETRY_SCHEDULE;
    for (const status of [200, 202, 204, 299]) {
      expect(recordOutcome(claimAttempt(fresh(), T0, s)!, { at: T0, durationMs: 1, status }, s).state).toBe(
        'delivered',
      );
    }
    for (const status of [199, 301, 400, 410, 500]) {
      expect(recordOutcome(claimAttempt(fresh(), T0, s)!, { at: T0, durationMs: 1, status }, s).state).toBe('pending');
    }
  });

  test('an attempt that never reported back is logged when the next one is claimed, and the last one concludes as failed', () => {
    const s = DEFAULT_RETRY_SCHEDULE;
    let d = claimAttempt(fresh(), T0, s)!; // the tab dies during attempt 1
    d = claimAttempt(d, d.nextAttemptAt, s)!;
    expect(d.attempts).toBe(2);
    expect(d.log).toEqual([
      { attempt: 1, at: T0 + 15_000, durationMs: 0, error: expect.stringMatching(/never reported back/) },
    ]);
    d = recordOutcome(d, { at: T0 + 15_000, durationMs: 5, status: 500 }, s);
    d = claimAttempt(d, d.nextAttemptAt, s)!; // dies during attempt 3
    expect(claimAttempt(d, d.nextAttemptAt, s)).toBeNull();
    const concluded = abandon(d, d.nextAttemptAt);
    expect(concluded.state).toBe('failed');
    expect(concluded.log.map((e) => e.attempt)).toEqual([1, 2, 3]);
  });

  test('a schedule with bad numbers is refused, naming the field', () => {
    expect(() => checkRetrySchedule({ attempts: 0, attemptTimeoutMs: 1, backoffMs: [] })).toThrow(/schedule.attempts/);
    expect(() => checkRetrySchedule({ attempts: 3, attemptTimeoutMs: 0, backoffMs: [] })).toThrow(
      /schedule.attemptTimeoutMs/,
    );
    expect(() => checkRetrySchedule({ attempts: 3, attemptTimeoutMs: 1, backoffMs: [1, -1] })).toThrow(
      /schedule.backoffMs\[1\]/,
    );
    // A short backoff list repeats its last entry.
    expect(backoffAfter(5, { attempts: 9, attemptTimeoutMs: 1, backoffMs: [10, 20] })).toBe(20);
  });
});
