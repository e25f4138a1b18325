/**
 * A source's audio on the reference timeline: resampled with the source's offset and drift so
 * that sample 0 is reference time 0 (see src/analysis/sync/sync.ts for the clock mapping). The
 * analysis worker does this for speaker detection.
 *
 * @module
 */
import { asReader, type SampleInput } from '../signal/sample-reader.ts';
import { toSourceTime } from './sync.ts';

/** Output samples placed at once by {@link placeOnReference}. */
const PLACE_BLOCK = 1 << 20;

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
  placeOnReference(samples, rate, offsetMs, driftPpm, lengthMs, (at, block) => out.set(block, at));
  return out;
}

/**
 * {@link toReferenceTimeline} a block at a time, for a source read by range (a file): each
 * output block, with where it starts, goes to `write` (the block is reused: copy what is
 * kept); the source is read only where the block lands. The same samples to the bit.
 *
 * @example
 * placeOnReference(sourceFile, 16000, offsetMs, driftPpm, lengthMs, (at, block) => channelFile.append(block));
 */
export function placeOnReference(
  source: SampleInput,
  rate: number,
  offsetMs: number,
  driftPpm: number,
  lengthMs: number,
  write: (at: number, block: Float32Array) => void,
): void {
  const reader = asReader(source);
  const length = Math.ceil((lengthMs * rate) / 1000);
  const mapping = { offsetMs, driftPpm };
  const position = (i: number): number => (toSourceTime((i * 1000) / rate, mapping) * rate) / 1000;
  const block = new Float32Array(Math.min(length, PLACE_BLOCK));
  for (let start = 0; start < length; start += PLACE_BLOCK) {
    const end = Math.min(length, start + PLACE_BLOCK);
    const out = block.subarray(0, end - start);
    out.fill(0);
    // The source samples this block reads (positions grow with i), one more on each side.
    const from = Math.max(0, Math.floor(position(start)) - 1);
    const to = Math.min(reader.length, Math.floor(position(end - 1)) + 3);
    const samples = from < to ? reader.read(from, to) : new Float32Array(0);
    for (let i = start; i < end; i++) {
      const s = position(i);
      const k = Math.floor(s);
      if (k < 0 || k + 1 >= reader.length) continue;
      const f = s - k;
      out[i - start] = samples[k - from]! * (1 - f) + samples[k + 1 - from]! * f;
    }
    write(start, out);
  }
}
