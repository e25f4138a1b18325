/**
 * Deterministic test bytes, generated in the page (never shipped from Node): any range of a
 * virtual file of any size can be regenerated on its own, so an upload can be checked
 * against a download range by range without holding the whole file.
 *
 * Byte `i` of the file with a given seed lies in 64 KiB block `floor(i / 65536)`, whose
 * content is an xorshift32 stream seeded from (seed, block).
 *
 * @module
 */

const BLOCK = 65_536;
/** Digest chunk: hashes are SHA-256 over 8 MiB chunks, then SHA-256 over the chunk digests. */
export const DIGEST_CHUNK = 8 * 1024 * 1024;

function blockSeed(seed: number, block: number): number {
  // splitmix-style mixing so neighbouring blocks do not start from related states
  let x = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(block + 1, 0xc2b2ae35)) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x ^= x >>> 15;
  return x === 0 ? 0x6d2b79f5 : x;
}

function fillBlock(seed: number, block: number, out: Uint32Array): void {
  let x = blockSeed(seed, block);
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x >>> 0;
  }
}

/** Bytes `[start, end)` of the virtual file `seed`. */
export function generateRange(seed: number, start: number, end: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(end - start);
  const words = new Uint32Array(BLOCK / 4);
  const blockBytes = new Uint8Array(words.buffer);
  let pos = start;
  while (pos < end) {
    const block = Math.floor(pos / BLOCK);
    fillBlock(seed, block, words);
    const from = pos - block * BLOCK;
    const to = Math.min(BLOCK, end - block * BLOCK);
    out.set(blockBytes.subarray(from, to), pos - start);
    pos += to - from;
  }
  return out;
}

/** Bytes `[start, end)` as a Blob built 8 MiB at a time (Chromium may page it to disk). */
export function generateBlob(seed: number, start: number, end: number): Blob {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for (let pos = start; pos < end; pos += DIGEST_CHUNK)
    parts.push(generateRange(seed, pos, Math.min(end, pos + DIGEST_CHUNK)));
  return new Blob(parts);
}

function hex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A chunked SHA-256 of a byte stream: what {@link digestStream} and {@link expectedDigest} return. */
export interface ChunkedDigest {
  bytes: number;
  sha256: string;
}

async function finish(chunkDigests: ArrayBuffer[], bytes: number): Promise<ChunkedDigest> {
  const all = new Uint8Array(chunkDigests.length * 32);
  chunkDigests.forEach((d, i) => all.set(new Uint8Array(d), i * 32));
  return { bytes, sha256: hex(await crypto.subtle.digest('SHA-256', all)) };
}

/** Chunked SHA-256 of a stream, reading it to the end (memory: one 8 MiB chunk). */
export async function digestStream(stream: ReadableStream<Uint8Array>): Promise<ChunkedDigest> {
  const reader = stream.getReader();
  const digests: ArrayBuffer[] = [];
  let chunk = new Uint8Array(DIGEST_CHUNK);
  let fill = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let offset = 0;
    bytes += value.length;
    while (offset < value.length) {
      const n = Math.min(value.length - offset, DIGEST_CHUNK - fill);
      chunk.set(value.subarray(offset, offset + n), fill);
      fill += n;
      offset += n;
      if (fill === DIGEST_CHUNK) {
        digests.push(await crypto.subtle.digest('SHA-256', chunk));
        chunk = new Uint8Array(DIGEST_CHUNK);
        fill = 0;
      }
    }
  }
  if (fill > 0 || bytes === 0) digests.push(await crypto.subtle.digest('SHA-256', chunk.subarray(0, fill)));
  return finish(digests, bytes);
}

/** The chunked SHA-256 that bytes `[start, end)` of file `seed` must have. */
export async function expectedDigest(seed: number, start: number, end: number): Promise<ChunkedDigest> {
  const digests: ArrayBuffer[] = [];
  for (let pos = start; pos < end; pos += DIGEST_CHUNK) {
    digests.push(await crypto.subtle.digest('SHA-256', generateRange(seed, pos, Math.min(end, pos + DIGEST_CHUNK))));
  }
  if (end <= start) digests.push(await crypto.subtle.digest('SHA-256', new Uint8Array(0)));
  return finish(digests, Math.max(0, end - start));
}
