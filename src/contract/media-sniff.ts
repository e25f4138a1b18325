/**
 * Tells a video or audio file from anything else by its first bytes (its "magic"), the way a
 * browser sniffs media: pure, no I/O. Used when an upload completes (a web page or an empty
 * file picked by mistake is refused, naming the source) and by pages at pick time.
 *
 * @module
 */

/** How many leading bytes {@link sniffMedia} looks at; reading more changes nothing. */
export const MEDIA_SNIFF_BYTES = 64;

/** A container {@link sniffMedia} recognises. */
export type MediaContainer = 'iso-bmff' | 'matroska' | 'wav' | 'aiff' | 'mp3' | 'aac' | 'flac' | 'ogg' | 'avi';

/** What the first bytes of a file say it is. */
export type MediaSniff =
  | { kind: 'media'; container: MediaContainer }
  | { kind: 'empty' }
  /** `start`: the first bytes as readable text (`<!DOCTYPE html>…`) or hex (`00 01 02 …`). */
  | { kind: 'not-media'; start: string };

/** ISO base media (MP4, MOV, M4A, 3GP) top-level boxes that may come first. */
const ISO_BOXES = new Set(['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot', 'styp', 'uuid']);

function ascii(bytes: Uint8Array, from: number, to: number): string {
  if (bytes.length < to) return '';
  return String.fromCharCode(...bytes.subarray(from, to));
}

function containerOf(b: Uint8Array): MediaContainer | null {
  if (ISO_BOXES.has(ascii(b, 4, 8))) return 'iso-bmff';
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'matroska';
  const riff = ascii(b, 0, 4);
  if ((riff === 'RIFF' || riff === 'RF64') && ascii(b, 8, 12) === 'WAVE') return 'wav';
  if (riff === 'RIFF' && ascii(b, 8, 12) === 'AVI ') return 'avi';
  if (riff === 'FORM' && (ascii(b, 8, 12) === 'AIFF' || ascii(b, 8, 12) === 'AIFC')) return 'aiff';
  if (riff === 'fLaC') return 'flac';
  if (riff === 'OggS') return 'ogg';
  if (ascii(b, 0, 3) === 'ID3') return 'mp3';
  if (b.length >= 2 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0) {
    // Frame sync: layer bits 00 are ADTS AAC (FFF1, FFF9), anything else an MPEG audio frame.
    return (b[1]! & 0x06) === 0 ? 'aac' : 'mp3';
  }
  return null;
}

/** The first bytes as a person would recognise them: text when they are printable, else hex. */
function describeStart(b: Uint8Array): string {
  const head = b.subarray(0, 24);
  const printable = head.every((c) => (c >= 0x20 && c < 0x7f) || c === 0x09 || c === 0x0a || c === 0x0d);
  const more = b.length > head.length ? ' …' : '';
  if (printable) return JSON.stringify(String.fromCharCode(...head).replace(/\s+/g, ' ')).slice(1, -1) + more;
  return (
    Array.from(head.subarray(0, 12), (c) => c.toString(16).padStart(2, '0')).join(' ') + (b.length > 12 ? ' …' : '')
  );
}

/**
 * What `head` (the first {@link MEDIA_SNIFF_BYTES} bytes of a file, or all of a shorter one)
 * says the file is: a video or audio container (MP4/MOV `ftyp`/`moov`/`mdat`/`wide`/`free` box
 * at offset 4, Matroska/WebM EBML `1A45DFA3`, `RIFF…WAVE`, MP3 `ID3` or frame sync `FFEx`, AAC
 * ADTS `FFF1`/`FFF9`, FLAC, Ogg, AIFF, AVI), empty, or something else.
 *
 * @example
 * const head = new Uint8Array(await file.slice(0, MEDIA_SNIFF_BYTES).arrayBuffer());
 * const sniff = sniffMedia(head);
 * if (sniff.kind === 'not-media') alert(`${file.name} is not a video or audio file (it starts with ${sniff.start})`);
 */
export function sniffMedia(head: Uint8Array): MediaSniff {
  if (head.length === 0) return { kind: 'empty' };
  const container = containerOf(head);
  return container ? { kind: 'media', container } : { kind: 'not-media', start: describeStart(head) };
}
