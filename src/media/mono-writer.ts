/**
 * A growable Float32 output buffer: decoders append slices, `finish` hands back exactly the
 * written samples (transferable, with no spare capacity).
 *
 * @module
 */
/** Where a decoder writes its mono output: memory ({@link MonoWriter}) or a file. */
export interface MonoOutput {
  /** Appends a slice (copied: the caller may reuse it). */
  write(x: Float32Array): void;
  /** The samples written, at most `limit` (empty when they went to a file). */
  finish(limit?: number): Float32Array;
}

/** Appends Float32 slices into one buffer that grows by half when full. */
export class MonoWriter implements MonoOutput {
  private buf: Float32Array;
  private length = 0;

  /** `expected`: the likely final length (e.g. from the container's duration), to avoid regrowth. */
  constructor(expected: number) {
    this.buf = new Float32Array(Math.max(1024, expected));
  }

  write(x: Float32Array): void {
    if (this.length + x.length > this.buf.length) {
      const next = new Float32Array(Math.max(this.length + x.length, Math.ceil(this.buf.length * 1.5)));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    this.buf.set(x, this.length);
    this.length += x.length;
  }

  /**
   * The samples written, at most `limit`; shares the buffer when it is exactly full, else
   * trims it (the spare room is freed at once: an hour at 16 kHz is 0.2 GB).
   */
  finish(limit = Infinity): Float32Array {
    return trimmed(this.buf, Math.min(this.length, limit));
  }
}

/**
 * The first `length` samples of `samples` in a buffer of their own size. The old buffer is
 * detached and its memory freed now (`ArrayBuffer.prototype.transfer`, where the browser has
 * it), not at some later garbage collection; elsewhere a copy.
 */
export function trimmed(samples: Float32Array, length: number): Float32Array {
  if (length === samples.length) return samples;
  const buffer = samples.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  if (samples.byteOffset === 0 && buffer.byteLength > 0 && typeof buffer.transfer === 'function')
    return new Float32Array(buffer.transfer(length * Float32Array.BYTES_PER_ELEMENT));
  return samples.slice(0, length);
}
