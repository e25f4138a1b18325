/**
 * The decision once the camera map is known, or known to be impossible: map automatically and
 * move on to ready (or straight to rendering), or ask a person with the `mapping` event. The
 * stage reporter calls it when the mapping stage reports; reads of a job (getJob) call
 * {@link enforceMappingDeadline}, because the service worker has no timers it can rely on.
 * Both the engine and the routes import it from here, never from each other.
 *
 * @module
 */
import { decideAutoMap } from '../analysis/camera/automap.ts';
import type { CameraMap } from '../contract/types.ts';
import type { JobRecord } from '../store/db.ts';
import { getJobRecord, updateJob } from '../store/jobs.ts';
import type { ServiceContext } from './context.ts';
import { reviewUrl } from './links.ts';
import { applyTrigger, enqueueOrFail, generateCutsInPlace, startRenderInPlace, talkTimes } from './transitions.ts';

/**
 * Applies the camera map (or null: none could be computed) to a job in mapping: auto-map to
 * ready, or ask with the `mapping` event. `deadline`: no answer came in time; ask without a
 * proposal unless the job was asked already.
 */
export async function applyMappingResult(
  ctx: ServiceContext,
  jobId: string,
  cameraMap: CameraMap | null,
  deadline = false,
): Promise<void> {
  const { db } = ctx;
  const before = await getJobRecord(db, jobId);
  if (!before) return;
  const link = await reviewUrl(ctx, before.apiBase, before);
  const render = await updateJob(db, jobId, (job) => {
    if (deadline && (job.status !== 'mapping' || job.mappedBy !== null || job.mappingAsked))
      return { job: null, result: false };
    job.stageProgress = null;
    if (job.status !== 'mapping' || job.mappedBy !== null) {
      // The mapping was submitted first: keep the proposal for the editor, decide nothing.
      if (cameraMap) job.cameraMap = cameraMap;
      return { job, result: false };
    }
    const now = ctx.now();
    if (cameraMap) job.cameraMap = cameraMap;
    if (job.autoMap === 'off') {
      // The mapping event went out right after speaker detection.
      job.updatedAt = now;
      return { job, result: false };
    }
    const decision = decideAutoMap({ mode: job.autoMap, cameraMap: cameraMap, speakers: talkTimes(job.turns) });
    if (decision.action === 'ask') {
      job.mappingAsked = true;
      const event = applyTrigger(job, 'mappingNeeded', now, () => ({
        reviewUrl: link,
        speakers: job.speakers,
        ...(decision.cameraMap ? { cameraMap: decision.cameraMap } : {}),
      }));
      return { job, events: event ? [event] : [], result: false };
    }
    generateCutsInPlace(job, decision.tracks, now);
    job.mappedBy = 'service';
    const event = applyTrigger(job, 'autoMapped', now, () => ({ reviewUrl: link }));
    const renderNow = !job.review && job.cuts.length > 0;
    if (renderNow) startRenderInPlace(job, now);
    return { job, events: event ? [event] : [], result: renderNow };
  });
  if (render) await enqueueOrFail(ctx, jobId, 'rendering');
}

/** How long a job waits in mapping for the camera map before the `mapping` event goes out anyway. */
export const MAPPING_DEADLINE_MS = 30 * 60 * 1000;

/**
 * Sends the `mapping` event without cameraMap when the camera map did not arrive within
 * {@link MAPPING_DEADLINE_MS} of speaker detection. The service worker has no timers it can
 * rely on, so reads of the job (getJob) call this; an engine may too. True when it fired.
 */
export async function enforceMappingDeadline(ctx: ServiceContext, job: JobRecord): Promise<boolean> {
  if (job.status !== 'mapping' || job.mappedBy !== null || job.mappingAsked || job.mappingSince === null) return false;
  if (ctx.now() - job.mappingSince < MAPPING_DEADLINE_MS) return false;
  await applyMappingResult(ctx, job.id, null, true);
  return true;
}
