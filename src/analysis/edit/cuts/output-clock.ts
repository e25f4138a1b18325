/**
 * The output clock: reference time mapped to output time (the removed ranges taken out) and
 * back, so shot lengths are what a viewer sees.
 *
 * @module
 */

import type { TimeRange } from '../../../contract/types.ts';

/** Maps reference time to output time and back, around sorted, non-overlapping removed ranges. */
export class OutputClock {
  readonly lengthMs: number;
  constructor(
    readonly startMs: number,
    readonly endMs: number,
    readonly removed: readonly TimeRange[],
  ) {
    let kept = endMs - startMs;
    for (const r of removed) kept -= r.endMs - r.startMs;
    this.lengthMs = kept;
  }

  /** Output time of reference instant `t` (clamped to the timeline). */
  toOutput(t: number): number {
    const c = Math.min(Math.max(t, this.startMs), this.endMs);
    let out = c - this.startMs;
    for (const r of this.removed) {
      if (r.startMs >= c) break;
      out -= Math.min(c, r.endMs) - r.startMs;
    }
    return out;
  }

  /** The earliest reference instant shown at output time `o`. */
  toReference(o: number): number {
    if (o <= 0) return this.startMs;
    if (o >= this.lengthMs) return this.endMs;
    let t = this.startMs + o;
    for (const r of this.removed) {
      if (t > r.startMs) t += r.endMs - r.startMs;
      else break;
    }
    return t;
  }
}
