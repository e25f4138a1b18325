/**
 * The mapping stage: motion features of every camera (sampled frames, decoded in the vision
 * worker), put on the reference timeline, scored against the speech turns by
 * `computeCameraMap` in the vision worker too (the page only routes). A camera that cannot be sampled is passed on without samples, and the
 * map says it has no answer for it; it never guesses.
 *
 * @module
 */
import { samplesToReference, type MotionSamples } from '../../analysis/camera/features.ts';
import { openFileBlob } from '../../store/files.ts';
import type { StageRunner } from './context.ts';

/** Runs the mapping stage of one job. */
export const runMapping: StageRunner<'mapping'> = async ({ db, job, workers, signal, onProgress }) => {
  const cameras: Array<{ sourceId: string; samples: MotionSamples | null }> = [];
  const requestKey = `map_${job.id}_${Date.now()}`;
  const vision = workers.vision();
  const onAbort = (): void => void vision.cancel(requestKey);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const videos = job.sources.filter((s) => s.kind === 'video');
    const videoCount = videos.length;
    for (const source of videos) {
      signal.throwIfAborted();
      let samples: MotionSamples | null = null;
      if (source.fileId !== null) {
        try {
          const motion = await vision.cameraMotion(await openFileBlob(db, source.fileId), { jobKey: requestKey });
          samples = samplesToReference(motion.samples, source.offsetMs ?? 0, source.driftPpm ?? 0);
        } catch (error) {
          if (signal.aborted) throw error;
          samples = null;
        }
      }
      cameras.push({ sourceId: source.id, samples });
      onProgress(cameras.length / (videoCount + 1));
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (cameras.length === 0) return { ok: false, failure: { message: 'no camera to map' } };
  return { ok: true, output: { cameraMap: await vision.cameraMap({ cameras, turns: job.turns }) } };
};
