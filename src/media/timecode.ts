/**
 * A media file's start timecode: the SMPTE label of its first frame, as cameras and recorders
 * write it. Pure: bytes (through a reader) or tag strings in, a {@link SourceTimecode} out.
 *
 * - MP4 / QuickTime: the `tmcd` track (QuickTime File Format, "Timecode Sample Description"):
 *   its sample entry gives the flags (0x1 drop-frame, 0x8 counter), `timescale`,
 *   `frameDuration` and `numberOfFrames`; its first sample is a 32-bit big-endian frame number,
 *   counted at that rate from 00:00:00:00.
 * - Matroska / WebM and anything ffprobe reads: a `TIMECODE` tag (`01:02:03;04`, `;` or `,`
 *   before the frames meaning drop-frame), at the rate of the video.
 *
 * @module
 */
import type { FrameRateFraction, SourceTimecode } from '../contract/types.ts';

/** Reads `length` bytes at `offset` of the file (fewer at its end). */
export type ByteReader = (offset: number, length: number) => Promise<Uint8Array>;

interface Box {
  type: string;
  /** Offset of the payload (after the header). */
  start: number;
  /** Offset just past the box. */
  end: number;
}

const fourcc = (b: Uint8Array, at: number): string => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
const u32 = (b: Uint8Array, at: number): number => new DataView(b.buffer, b.byteOffset + at, 4).getUint32(0);
const u64 = (b: Uint8Array, at: number): number => {
  const view = new DataView(b.buffer, b.byteOffset + at, 8);
  return view.getUint32(0) * 2 ** 32 + view.getUint32(4);
};

/** The boxes from `start` to `end`, headers only (one small read each), up to the first of type `until`. */
async function boxesIn(read: ByteReader, start: number, end: number, until?: string): Promise<Box[]> {
  const out: Box[] = [];
  let at = start;
  while (at + 8 <= end && out.length < 10_000) {
    const head = await read(at, 16);
    if (head.length < 8) break;
    let size = u32(head, 0);
    let header = 8;
    if (size === 1) {
      if (head.length < 16) break;
      size = u64(head, 8);
      header = 16;
    } else if (size === 0) size = end - at; // to the end of the file (or parent)
    if (size < header || at + size > end) break; // damaged: stop rather than guess
    out.push({ type: fourcc(head, 4), start: at + header, end: at + size });
    if (out[out.length - 1]!.type === until) break;
    at += size;
  }
  return out;
}

/** The child of `boxes` of `type`, or undefined. */
const find = (boxes: readonly Box[], type: string): Box | undefined => boxes.find((b) => b.type === type);

/** A drop-frame timecode is only defined at 29.97 and 59.94 (30 and 60 counted). */
const dropFrameAllowed = (rate: FrameRateFraction): boolean =>
  rate.den === 1001 && Math.round(rate.num / rate.den) % 30 === 0;

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * The SMPTE label of frame `frame` counted at `rate` from 00:00:00:00 (drop-frame skips labels
 * 00 and 01, or 00–03 at 59.94, at each minute but every tenth). Wraps at 24 hours.
 *
 * @example
 * timecodeLabel(111_694, { num: 30000, den: 1001 }, true); // '01:02:07;04'
 */
export function timecodeLabel(frame: number, rate: FrameRateFraction, dropFrame: boolean): string {
  const base = Math.round(rate.num / rate.den);
  let counted = frame;
  const drop = dropFrame && dropFrameAllowed(rate);
  if (drop) {
    const d = (base / 30) * 2;
    const perMinute = base * 60 - d;
    const perTenMinutes = perMinute * 10 + d;
    const tens = Math.floor(frame / perTenMinutes);
    const rest = frame % perTenMinutes;
    counted += d * 9 * tens + (rest > d ? d * Math.floor((rest - d) / perMinute) : 0);
  }
  const seconds = Math.floor(counted / base);
  return `${pad(Math.floor(seconds / 3600) % 24)}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}${drop ? ';' : ':'}${pad(counted % base)}`;
}

/**
 * The frame count of a timecode label at `rate` (inverse of {@link timecodeLabel}), or null
 * when the label is not one (fields out of range, a drop-frame label that does not exist).
 */
export function timecodeFrames(label: string, rate: FrameRateFraction, dropFrame: boolean): number | null {
  const m = /^(\d{2}):(\d{2}):(\d{2})[:;.,](\d{2})$/.exec(label.trim());
  if (!m) return null;
  const [hh, mm, ss, ff] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
  const base = Math.round(rate.num / rate.den);
  if (hh > 23 || mm > 59 || ss > 59 || ff >= base) return null;
  const counted = ((hh * 60 + mm) * 60 + ss) * base + ff;
  if (!(dropFrame && dropFrameAllowed(rate))) return counted;
  const d = (base / 30) * 2;
  if (ss === 0 && ff < d && mm % 10 !== 0) return null; // skipped label
  const minutes = hh * 60 + mm;
  return counted - d * (minutes - Math.floor(minutes / 10));
}

/** The exact rate of a tmcd entry: 30000/1001 from timescale 30000 and frameDuration 1001. */
function tmcdRate(timescale: number, frameDuration: number, numberOfFrames: number): FrameRateFraction | null {
  if (timescale <= 0 || frameDuration <= 0 || numberOfFrames <= 0) return null;
  const fps = timescale / frameDuration;
  if (Math.abs(fps - numberOfFrames) < 1e-6) return { num: numberOfFrames, den: 1 };
  if (Math.abs(fps - (numberOfFrames * 1000) / 1001) < 1e-3) return { num: numberOfFrames * 1000, den: 1001 };
  return null; // a rate the count and the tick do not agree on
}

/**
 * The start timecode of an MP4/MOV file from its `tmcd` track, or null when it has none (or
 * none that makes sense). Reads only box headers, the tmcd track's small boxes and 4 bytes of
 * its first sample, wherever `moov` sits.
 *
 * @example
 * const tc = await tmcdTimecode((at, n) => blob.slice(at, at + n).bytes(), blob.size);
 * // { start: '01:02:03;04', frameRate: { num: 30000, den: 1001 }, dropFrame: true }
 */
export async function tmcdTimecode(read: ByteReader, fileSize: number): Promise<SourceTimecode | null> {
  // A fragmented file has thousands of top-level boxes after its moov: stop at the moov.
  const top = await boxesIn(read, 0, fileSize, 'moov');
  const moov = find(top, 'moov');
  if (!moov) return null;
  for (const trak of (await boxesIn(read, moov.start, moov.end)).filter((b) => b.type === 'trak')) {
    const mdia = find(await boxesIn(read, trak.start, trak.end), 'mdia');
    if (!mdia) continue;
    const mdiaBoxes = await boxesIn(read, mdia.start, mdia.end);
    const hdlr = find(mdiaBoxes, 'hdlr');
    if (!hdlr || fourcc(await read(hdlr.start + 8, 4), 0) !== 'tmcd') continue;
    const minf = find(mdiaBoxes, 'minf');
    const stbl = minf && find(await boxesIn(read, minf.start, minf.end), 'stbl');
    if (!stbl) continue;
    const stblBoxes = await boxesIn(read, stbl.start, stbl.end);
    const stsd = find(stblBoxes, 'stsd');
    const chunks = find(stblBoxes, 'stco') ?? find(stblBoxes, 'co64');
    if (!stsd || !chunks) continue;
    // stsd: version/flags, entry count, then the first entry: size, 'tmcd', 6 reserved, data ref
    // index (2), reserved (4), flags (4), timescale (4), frameDuration (4), numberOfFrames (1).
    const entry = await read(stsd.start + 8, 33);
    if (entry.length < 33 || fourcc(entry, 4) !== 'tmcd') continue;
    const flags = u32(entry, 20);
    if (flags & 0x8) continue; // a counter, not a timecode
    const rate = tmcdRate(u32(entry, 24), u32(entry, 28), entry[32]!);
    if (!rate) continue;
    const table = await read(chunks.start, 16);
    if (table.length < 16 || u32(table, 4) === 0) continue;
    const sampleAt = chunks.type === 'stco' ? u32(table, 8) : u64(table, 8);
    const sample = await read(sampleAt, 4);
    if (sample.length < 4) continue;
    const dropFrame = (flags & 0x1) !== 0 && dropFrameAllowed(rate);
    // A negative frame number (flag 0x4) has no label here; 24-hour wrap as every tool does.
    const frame = new DataView(sample.buffer, sample.byteOffset, 4).getInt32(0);
    if (frame < 0) continue;
    return { start: timecodeLabel(frame, rate, dropFrame), frameRate: rate, dropFrame };
  }
  return null;
}

/**
 * A start timecode from a `TIMECODE` tag string (Matroska, ffprobe's `timecode`) at the video's
 * rate, or null when the tag is not a valid label at that rate.
 *
 * @example
 * taggedTimecode('00:59:58:12', { num: 24000, den: 1001 }); // { start: '00:59:58:12', frameRate: …, dropFrame: false }
 */
export function taggedTimecode(tag: string, rate: FrameRateFraction | null): SourceTimecode | null {
  if (!rate || !Number.isInteger(rate.num) || !Number.isInteger(rate.den) || rate.num <= 0 || rate.den <= 0)
    return null;
  const text = tag.trim();
  const dropFrame = /[;,]\d{2}$/.test(text) && dropFrameAllowed(rate);
  const frame = timecodeFrames(text, rate, dropFrame);
  if (frame === null) return null;
  return { start: timecodeLabel(frame, rate, dropFrame), frameRate: { num: rate.num, den: rate.den }, dropFrame };
}

/** The start timecode of a source as frames at its timecode rate (what the exports place it by). */
export function startFrameOf(timecode: SourceTimecode): number | null {
  return timecodeFrames(timecode.start, timecode.frameRate, timecode.dropFrame);
}

/**
 * Whether `tc` is a start timecode that holds together: a whole positive rate from 1 to 240 fps,
 * drop-frame only at 29.97/59.94, and a label that exists at that rate (an engine's report is
 * checked before it is kept on a Job).
 */
export function validSourceTimecode(tc: SourceTimecode): boolean {
  // Checked as unknown: an engine's report crosses a worker boundary untyped.
  const rate = (tc as { frameRate?: Partial<FrameRateFraction> }).frameRate;
  const num = rate?.num;
  const den = rate?.den;
  if (
    num === undefined ||
    den === undefined ||
    !Number.isInteger(num) ||
    !Number.isInteger(den) ||
    num <= 0 ||
    den <= 0
  )
    return false;
  const exact = { num, den };
  const fps = num / den;
  if (!(fps >= 1 && fps <= 240) || typeof tc.dropFrame !== 'boolean' || typeof tc.start !== 'string') return false;
  if (tc.dropFrame && !dropFrameAllowed(exact)) return false;
  if (tc.dropFrame !== /;\d{2}$/.test(tc.start)) return false;
  return timecodeFrames(tc.start, exact, tc.dropFrame) !== null;
}
