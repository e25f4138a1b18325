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
  const { norm, a1, a2 } = lowCutCoefficients(sampleRate, cutHz);
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i]!;
    const y = norm * (x - 2 * x1 + x2) - a1 * y1 - a2 * y2;
    out[i] = y;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
  }
  return out;
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
