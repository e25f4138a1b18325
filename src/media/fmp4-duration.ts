/**
 * The length of a fragmented MP4, written into its header once the whole file is known.
 *
 * The render streams a job's edit into the store as a fragmented MP4, strictly in order, so its
 * `moov` goes out before any sample and says nothing of the length: `mvhd`'s duration is 0 and
 * there is no `mehd` (Movie Extends Header). Chromium and ffprobe find the length by reading the
 * fragments; Firefox's player shows only the fragments it has loaded (a 63 s edit played as 20 s).
 * The render therefore reserves room at the end of the `moov` (a `udta` box, which follows
 * `mvex` there), and once the file is complete {@link withFragmentedDuration} rewrites the head in
 * place, the same number of bytes: `mvhd`'s duration set, an `mehd` with the length put first in
 * `mvex`, and the `udta` turned into a `free` box 20 bytes shorter. Nothing after the `moov`
 * moves, so every fragment's offset (and `mfra`'s) stays right.
 *
 * Pure: bytes in, bytes out.
 *
 * @module
 */

/** `mehd` version 1: size, type, version and flags, a 64-bit fragment duration. */
const MEHD_BYTES = 20;
/** The smallest box: size and type. */
const BOX_HEADER = 8;

interface Box {
  type: string;
  start: number;
  size: number;
}

/** The boxes laid one after another in `bytes[from, to)`, or null where a size does not fit. */
function boxesIn(bytes: Uint8Array, from: number, to: number): Box[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Box[] = [];
  for (let at = from; at < to;) {
    if (at + BOX_HEADER > to) return null;
    const size = view.getUint32(at);
    // 0 (to the end) and 1 (64-bit size) never occur in the boxes read here.
    if (size < BOX_HEADER || at + size > to) return null;
    out.push({ type: String.fromCharCode(...bytes.subarray(at + 4, at + 8)), start: at, size });
    at += size;
  }
  return out;
}

/**
 * `head` (the file's first bytes, holding its `ftyp` and `moov` whole) with the length
 * `durationSec` written in, as described in the module comment; the same length as `head`.
 * Null when the head is not laid out as the render writes it (no `moov` whole in it, no `mvex`,
 * or no `udta` of at least 28 bytes right after `mvex` at the end of the `moov`): the caller then
 * leaves the file as it is.
 */
export function withFragmentedDuration(head: Uint8Array, durationSec: number): Uint8Array | null {
  if (!(durationSec > 0)) return null;
  const top = boxesUntilCut(head);
  const moov = top?.find((b) => b.type === 'moov');
  if (!moov) return null;
  const inner = boxesIn(head, moov.start + BOX_HEADER, moov.start + moov.size);
  if (!inner) return null;
  const mvhd = inner.find((b) => b.type === 'mvhd');
  const last = inner.length - 1;
  const mvex = inner[last - 1];
  const udta = inner[last];
  if (!mvhd || mvex?.type !== 'mvex' || udta?.type !== 'udta' || udta.size < MEHD_BYTES + BOX_HEADER) return null;
  if (boxesIn(head, mvex.start + BOX_HEADER, mvex.start + mvex.size)?.some((b) => b.type === 'mehd') !== false)
    return null;

  const out = head.slice();
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  // mvhd: version 0 has a 32-bit timescale at 20 and duration at 24; version 1 64-bit times.
  const version = out[mvhd.start + 8];
  const timescale = view.getUint32(mvhd.start + (version === 1 ? 28 : 20));
  if (timescale === 0) return null;
  const units = Math.round(durationSec * timescale);
  if (version === 1) view.setBigUint64(mvhd.start + 32, BigInt(units));
  else if (units <= 0xffffffff) view.setUint32(mvhd.start + 24, units);
  else return null;

  // mvex grows by the mehd, written first; its trex boxes move 20 bytes on; the udta's place,
  // 20 bytes shorter, becomes a free box.
  const trex = head.subarray(mvex.start + BOX_HEADER, mvex.start + mvex.size);
  let at = mvex.start;
  view.setUint32(at, mvex.size + MEHD_BYTES);
  at += BOX_HEADER;
  view.setUint32(at, MEHD_BYTES);
  out.set([0x6d, 0x65, 0x68, 0x64], at + 4); // 'mehd'
  view.setUint32(at + 8, 0x01000000); // version 1, flags 0
  view.setBigUint64(at + 12, BigInt(units));
  at += MEHD_BYTES;
  out.set(trex, at);
  at += trex.byteLength;
  const freeSize = udta.size - MEHD_BYTES;
  view.setUint32(at, freeSize);
  out.set([0x66, 0x72, 0x65, 0x65], at + 4); // 'free'
  out.fill(0, at + BOX_HEADER, at + freeSize);
  return out;
}

/** The top-level boxes of a head cut somewhere inside a later box: those that fit whole. */
function boxesUntilCut(head: Uint8Array): Box[] | null {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const out: Box[] = [];
  for (let at = 0; at + BOX_HEADER <= head.byteLength;) {
    const size = view.getUint32(at);
    if (size < BOX_HEADER) return out.length > 0 ? out : null;
    if (at + size > head.byteLength) break;
    out.push({ type: String.fromCharCode(...head.subarray(at + 4, at + 8)), start: at, size });
    at += size;
  }
  return out;
}
