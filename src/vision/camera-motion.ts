/**
 * Frames to motion (and faces) for one camera, in the worker: sample with WebCodecs, then the
 * pure motion features and face tracks.
 *
 * @module
 */
import { motionFeatures } from '../analysis/camera/features.ts';
import { trackFaces } from '../analysis/faces/face-tracks.ts';
import { FaceProbe, type FaceDetector } from './face-probe.ts';
import { sampleLumaFrames, type FrameSamplingOptions, type VideoInput } from './frame-sampler.ts';
import type { CameraMotion } from './protocol.ts';

/**
 * Motion features of one camera, and with a face detector its faces.
 *
 * @example
 * const { samples, faces } = await cameraMotion(blob, { everyS: 6 }, detector);
 */
export async function cameraMotion(
  source: VideoInput,
  options: Omit<FrameSamplingOptions, 'faces'> = {},
  detector?: FaceDetector,
): Promise<CameraMotion> {
  const started = performance.now();
  const probe = detector ? new FaceProbe(detector) : undefined;
  const sampled = await sampleLumaFrames(source, { ...options, ...(probe ? { faces: probe } : {}) });
  // A gap wider than one frame step belongs between runs; allow some jitter in timestamps.
  const samples = motionFeatures(sampled.frames);
  return {
    samples,
    frames: sampled.frames.length,
    runs: sampled.runs,
    durationS: sampled.durationS,
    elapsedMs: performance.now() - started,
    lumaPath: sampled.lumaPath,
    faces: probe && probe.runs.length > 0 ? trackFaces(probe.runs) : null,
    faceDetections: probe?.detections ?? 0,
    faceDetectMs: probe?.detectMs ?? 0,
  };
}
