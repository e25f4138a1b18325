/**
 * A source put on the reference timeline (src/analysis/sync/reference-timeline.ts): the block-wise
 * placement from a source read by range gives the samples of the direct formula, to the bit.
 */
import { describe, expect, test } from 'vitest';
import { placeOnReference, toReferenceTimeline } from '../../../src/analysis/sync/reference-timeline.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';
import type { SampleReader } from '../../../src/analysis/signal/sample-reader.ts';
import { toSourceTime } from '../../../src/analysis/sync/sync.ts';

/** The placement written out sample by sample, as the whole-array code did. */
function direct(
  samples: Float32Array,
  rate: number,
  offsetMs: number,
  driftPpm: number,
  lengthMs: number,
): Float32Array {
  const out = new Float32Array(Math.ceil((lengthMs * rate) / 1000));
  for (let i = 0; i < out.length; i++) {
    const s = (toSourceTime((i * 1000) / rate, { offsetMs, driftPpm }) * rate) / 1000;
    const k = Math.floor(s);
    if (k < 0 || k + 1 >= samples.length) continue;
    const f = s - k;
    out[i] = samples[k]! * (1 - f) + samples[k + 1]! * f;
  }
  return out;
}

/** Whether two signals hold the same bits (faster than a deep equality on a million samples). */
function sameBits(a: Float32Array, b: Float32Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

describe('the reference timeline', () => {
  const rate = 16000;
  const r = seededRandom(3);
  // 75 s: more than one placement block (2^20 samples).
  const source = Float32Array.from({ length: 75 * rate }, () => r() * 2 - 1);

  test.each([
    [800, 0],
    [-1234.5, 48.7],
    [2500.25, -101],
  ])(
    'offset %f ms, drift %f ppm: block by block from a file (test double) = the direct formula',
    (offsetMs, driftPpm) => {
      const lengthMs = 80_000;
      const expected = direct(source, rate, offsetMs, driftPpm, lengthMs);
      expect(sameBits(toReferenceTimeline(source, rate, offsetMs, driftPpm, lengthMs), expected)).toBe(true);
      let largest = 0;
      const fileDouble: SampleReader = {
        length: source.length,
        read(from, to) {
          largest = Math.max(largest, to - from);
          return source.slice(from, to);
        },
      };
      const placed = new Float32Array(expected.length);
      const starts: number[] = [];
      placeOnReference(fileDouble, rate, offsetMs, driftPpm, lengthMs, (at, block) => {
        starts.push(at);
        placed.set(block, at);
      });
      expect(sameBits(placed, expected)).toBe(true);
      expect(expected.some((x) => x !== 0)).toBe(true);
      expect(starts).toEqual([0, 1 << 20]);
      // A block reads the source where it lands: its length stretched by the drift, and a sample either side.
      expect(largest).toBeLessThanOrEqual(Math.ceil((1 << 20) * (1 + Math.abs(driftPpm) * 1e-6)) + 4);
    },
  );
});
