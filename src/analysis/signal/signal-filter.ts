/**
 * Filters applied before loudness is measured.
 *
 * @module
 */

/** Cut-off of {@link lowCut} by default, Hz: a microphone's low-cut switch; voices start above it. */
export const LOW_CUT_HZ = 80;

/**
 * The signal through a second-order Butterworth high-pass (a rumble filter): thumps, handling
 * noise, breath pops and mains hum below any voice's pitch carry energy at speech level
 * without being speech, and an energy rule would otherwise count them.
 *
 * `out` receives the result (it may be `samples` itself: an hour of audio is then filtered
 * without a second copy); by default a new array.
 *
 * @example
 * const levels = frameDb(lowCut(mic, 16000)); // -3 dB at 80 Hz, -12 dB at 40 Hz, -24 dB at 20 Hz
 * lowCut(mic, 16000, LOW_CUT_HZ, mic); // in place
 */
export function lowCut(
  samples: ArrayLike<number>,
  sampleRate: number,
  cutHz = LOW_CUT_HZ,
  out: Float32Array = new Float32Array(samples.length),
): Float32Array {
  if (out.length !== samples.length)
    throw new RangeError(`lowCut: out holds ${out.length} samples for ${samples.length}`);
  return new LowCutFilter(sampleRate, cutHz).push(samples, out);
}

/**
 * {@link lowCut} of a signal handed over in consecutive blocks: the same samples, to the bit,
 * as on the joined signal (the filter's state carries from block to block).
 *
 * @example
 * const filter = new LowCutFilter(16000);
 * for (const block of blocks) write(filter.push(block, scratch.subarray(0, block.length)));
 */
export class LowCutFilter {
  private readonly norm: number;
  private readonly a1: number;
  private readonly a2: number;
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  constructor(sampleRate: number, cutHz = LOW_CUT_HZ) {
    ({ norm: this.norm, a1: this.a1, a2: this.a2 } = lowCutCoefficients(sampleRate, cutHz));
  }

  /** The next samples filtered into `out` (at least as long; it may be `samples` itself), which it returns. */
  push(samples: ArrayLike<number>, out: Float32Array): Float32Array {
    const { norm, a1, a2 } = this;
    let { x1, x2, y1, y2 } = this;
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i]!;
      const y = norm * (x - 2 * x1 + x2) - a1 * y1 - a2 * y2;
      out[i] = y;
      x2 = x1;
      x1 = x;
      y2 = y1;
      y1 = y;
    }
    this.x1 = x1;
    this.x2 = x2;
    this.y1 = y1;
    this.y2 = y2;
    return out;
  }
}

/**
 * The coefficients of {@link lowCut}'s biquad, for a caller that filters as it reads:
 * y = norm·(x − 2·x₁ + x₂) − a1·y₁ − a2·y₂.
 */
export function lowCutCoefficients(sampleRate: number, cutHz = LOW_CUT_HZ): { norm: number; a1: number; a2: number } {
  // Bilinear transform of H(s) = s² / (s² + s·ωc/Q + ωc²), Q = 1/√2.
  const w = Math.tan((Math.PI * cutHz) / sampleRate);
  const norm = 1 / (1 + Math.SQRT2 * w + w * w);
  return { norm, a1: 2 * (w * w - 1) * norm, a2: (1 - Math.SQRT2 * w + w * w) * norm };
}
