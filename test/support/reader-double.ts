/**
 * A test double for a signal in a file (src/media/scratch.ts's ScratchSamples): read by range
 * into new arrays, written over by range, and it remembers the largest read, so a test can
 * say that no more than a piece was ever held.
 *
 * @module
 */
import type { SampleReader } from '../../src/analysis/signal/sample-reader.ts';

/** {@link readerDouble}'s file: a reader that can be written over and counts what it was asked for. */
export interface ReaderDouble extends SampleReader {
  write(at: number, samples: Float32Array): void;
  /** The most samples one read asked for. */
  readonly largest: number;
}

/** A file-like reader over `samples` (which it owns: writes change them). */
export function readerDouble(samples: Float32Array): ReaderDouble {
  let largest = 0;
  return {
    length: samples.length,
    read(from, to) {
      const a = Math.max(0, from);
      const b = Math.min(samples.length, to);
      largest = Math.max(largest, b - a);
      return samples.slice(a, b);
    },
    write(at, block) {
      samples.set(block, at);
    },
    get largest() {
      return largest;
    },
  };
}
