/**
 * CMX 3600 EDL: one video track as a list of cut events, for Avid Media Composer, Resolve and
 * Premiere. By default the switched edit (every event, the live camera's reel); with `track: N`
 * only camera N's events. Reels are named from the sources' labels (8 characters of A–Z, 0–9,
 * `_`, unique in the job; see `reelNames`) and each event carries `* FROM CLIP NAME: <file>`,
 * so every reel maps to one file and editors relink by file name; each video event also has
 * `* COMMENT: <why>` (the cut's reason with speaker names), and the first event carrying a
 * source's sound says its clip gain, which the format cannot carry (`* AUDIO GAIN: -4.5 DB …`). Timecode is drop-frame (`;`) at
 * 29.97/59.94 unless `dropFrame: false`; the record side starts at the timeline's `recordStart`
 * (01:00:00:00 by default), the source side at each file's own start timecode (00:00:00:00
 * for a file without one).
 * Pure: an {@link EditTimeline} in, a string out.
 *
 * @module
 */
import { plainLine } from '../contract/text.ts';
import { ExportError } from './errors.ts';
import { supportsDropFrame, toTimecode } from './rate.ts';
import { sourceRange, type ClipGain, type EditTimeline, type ExportSource } from './timeline.ts';

/** Options of {@link writeEdl}. */
export interface EdlOptions {
  /** 0 or absent: the switched edit; N ≥ 1: only camera N (the job's N-th video source). */
  track?: number;
  /** Drop-frame timecode at 29.97/59.94; default true. */
  dropFrame?: boolean;
}

/** EDL channel of the N-th audio source (CMX 3600 has A and A2; A3/A4 as Resolve and Premiere read them). */
const AUDIO_CHANNELS = ['A', 'A2', 'A3', 'A4'] as const;

/** A reel name as CMX 3600 readers take it: 8 characters of A–Z, 0–9 and `_`, padded (reelNames makes them so). */
function reelName(reel: string): string {
  return (
    reel
      .toUpperCase()
      .replace(/[^A-Z0-9_]/g, '_')
      .slice(0, 8) || 'AX'
  ).padEnd(8);
}

/** A dB figure as the comment writes it: `-4.5`, `+6`. */
const signedDb = (db: number): string => `${db > 0 ? '+' : ''}${Number(db.toFixed(2))}`;

/**
 * The comment that says a reel's clip gain (CMX 3600 has no audio level): `* AUDIO GAIN: -4.5 DB
 * (LEVELLING -3, NUDGE -1.5)`, or `* AUDIO GAIN: MUTED`. Readers keep it as a comment.
 */
export function gainComment(gain: ClipGain): string {
  if (gain.muted) return '* AUDIO GAIN: MUTED';
  return `* AUDIO GAIN: ${signedDb(gain.db)} DB (LEVELLING ${signedDb(gain.levellingDb)}, NUDGE ${signedDb(gain.nudgeDb)})`;
}

/**
 * The edit as a CMX 3600 EDL.
 *
 * @example
 * writeEdl(timeline, { dropFrame: true });
 * // TITLE: Ep 12
 * // FCM: DROP FRAME
 * //
 * // 001  CAM_A    V     C        01:02:03;04 01:02:08;04 01:00:00;00 01:00:05;00
 * // * FROM CLIP NAME: Cam A.mp4
 * // * COMMENT: Ana speaks (close-up)
 * //
 * // 002  MIC      A     C        00:00:00;00 00:00:04;21 01:00:00;09 01:00:05;00
 * // * FROM CLIP NAME: Mic.wav
 */
export function writeEdl(t: EditTimeline, options: EdlOptions = {}): string {
  const track = options.track ?? 0;
  if (!Number.isInteger(track) || track < 0 || track > t.cameras.length) {
    throw new ExportError(
      'track',
      `track must be 0 (the switched edit) or a camera from 1 to ${t.cameras.length} (got ${track})`,
    );
  }
  const dropFrame = (options.dropFrame ?? true) && supportsDropFrame(t.rate);
  const tc = (frame: number): string => toTimecode(frame, t.rate, dropFrame);
  const recordStart = t.recordStart;
  const camera = track === 0 ? null : t.cameras[track - 1]!;
  // Every free-text field is one plain line: EDL readers split on line breaks, so a newline in a
  // name would start a line of its own (an extra event), and control characters upset them.
  // buildTimeline cleans its text already; this keeps any timeline from breaking the file.
  const title = plainLine(camera ? `${t.name} - ${camera.label}` : t.name).slice(0, 70);

  const lines = [`TITLE: ${title}`, `FCM: ${dropFrame ? 'DROP FRAME' : 'NON-DROP FRAME'}`, ''];
  let n = 0;
  // A reel's gain is said once, on its first event that carries its sound.
  const gainSaid = new Set<string>();
  const event = (
    source: Pick<ExportSource, 'id' | 'reel' | 'fileName' | 'timecodeStart' | 'gain'>,
    channel: string,
    r: { sourceIn: number; sourceOut: number; recordIn: number; recordOut: number },
    note = '',
  ): void => {
    n += 1;
    const from = source.timecodeStart;
    const heard = channel !== 'V' && source.gain !== null && !gainSaid.has(source.id);
    if (heard) gainSaid.add(source.id);
    lines.push(
      `${String(n).padStart(3, '0')}  ${reelName(source.reel)} ${channel.padEnd(5)} C        ${tc(from + r.sourceIn)} ${tc(from + r.sourceOut)} ${tc(recordStart + r.recordIn)} ${tc(recordStart + r.recordOut)}`,
      `* FROM CLIP NAME: ${plainLine(source.fileName) || 'clip'}`,
      ...(plainLine(note) === '' ? [] : [`* COMMENT: ${plainLine(note)}`]),
      ...(heard ? [gainComment(source.gain!)] : []),
      '',
    );
  };
  const audio = camera ? [] : t.audio.slice(0, AUDIO_CHANNELS.length);
  for (const e of t.events) {
    if (camera && e.sourceId !== camera.id) continue;
    const live = t.cameras.find((c) => c.id === e.sourceId)!;
    const r = sourceRange(live, e, t.rate);
    if (r) event(live, t.audio.length === 0 ? 'B' : 'V', r, e.note);
    audio.forEach((s, i) => {
      const a = sourceRange(s, e, t.rate);
      if (a) event(s, AUDIO_CHANNELS[i]!, a);
    });
  }
  return `${lines.join('\n')}\n`;
}
