/** The pure job state machine against the spec's transition table, row by row. */
import { describe, expect, test } from 'vitest';
import { allowedFrom, isRetryableStage, transition, TRANSITIONS, type Trigger } from '../../../src/contract/machine.ts';
import { JOB_STATUSES, type JobStatus } from '../../../src/contract/types.ts';

/** The spec's table, written out independently of TRANSITIONS: [from, trigger, to, event]. */
const SPEC: Array<[JobStatus, Trigger, JobStatus, string | null]> = [
  ['created', 'startProcessing', 'syncing', null],
  ['uploading', 'startProcessing', 'syncing', null],
  ['syncing', 'syncSucceeded', 'diarizing', null],
  ['diarizing', 'diarizeSucceeded', 'mapping', null],
  ['mapping', 'submitMapping', 'ready', 'ready'],
  ['mapping', 'autoMapped', 'ready', 'ready'],
  ['mapping', 'mappingNeeded', 'mapping', 'mapping'],
  ['ready', 'correctMapping', 'ready', null],
  ['complete', 'correctMapping', 'complete', null],
  ['ready', 'recut', 'ready', null],
  ['complete', 'recut', 'complete', null],
  ['ready', 'updateCuts', 'ready', null],
  ['complete', 'updateCuts', 'complete', null],
  ['ready', 'startRender', 'rendering', null],
  ['complete', 'startRender', 'rendering', null],
  ['rendering', 'renderSucceeded', 'complete', 'complete'],
  ['complete', 'approve', 'approved', 'approved'],
  ['syncing', 'stageFailed', 'failed', 'failed'],
  ['diarizing', 'stageFailed', 'failed', 'failed'],
  ['rendering', 'stageFailed', 'failed', 'failed'],
  ['syncing', 'startFailed', 'failed', 'failed'],
  ['rendering', 'startFailed', 'failed', 'failed'],
];

describe('job state machine', () => {
  test.each(SPEC)('%s --%s--> %s (event %s)', (from, trigger, to, event) => {
    expect(transition(from, trigger)).toEqual({ to, event });
  });

  test('every other (status, trigger) pair is refused', () => {
    const triggers = [...new Set(TRANSITIONS.map((r) => r.trigger))].filter((t) => t !== 'retry');
    for (const from of JOB_STATUSES) {
      for (const trigger of triggers) {
        const allowed = SPEC.some(([f, t]) => f === from && t === trigger);
        expect(transition(from, trigger) !== null, `${from} ${trigger}`).toBe(allowed);
      }
    }
  });

  test('retry restarts the stage that failed, and only from failed', () => {
    expect(transition('failed', 'retry', { failedAtStatus: 'syncing' })).toEqual({ to: 'syncing', event: null });
    expect(transition('failed', 'retry', { failedAtStatus: 'diarizing' })).toEqual({ to: 'diarizing', event: null });
    expect(transition('failed', 'retry', { failedAtStatus: 'rendering' })).toEqual({ to: 'rendering', event: null });
    expect(transition('failed', 'retry', { failedAtStatus: 'mapping' })).toBeNull();
    expect(transition('failed', 'retry', { failedAtStatus: null })).toBeNull();
    expect(transition('failed', 'retry')).toBeNull();
    for (const from of JOB_STATUSES.filter((s) => s !== 'failed'))
      expect(transition(from, 'retry', { failedAtStatus: 'syncing' })).toBeNull();
  });

  test('helpers: allowedFrom and isRetryableStage', () => {
    expect(allowedFrom('startRender').sort()).toEqual(['complete', 'ready']);
    expect(allowedFrom('approve')).toEqual(['complete']);
    expect(isRetryableStage('rendering')).toBe(true);
    expect(isRetryableStage('uploading')).toBe(false);
    expect(isRetryableStage(null)).toBe(false);
  });

  test('no state but failed and approved is a dead end without delete', () => {
    const reachable = new Set(TRANSITIONS.flatMap((r) => [...r.from]));
    expect(JOB_STATUSES.filter((s) => !reachable.has(s))).toEqual(['approved']);
  });
});
