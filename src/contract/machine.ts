/**
 * The job state machine: the spec's transition table as data plus one pure function.
 * Routes and the stage reporter ask it where a job goes; conditions that need stored data
 * (files uploaded, cuts present, valid tracks) are checked by the caller first.
 *
 * @module
 */
import type { EventType, JobStatus, PipelineStage } from './types.ts';

/** What happened to the job. */
export type Trigger =
  | 'startProcessing'
  | 'syncSucceeded'
  | 'diarizeSucceeded'
  | 'submitMapping'
  | 'autoMapped'
  | 'mappingNeeded'
  | 'correctMapping'
  | 'recut'
  | 'updateCuts'
  | 'startRender'
  | 'renderSucceeded'
  | 'approve'
  | 'stageFailed'
  | 'retry'
  | 'startFailed';

/** One row of the transition table. `to: 'same'` keeps the status; `'failedStage'` is the stage recorded as failed. */
export interface TransitionRule {
  from: readonly JobStatus[];
  trigger: Trigger;
  to: JobStatus | 'same' | 'failedStage';
  event: EventType | null;
}

/** The spec's transition table ("States and transitions"), plus the two pipeline steps it leaves implicit. */
export const TRANSITIONS: readonly TransitionRule[] = [
  { from: ['created', 'uploading'], trigger: 'startProcessing', to: 'syncing', event: null },
  { from: ['syncing'], trigger: 'syncSucceeded', to: 'diarizing', event: null },
  { from: ['diarizing'], trigger: 'diarizeSucceeded', to: 'mapping', event: null },
  { from: ['mapping'], trigger: 'submitMapping', to: 'ready', event: 'ready' },
  { from: ['mapping'], trigger: 'autoMapped', to: 'ready', event: 'ready' },
  { from: ['mapping'], trigger: 'mappingNeeded', to: 'same', event: 'mapping' },
  { from: ['ready', 'complete'], trigger: 'correctMapping', to: 'same', event: null },
  { from: ['ready', 'complete'], trigger: 'recut', to: 'same', event: null },
  { from: ['ready', 'complete'], trigger: 'updateCuts', to: 'same', event: null },
  { from: ['ready', 'complete'], trigger: 'startRender', to: 'rendering', event: null },
  { from: ['rendering'], trigger: 'renderSucceeded', to: 'complete', event: 'complete' },
  { from: ['complete'], trigger: 'approve', to: 'approved', event: 'approved' },
  { from: ['syncing', 'diarizing', 'rendering'], trigger: 'stageFailed', to: 'failed', event: 'failed' },
  { from: ['failed'], trigger: 'retry', to: 'failedStage', event: null },
  // startProcessing or startRender accepted but the stage could not start (502): the job is marked failed.
  { from: ['syncing', 'rendering'], trigger: 'startFailed', to: 'failed', event: 'failed' },
];

/** The result of a permitted transition. */
export interface Transition {
  to: JobStatus;
  event: EventType | null;
}

/** Stages a failed job can restart from. */
export const RETRYABLE_STAGES: readonly PipelineStage[] = ['syncing', 'diarizing', 'rendering'];

/** True when `value` is a stage retryJob can restart. */
export function isRetryableStage(value: string | null): value is PipelineStage {
  return value !== null && (RETRYABLE_STAGES as readonly string[]).includes(value);
}

/**
 * Where `trigger` takes a job in `from`, or null when the table does not allow it.
 *
 * @example
 * transition('mapping', 'submitMapping');              // { to: 'ready', event: 'ready' }
 * transition('failed', 'retry', { failedAtStatus: 'diarizing' }); // { to: 'diarizing', event: null }
 * transition('created', 'startRender');                // null
 */
export function transition(
  from: JobStatus,
  trigger: Trigger,
  context: { failedAtStatus?: string | null } = {},
): Transition | null {
  const rule = TRANSITIONS.find((r) => r.trigger === trigger && r.from.includes(from));
  if (!rule) return null;
  if (rule.to === 'same') return { to: from, event: rule.event };
  if (rule.to === 'failedStage') {
    const stage = context.failedAtStatus ?? null;
    return isRetryableStage(stage) ? { to: stage, event: rule.event } : null;
  }
  return { to: rule.to, event: rule.event };
}

/** The statuses from which `trigger` is allowed. */
export function allowedFrom(trigger: Trigger): JobStatus[] {
  return TRANSITIONS.filter((r) => r.trigger === trigger).flatMap((r) => [...r.from]);
}
