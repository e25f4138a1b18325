/**
 * Prefixes of a conversation, to see how soon the camera map is sure: the motion samples and the
 * turns before a reference time. Shared by bench/camera/seconds-needed.ts and eval/camera.ts.
 */
import type { MotionSamples } from '../../../src/analysis/camera/features.ts';
import type { Turn } from '../../../src/contract/types.ts';

/** The samples of `s` before `endMs` (reference time; `s.t` is ascending). */
export function samplesBefore(s: MotionSamples, endMs: number): MotionSamples {
  const n = s.t.findIndex((t) => t >= endMs);
  const k = n < 0 ? s.t.length : n;
  return {
    t: s.t.slice(0, k),
    whole: s.whole.slice(0, k),
    left: s.left.slice(0, k),
    middle: s.middle.slice(0, k),
    right: s.right.slice(0, k),
    sceneCut: s.sceneCut.slice(0, k),
  };
}

/** The turns that start before `endMs`, cut off at `endMs`. */
export function turnsBefore<T extends Turn>(turns: readonly T[], endMs: number): T[] {
  return turns.filter((t) => t.startMs < endMs).map((t) => ({ ...t, endMs: Math.min(t.endMs, endMs) }));
}
