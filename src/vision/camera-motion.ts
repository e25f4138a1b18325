/**
 * Frames to motion for one camera, in the worker: sample with WebCodecs, then the pure
 * motion features.
 *
 * @module
 */
import { motionFeatures } from '../analysis/camera/features.ts';
import { sampleLumaFrames, type FrameSamplingOptions, type VideoInput } from './frame-sampler.ts';
import type { CameraMotion } from './protocol.ts';

/**
 * Motion features of one camera.
 *
 * @example
 * const { samples } = await cameraMotion(blob, { everyS: 6 });
 */
export async function cameraMotion(source: VideoInput, options: FrameSamplingOptions = {}): Promise<CameraMotion> {
  const started = performance.now();
  const sampled = await sampleLumaFrames(source, options);
  // A gap wider than one frame step belongs between runs; allow some jitter in timestamps.
  const samples = motionFeatures(sampled.frames);
  return {
    samples,
    frames: sampled.frames.length,
    runs: sampled.runs,
    durationS: sampled.durationS,
    elapsedMs: performance.now() - started,
    lumaPath: sampled.lumaPath,
  };
}
