/**
 * Frames to motion (and faces) for one camera, in the worker: sample with WebCodecs, then the
 * pure motion features and face tracks, with the models the worker loaded.
 *
 * @module
 */
import { motionFeatures } from '../analysis/camera/features.ts';
import { trackFaces } from '../analysis/faces/face-tracks.ts';
import type { LoadedFaceModels } from './face-models.ts';
import { FaceProbe } from './face-probe.ts';
import { sampleLumaFrames, type FrameSamplingOptions, type VideoInput } from './frame-sampler.ts';
import type { CameraMotion } from './protocol.ts';

/**
 * Motion features of one camera, and with a face detector its faces; with an active-speaker
 * model too, its faces' speaking is that model's judgement of their crops against the
 * camera's own sound (else, or where it fails, their mouth motion: `faces.activity` says which,
 * `asdFallback` why). `models` is `FaceModels.load`'s set as it is: the face probe gets its host
 * models whole, and its notes (where they ran, why one could not be loaded) go onto the result.
 *
 * @example
 * const { samples, faces } = await cameraMotion(blob, { everyS: 6 }, await models.load(assets, signal));
 */
export async function cameraMotion(
  source: VideoInput,
  options: Omit<FrameSamplingOptions, 'faces'> = {},
  models: LoadedFaceModels = { probe: {}, notes: {} },
): Promise<CameraMotion> {
  const started = performance.now();
  const { detector, probe: probeModels, notes } = models;
  const activeSpeaker = probeModels.activeSpeaker;
  const probe = detector ? new FaceProbe(detector, probeModels) : undefined;
  const sampled = await sampleLumaFrames(source, { ...options, ...(probe ? { faces: probe } : {}) });
  const faces = probe && probe.runs.length > 0 ? trackFaces(probe.runs) : null;
  const asdFallback =
    activeSpeaker && faces?.activity === 'mouth' ? (probe?.asdFallback ?? faces.activityNote) : undefined;
  // A gap wider than one frame step belongs between runs; allow some jitter in timestamps.
  const samples = motionFeatures(sampled.frames);
  return {
    samples,
    frames: sampled.frames.length,
    runs: sampled.runs,
    durationS: sampled.durationS,
    elapsedMs: performance.now() - started,
    lumaPath: sampled.lumaPath,
    faces,
    faceDetections: probe?.detections ?? 0,
    faceDetectMs: probe?.detectMs ?? 0,
    ...(activeSpeaker ? { asdRuns: probe?.asdRuns ?? 0, asdMs: probe?.asdMs ?? 0 } : {}),
    ...(asdFallback !== undefined ? { asdFallback } : {}),
    ...notes,
  };
}
