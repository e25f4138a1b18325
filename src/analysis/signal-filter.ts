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
 * @example
 * const levels = frameDb(lowCut(mic, 16000)); // -3 dB at 80 Hz, -12 dB at 40 Hz, -24 dB at 20 Hz
 */
export function lowCut(samples: ArrayLike<number>, sampleRate: number, cutHz = LOW_CUT_HZ): Float32Array {
  // Bilinear transform of H(s) = s² / (s² + s·ωc/Q + ωc²), Q = 1/√2.
  const w = Math.tan((Math.PI * cutHz) / sampleRate);
  const norm = 1 / (1 + Math.SQRT2 * w + w * w);
  const a1 = 2 * (w * w - 1) * norm;
  const a2 = (1 - Math.SQRT2 * w + w * w) * norm;
  const out = new Float32Array(samples.length);
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
