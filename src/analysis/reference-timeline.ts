/**
 * A source's audio on the reference timeline: resampled with the source's offset and drift so
 * that sample 0 is reference time 0 (see src/analysis/sync.ts for the clock mapping). The
 * analysis worker does this for speaker detection.
 *
 * @module
 */
import { toSourceTime } from './sync.ts';

/**
 * Resamples a source's audio onto the reference timeline (sample 0 = reference time 0) with
 * its offset and drift; reference times the source did not record stay silent.
 */
export function toReferenceTimeline(
  samples: Float32Array,
  rate: number,
  offsetMs: number,
  driftPpm: number,
  lengthMs: number,
): Float32Array {
  const out = new Float32Array(Math.ceil((lengthMs * rate) / 1000));
  const mapping = { offsetMs, driftPpm };
  for (let i = 0; i < out.length; i++) {
    const s = (toSourceTime((i * 1000) / rate, mapping) * rate) / 1000;
    const k = Math.floor(s);
    if (k < 0 || k + 1 >= samples.length) continue;
    const f = s - k;
    out[i] = samples[k]! * (1 - f) + samples[k + 1]! * f;
  }
  return out;
}
