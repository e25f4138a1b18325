/**
 * Job changes shared by the routes and the stage reporter: applying a transition of the
 * table to a stored record (with its event), generating cuts, and starting a background stage.
 * Every function that touches a record is synchronous so it can run inside
 * {@link updateJob}'s transaction.
 *
 * @module
 */
import { transition, type Trigger } from '../contract/machine.ts';
import type { EventType, PipelineStage, Track, Turn } from '../contract/types.ts';
import type { EventRecord, JobRecord } from '../store/db.ts';
import { makeEvent } from '../store/events.ts';
import { updateJob } from '../store/jobs.ts';
import type { ServiceContext } from './context.ts';
import { replanEdit } from './replan.ts';
import type { EngineStage } from '../contract/engine.ts';
import { replaceWarnings, unusedCameraWarnings } from '../contract/warnings.ts';

/**
 * Applies `trigger` to `job` in place: status, `updatedAt` and the event with `payload`
 * (built by the caller, who signed its URLs before the transaction). Returns the event, or
 * throws when the table does not allow the transition (callers check first).
 */
export function applyTrigger(
  job: JobRecord,
  trigger: Trigger,
  now: number,
  payload: (type: EventType) => Record<string, unknown> = () => ({}),
): EventRecord | null {
  const next = transition(job.status, trigger, { failedAtStatus: job.failedAtStatus });
  if (!next) throw new Error(`transition ${trigger} from ${job.status} is not in the table`);
  job.status = next.to;
  job.updatedAt = now;
  return next.event === null
    ? null
    : makeEvent(job, next.event, { jobId: job.id, status: next.event, ...payload(next.event) }, now);
}

/** Marks `job` failed at `stage`; returns the `failed` event. */
export function failInPlace(
  job: JobRecord,
  trigger: 'stageFailed' | 'startFailed',
  stage: PipelineStage,
  message: string,
  permanent: boolean,
  now: number,
): EventRecord | null {
  job.errorMessage = message;
  job.failedAtStatus = stage;
  job.failurePermanent = permanent;
  job.progress = null;
  return applyTrigger(job, trigger, now, () => ({ error: message, failedAtStatus: stage }));
}

/** Speakers with their talk time, most talkative first. */
export function talkTimes(turns: readonly Turn[]): Array<{ speaker: string; talkMs: number }> {
  const totals = new Map<string, number>();
  for (const t of turns) totals.set(t.speaker, (totals.get(t.speaker) ?? 0) + Math.max(0, t.endMs - t.startMs));
  return [...totals]
    .map(([speaker, talkMs]) => ({ speaker, talkMs }))
    .sort((a, b) => b.talkMs - a.talkMs || a.speaker.localeCompare(b.speaker));
}

/**
 * Saves `tracks` and cuts generated from them with the job's preset and silence settings, and
 * says on the job which cameras the mapping leaves unused.
 */
export function generateCutsInPlace(job: JobRecord, tracks: Track[], now: number): void {
  const plan = replanEdit(job, { tracks });
  job.tracks = tracks;
  job.cuts = plan.cuts;
  job.removedRanges = plan.removedRanges;
  noteUnusedCameras(job, now);
}

/**
 * Recomputes the job's `camera_unused` warnings from its tracks (after every mapping, by the
 * service or a person): a camera no one is on is said on the Job, never dropped silently.
 */
export function noteUnusedCameras(job: JobRecord, now: number): void {
  const warnings = replaceWarnings(job.warnings ?? [], 'camera_unused', unusedCameraWarnings(job), now);
  if (warnings.length > 0 || job.warnings) job.warnings = warnings;
}

/** Moves a job with cuts into rendering (ready/complete → rendering). */
export function startRenderInPlace(job: JobRecord, now: number): void {
  applyTrigger(job, 'startRender', now);
  job.progress = 0;
  job.stageAttempts = { ...job.stageAttempts, rendering: 0 };
}

/**
 * Hands a stage to the engine. When the engine refuses, a stage the job is in (syncing,
 * rendering) is marked failed with its event and false is returned (the route answers 502).
 */
export async function enqueueOrFail(ctx: ServiceContext, jobId: string, stage: EngineStage): Promise<boolean> {
  try {
    await ctx.engine.enqueue({ jobId, stage });
    return true;
  } catch (error) {
    const message = `the ${stage} stage could not be started: ${error instanceof Error ? error.message : String(error)}`;
    await updateJob(ctx.db, jobId, (job) => {
      if (job.status !== stage || stage === 'mapping') return { job: null, result: undefined };
      const trigger = stage === 'syncing' || stage === 'rendering' ? 'startFailed' : 'stageFailed';
      const event = failInPlace(job, trigger, stage, message, false, ctx.now());
      return { job, events: event ? [event] : [], result: undefined };
    });
    return false;
  }
}
