/**
 * The mapping stage: motion features and faces of every camera (sampled frames, decoded in the vision
 * worker, started by the syncing stage so they are usually ready), put on the reference timeline, scored against the speech turns by
 * `computeCameraMap` in the vision worker too (the page only routes). A camera that cannot be sampled is passed on without samples, and the
 * map says it has no answer for it; it never guesses.
 *
 * @module
 */
import type { CameraMapInput } from '../../analysis/camera/camera-map.ts';
import { measuresToReference, type CameraMeasures } from '../../analysis/camera/measures.ts';
import { openFileBlob } from '../../store/files.ts';
import type { NewWarning } from '../../contract/warnings.ts';
import type { SourceRecord } from '../../store/db.ts';
import { sourceName, type StageRunner } from './context.ts';

/**
 * Runs the mapping stage of one job. Its metrics say, besides counts, how each camera's faces
 * were judged (`speakingBy`: per video source in the job's order, `asd` for the active-speaker
 * model, `mouth` for mouth motion, `-` for no faces) and, where the model was asked for and a
 * camera fell back to mouth motion, why (`asdFallback`: `"label": reason`, joined by `; `).
 */
export const runMapping: StageRunner<'mapping'> = async ({ db, job, workers, signal, onProgress }) => {
  const cameras: CameraMapInput['cameras'] = [];
  let faceCameras = 0;
  let facesError: string | undefined;
  let asdError: string | undefined;
  const speakingBy: string[] = [];
  const asdFallbacks: string[] = [];
  let asdMs = 0;
  /** Whether the active-speaker model was asked for and faces could be looked for: a camera tried it. */
  let asked = false;
  const unsampled: Array<{ source: SourceRecord; reason: string }> = [];
  let cameraLanes: number;
  const onAbort = (): void => workers.dropCameraMotion(job.id);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const videos = job.sources.filter((s) => s.kind === 'video');
    // Started by the syncing stage, usually done by now (see StageWorkers.cameraMotion); asked
    // for all at once (after a reload, none was started), and the analysis being done, those
    // still waiting may take the core it used.
    const motions = videos.map((source) => {
      const fileId = source.fileId;
      if (fileId === null) return null;
      const motion = workers.cameraMotion(job.id, source.id, () => openFileBlob(db, fileId));
      motion.catch(() => undefined); // awaited below
      return motion;
    });
    cameraLanes = workers.hurryCameraMotion(job.id);
    for (const [k, source] of videos.entries()) {
      signal.throwIfAborted();
      // The camera's measurements, carried whole (in reference time) to the camera map.
      let measures: CameraMeasures = { samples: null, faces: null };
      if (motions[k]) {
        try {
          const motion = await motions[k];
          measures = measuresToReference(motion, source.offsetMs ?? 0, source.driftPpm ?? 0);
          if (measures.faces && measures.faces.tracks.length > 0) faceCameras++;
          facesError ??= motion.facesError;
          asdError ??= motion.asdError;
          asdMs += motion.asdMs ?? 0;
          asked ||= motion.asdMs !== undefined || motion.asdError !== undefined;
          if (measures.faces && measures.faces.tracks.length > 0 && motion.asdFallback !== undefined)
            asdFallbacks.push(`${sourceName(job, source)}: ${motion.asdFallback}`);
        } catch (error) {
          if (signal.aborted) throw error;
          unsampled.push({ source, reason: error instanceof Error ? error.message : String(error) });
        }
      }
      cameras.push({ sourceId: source.id, ...measures });
      const faces = measures.faces;
      speakingBy.push(faces && faces.tracks.length > 0 ? faces.activity : '-');
      onProgress(cameras.length / (videos.length + 1));
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  workers.dropCameraMotion(job.id);
  if (cameras.length === 0) return { ok: false, failure: { message: 'no camera to map' } };
  const warnings: NewWarning[] = unsampled.map(({ source, reason }) => ({
    code: 'camera_not_sampled',
    message:
      `the pictures of camera ${sourceName(job, source)} could not be read (${reason}), so it was not used to ` +
      'work out who is on which camera: check its speakers in the review editor',
    sourceId: source.id,
    stage: 'mapping',
  }));
  if (facesError !== undefined)
    warnings.push({
      code: 'face_model_unavailable',
      message:
        `the face model could not be loaded (${facesError}), so cameras were matched to speakers by movement ` +
        'in the picture only: check who is on which camera in the review editor',
      stage: 'mapping',
    });
  if (asdError !== undefined)
    warnings.push({
      code: 'active_speaker_model_unavailable',
      message:
        `the active-speaker model could not be loaded (${asdError}), so faces were matched to speakers by how ` +
        'much their mouths move: check who is on which camera in the review editor',
      stage: 'mapping',
    });
  asked &&= facesError === undefined;
  return {
    ok: true,
    ...(warnings.length > 0 ? { warnings } : {}),
    output: { cameraMap: await workers.vision().cameraMap({ cameras, turns: job.turns }) },
    // A face model that could not be loaded leaves motion to judge: the metrics say why.
    metrics: {
      cameras: cameras.length,
      faceCameras,
      cameraLanes,
      speakingBy: speakingBy.join(','),
      ...(facesError ? { facesError } : {}),
      ...(asked ? { asdMs: Math.round(asdMs) } : {}),
      ...(asdFallbacks.length > 0 ? { asdFallback: asdFallbacks.join('; ') } : {}),
    },
  };
};
