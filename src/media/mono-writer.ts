/**
 * A growable Float32 output buffer: decoders append slices, `finish` hands back exactly the
 * written samples (transferable, with no spare capacity).
 *
 * @module
 */
/** Appends Float32 slices into one buffer that grows by half when full. */
export class MonoWriter {
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

  /** The samples written; shares the buffer when it is exactly full, else a trimmed copy. */
  finish(): Float32Array {
    return this.length === this.buf.length ? this.buf : this.buf.slice(0, this.length);
  }
}
