/**
 * Samples read by range: an array in memory, or a file a worker reads piece by piece (an hour
 * of a 16 kHz mic is 0.23 GB; speaker detection keeps its channels on disk while the VAD runs).
 *
 * @module
 */

/** A mono signal read by range. */
export interface SampleReader {
  /** Samples in all. */
  readonly length: number;
  /** Samples `[from, to)`, clamped to the signal: a view where they are in memory, else a new array. */
  read(from: number, to: number): Float32Array;
}

/** A signal in memory, or one read by range. */
export type SampleInput = Float32Array | SampleReader;

/** A reader over samples in memory (views, no copies). */
export function arrayReader(samples: Float32Array): SampleReader {
  return {
    length: samples.length,
    read: (from, to) => samples.subarray(Math.max(0, from), Math.min(samples.length, to)),
  };
}

/** `input` as a reader. */
export function asReader(input: SampleInput): SampleReader {
  return input instanceof Float32Array ? arrayReader(input) : input;
}

/**
 * The samples `[from, to)` in pieces of at most `size` (a multiple of any frame the caller
 * measures keeps frames whole), with where each starts.
 *
 * @example
 * for (const [at, piece] of pieces(reader, 1 << 20)) meter.push(piece);
 */
export function* pieces(
  reader: SampleReader,
  size: number,
  from = 0,
  to = reader.length,
): Generator<[number, Float32Array]> {
  const end = Math.min(to, reader.length);
  for (let at = Math.max(0, from); at < end; at += size) yield [at, reader.read(at, Math.min(end, at + size))];
}
