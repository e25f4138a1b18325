/**
 * Loudness envelopes of audio, the coarse representation sync correlates first.
 *
 * @module
 */

/**
 * RMS of consecutive hops of `hop` samples (the last partial hop is dropped).
 *
 * @example
 * const rms = frameRms(samples, 80); // 10 ms frames at 8 kHz
 */
export function frameRms(samples: ArrayLike<number>, hop: number): Float32Array {
  const frames = Math.floor(samples.length / hop);
  const out = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    let acc = 0;
    const base = f * hop;
    for (let i = 0; i < hop; i++) {
      const v = samples[base + i]!;
      acc += v * v;
    }
    out[f] = Math.sqrt(acc / hop);
  }
  return out;
}

/**
 * A gain-independent "activity" envelope: log RMS with its 1 s moving average removed. Two
 * microphones recording the same room at different levels give envelopes that differ only by
 * noise, so their correlation peaks at the true lag; silence (below `floor`) is flat zero.
 *
 * @param rms frame RMS (see {@link frameRms})
 * @param framesPerSecond frames per second of `rms`
 * @param floor RMS treated as silence (default 1e-4, −80 dBFS)
 */
export function activityEnvelope(rms: Float32Array, framesPerSecond: number, floor = 1e-4): Float32Array {
  const n = rms.length;
  const log = new Float64Array(n);
  for (let i = 0; i < n; i++) log[i] = Math.log10(Math.max(rms[i]!, floor) / floor);
  const half = Math.max(1, Math.round(framesPerSecond / 2));
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + log[i]!;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const lo = Math.max(0, i - half);
    const hi = Math.min(n, i + half + 1);
    out[i] = log[i]! - (prefix[hi]! - prefix[lo]!) / (hi - lo);
  }
  return out;
}
