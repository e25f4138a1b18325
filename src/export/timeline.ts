/**
 * The edit on a frame grid: what every export format writes. Pure: the job's cuts, removed
 * ranges and synced sources in, whole frames out.
 *
 * Frames: every cut and removed-range boundary snaps to the nearest frame of the reference
 * timeline (so the output timeline is exactly the kept reference frames played back to back);
 * a source's in-point is its own media frame at that reference frame, sync offset and drift
 * applied (`toSourceTime`, src/analysis/sync/sync.ts), and its out-point is the in-point plus the
 * event's length (drift within one event is not corrected: 100 ppm adds 6 ms per minute, under
 * one frame at 30 fps for events shorter than ~5 minutes).
 *
 * @module
 */
import { toSourceTime, type ClockMapping } from '../analysis/sync/sync.ts';
import { withSpeakerNames, type SpeakerNames } from '../contract/speaker-names.ts';
import { plainLine } from '../contract/text.ts';
import type { Cut, JobSource, SourceTimecode, TimeRange } from '../contract/types.ts';
import { startFrameOf, validSourceTimecode } from '../media/timecode.ts';
import { keptPieces, RenderPlanError } from '../render/plan.ts';
import { ExportError } from './errors.ts';
import { frameMs, type FrameRate } from './rate.ts';

/** The gain written on a source's audio clips (see `clipGains`, src/export/index.ts). */
export interface ClipGain {
  /** What the clip is turned up (positive) or down, dB: `levellingDb + nudgeDb`. */
  db: number;
  /** The levelling planned for the source's speaker, dB. */
  levellingDb: number;
  /** The gain a person set on the source (updateCuts `audio.gains`), dB; 0 when muted. */
  nudgeDb: number;
  /** A person muted the source: its clips are silent (FCPXML −96 dB, xmeml level 0, OTIO disabled). */
  muted: boolean;
}

/** The volume a muted source's clips are written at where a format has no mute, dB (Final Cut's floor). */
export const MUTED_DB = -96;

/** A source as the exports name it. */
export interface ExportSource {
  id: string;
  label: string;
  kind: 'video' | 'audio';
  /** The original file's name: label plus extension (`Cam A.mp4`); editors relink by it. */
  fileName: string;
  /** `fileName` as a URL: percent-encoded, under `options.mediaRoot` when given. */
  url: string;
  /** CMX 3600 reel name: up to 8 characters of A–Z, 0–9 and `_`, unique within the job. */
  reel: string;
  clock: ClockMapping;
  /** Length of the media in frames, when known. */
  durationFrames: number | null;
  /** The video's display frame size as probed, when known. */
  width: number | null;
  height: number | null;
  /** The audio track's sample rate (Hz) and channel count as probed, when known. */
  sampleRate: number | null;
  channels: number | null;
  /** The file's start timecode as probed, when it has one (and it holds together). */
  timecode: SourceTimecode | null;
  /**
   * The file's first frame as a timecode frame count at the timeline's rate (0 without a
   * timecode): the source side of every format counts from here, so clips carry the camera's
   * own timecode.
   */
  timecodeStart: number;
  /** The gain of its audio clips, when the edit hears it at other than 0 dB (or muted); else null. */
  gain: ClipGain | null;
}

/** One stretch of the output timeline shown from one camera. */
export interface TimelineEvent {
  /** The live camera. */
  sourceId: string;
  /** Output frames [recordIn, recordOut). */
  recordIn: number;
  recordOut: number;
  /** Reference-timeline frames [referenceIn, referenceOut) (the multicam clip's time). */
  referenceIn: number;
  referenceOut: number;
  /** Why the camera is live, speaker labels replaced by their names ("Ana speaks (close-up)"); "" when the cuts give no reason. */
  note: string;
}

/** A source's media frames for a stretch of the timeline (trimmed to where the source has media). */
export interface SourceRange {
  sourceId: string;
  recordIn: number;
  recordOut: number;
  referenceIn: number;
  sourceIn: number;
  sourceOut: number;
}

/** The edit on a frame grid. */
export interface EditTimeline {
  name: string;
  rate: FrameRate;
  /** Frame size of the timeline (the main camera's, or as asked). */
  width: number;
  height: number;
  /** Output length in frames. */
  durationFrames: number;
  /** Timecode of the output's first frame as a frame count at `rate` (01:00:00:00 unless asked otherwise). */
  recordStart: number;
  /** Every source, in job order. */
  sources: ExportSource[];
  /** Video sources (cameras), in job order: track N is `cameras[N-1]`. */
  cameras: ExportSource[];
  /** Audio-only sources, in job order. */
  audio: ExportSource[];
  /** The switched edit, in output order; consecutive events differ in camera or are not contiguous in reference time. */
  events: TimelineEvent[];
}

/** What {@link buildTimeline} needs from a job. */
export interface TimelineInput {
  name: string;
  sources: readonly JobSource[];
  cuts: readonly Cut[];
  removedRanges: readonly TimeRange[];
  rate: FrameRate;
  /** Frame size of the timeline; default 1920×1080. */
  width?: number;
  height?: number;
  /** Names of the speakers (label → name) used in the events' notes. */
  speakerNames?: SpeakerNames;
  /** Prefix of every media URL (e.g. `file:///Users/me/podcast/`); default none (bare file names). */
  mediaRoot?: string;
  /** Timecode of the output's first frame, as a frame count at `rate`; default 0 (exportEdit gives 01:00:00:00). */
  recordStart?: number;
  /** The gain of each heard source's audio clips, by source id (exportEdit gives `clipGains(job)`); default none. */
  gains?: Readonly<Record<string, ClipGain>>;
}

/** Frame size of a timeline when neither the job nor the options give one. */
export const DEFAULT_WIDTH = 1920;
export const DEFAULT_HEIGHT = 1080;

/** A probed count (pixels, Hz, channels) when it is a whole number above 0, else null. */
const wholePositive = (n: number | undefined): number | null =>
  n !== undefined && Number.isInteger(n) && n > 0 ? n : null;

/** Reel names CMX 3600 readers give a meaning of their own (black, bars, an auxiliary source). */
const RESERVED_REELS = ['AX', 'BL', 'BLACK', 'BARS'];

/**
 * CMX 3600 reel names from the sources' labels: up to 8 characters of A–Z, 0–9 and `_` (what
 * Avid and Resolve accept), unique within the job. The label's words are joined by `_`
 * (`Cam A` → `CAM_A`); when a name would not fit in 8, the leading words every label shares
 * are dropped first, so the part that tells cameras apart survives the cut to 8
 * (`Conv2 Cam A`, `Conv2 Cam B`, `Conv2 Wide` → `CAM_A`, `CAM_B`, `WIDE`). A name already taken (or one readers reserve: AX, BL, BLACK,
 * BARS) gets the lowest free number in place of its last characters (`CAM_A2`), in job order,
 * so the same labels always give the same reels.
 *
 * @example
 * reelNames(['Conv2 A cam', 'Conv2 B cam', 'Conv2 wide']); // ['A_CAM', 'B_CAM', 'WIDE']
 * reelNames(['Cam A', 'cam-a']);                          // ['CAM_A', 'CAM_A2']
 */
export function reelNames(labels: readonly string[]): string[] {
  const words = labels.map((label) =>
    label
      .toUpperCase()
      .split(/[^A-Z0-9]+/)
      .filter((w) => w !== ''),
  );
  // Only when some name would lose characters to the 8: then the words they all begin with go.
  let shared = 0;
  const first = words[0] ?? [];
  if (words.length > 1 && words.some((w) => w.join('_').length > 8))
    while (words.every((w) => w.length > shared + 1 && w[shared] === first[shared])) shared += 1;
  const used = new Set(RESERVED_REELS);
  return words.map((w, i) => {
    const base = w.slice(shared).join('_').slice(0, 8).replace(/_+$/, '') || `SRC${i + 1}`;
    let reel = base;
    for (let n = 2; used.has(reel); n++) reel = `${base.slice(0, 8 - String(n).length)}${n}`;
    used.add(reel);
    return reel;
  });
}

/**
 * A source's start timecode as a frame count at the timeline's `rate`: the same instant, so a
 * 25 fps camera at 10:00:00:00 in a 29.97 timeline starts at frame 1 078 921 (36 000 s).
 * 0 when the source has no timecode (or one that does not hold together).
 */
export function timecodeStartAt(timecode: SourceTimecode | undefined, rate: FrameRate): number {
  if (!timecode || !validSourceTimecode(timecode)) return 0;
  const frames = startFrameOf(timecode) ?? 0;
  const tc = timecode.frameRate;
  if (tc.num * rate.den === rate.num * tc.den) return frames;
  return Math.round((frames * tc.den * rate.num) / (tc.num * rate.den));
}

/** Percent-encodes each path segment (spaces and `#` are not allowed in a URL). */
export function mediaUrl(fileName: string, mediaRoot = ''): string {
  const encoded = fileName.split('/').map(encodeURIComponent).join('/');
  if (mediaRoot === '') return encoded;
  let root = mediaRoot;
  try {
    root = new URL(mediaRoot).href; // percent-encodes spaces in the folder path
  } catch {
    // not an absolute URL: a relative folder, used as given
  }
  return root.endsWith('/') ? root + encoded : `${root}/${encoded}`;
}

/** The source's media frame shown at reference frame `referenceFrame`. */
export function sourceFrameAt(source: Pick<ExportSource, 'clock'>, referenceFrame: number, rate: FrameRate): number {
  const ms = frameMs(rate);
  // With no drift this is referenceFrame + round(−offset/frame) exactly (Math.round(n + y) = n + Math.round(y)).
  return Math.round(toSourceTime(referenceFrame * ms, source.clock) / ms);
}

/**
 * The media of `source` for a stretch of the timeline, trimmed to where the source has frames
 * (from 0 to its duration when known); null when it has none there.
 */
export function sourceRange(
  source: ExportSource,
  stretch: Pick<TimelineEvent, 'recordIn' | 'recordOut' | 'referenceIn'>,
  rate: FrameRate,
): SourceRange | null {
  let sourceIn = sourceFrameAt(source, stretch.referenceIn, rate);
  let { recordIn, referenceIn } = stretch;
  let recordOut = stretch.recordOut;
  if (sourceIn < 0) {
    recordIn -= sourceIn;
    referenceIn -= sourceIn;
    sourceIn = 0;
  }
  let sourceOut = sourceIn + (recordOut - recordIn);
  if (source.durationFrames !== null && sourceOut > source.durationFrames) {
    recordOut -= sourceOut - source.durationFrames;
    sourceOut = source.durationFrames;
  }
  if (recordOut <= recordIn) return null;
  return { sourceId: source.id, recordIn, recordOut, referenceIn, sourceIn, sourceOut };
}

/** Joins ranges that continue each other in output and source time (one clip instead of several). */
export function mergeContinuous(ranges: readonly SourceRange[]): SourceRange[] {
  const out: SourceRange[] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && last.sourceId === r.sourceId && last.recordOut === r.recordIn && last.sourceOut === r.sourceIn) {
      out[out.length - 1] = { ...last, recordOut: r.recordOut, sourceOut: r.sourceOut };
    } else {
      out.push({ ...r });
    }
  }
  return out;
}

/**
 * The edit on the frame grid of `rate`: the cuts minus the removed ranges, snapped to
 * reference frames, with every source's file name, reel and clock.
 *
 * @example
 * const t = buildTimeline({ name: 'Ep 12', sources, cuts, removedRanges: [], rate: { num: 25, den: 1 } });
 * t.events[0]; // { sourceId: 'src_a', recordIn: 0, recordOut: 300, referenceIn: 50, referenceOut: 350 }
 */
export function buildTimeline(input: TimelineInput): EditTimeline {
  const ms = frameMs(input.rate);
  const known = new Set(input.sources.map((s) => s.id));
  input.cuts.forEach((c, i) => {
    if (!known.has(c.sourceId))
      throw new ExportError(`cuts[${i}].sourceId`, `cuts[${i}].sourceId ${c.sourceId} is not a source of the job`);
  });
  // Records stored before labels were checked (issue 48) may hold newlines, control characters
  // or lone surrogates: every writer gets one plain line (and encodeURIComponent cannot throw).
  const labels = input.sources.map((s, i) => plainLine(s.label) || `Source ${i + 1}`);
  const reels = reelNames(labels);
  const sources: ExportSource[] = input.sources.map((s, i) => {
    const label = labels[i]!;
    const fileName = `${label.replace(/[/\\:]/g, '_')}.${s.ext}`;
    return {
      id: s.id,
      label,
      kind: s.kind,
      fileName,
      url: mediaUrl(fileName, input.mediaRoot),
      reel: reels[i]!,
      clock: { offsetMs: s.offsetMs ?? 0, driftPpm: s.driftPpm ?? 0 },
      durationFrames: s.durationMs === undefined ? null : Math.floor(s.durationMs / ms + 1e-6),
      width: wholePositive(s.width),
      height: wholePositive(s.height),
      sampleRate: wholePositive(s.sampleRate),
      channels: wholePositive(s.channels),
      timecode: s.timecode && validSourceTimecode(s.timecode) ? s.timecode : null,
      timecodeStart: timecodeStartAt(s.timecode, input.rate),
      gain: input.gains?.[s.id] ? { ...input.gains[s.id]! } : null,
    };
  });
  const kind = new Map(sources.map((s) => [s.id, s.kind]));
  input.cuts.forEach((c, i) => {
    if (kind.get(c.sourceId) !== 'video')
      throw new ExportError(
        `cuts[${i}].sourceId`,
        `cuts[${i}].sourceId ${c.sourceId} is an audio source; cuts show cameras`,
      );
  });

  let pieces: Array<{ sourceId: string; startMs: number; endMs: number; reason?: string }>;
  try {
    pieces = keptPieces(input.cuts, input.removedRanges);
  } catch (error) {
    if (error instanceof RenderPlanError) throw new ExportError(error.field, error.message);
    throw error;
  }
  const events: TimelineEvent[] = [];
  const names = input.speakerNames ?? {};
  const noteOf = (p: { reason?: string }): string =>
    p.reason === undefined ? '' : plainLine(withSpeakerNames(p.reason, names));
  let record = 0;
  for (const p of pieces) {
    const referenceIn = Math.round(p.startMs / ms);
    const referenceOut = Math.round(p.endMs / ms);
    if (referenceOut <= referenceIn) continue; // shorter than half a frame: gone on the frame grid
    const last = events[events.length - 1];
    const note = noteOf(p);
    if (last && last.sourceId === p.sourceId && last.referenceOut === referenceIn) {
      last.referenceOut = referenceOut;
      last.recordOut += referenceOut - referenceIn;
      // One event from several cuts of the same camera: every reason, once, in order.
      if (note !== '' && !last.note.split(' / ').includes(note))
        last.note = last.note === '' ? note : `${last.note} / ${note}`;
    } else {
      events.push({
        sourceId: p.sourceId,
        recordIn: record,
        recordOut: record + referenceOut - referenceIn,
        referenceIn,
        referenceOut,
        note,
      });
    }
    record += referenceOut - referenceIn;
  }
  return {
    name: plainLine(input.name),
    rate: input.rate,
    width: input.width ?? DEFAULT_WIDTH,
    height: input.height ?? DEFAULT_HEIGHT,
    durationFrames: record,
    recordStart: input.recordStart ?? 0,
    sources,
    cameras: sources.filter((s) => s.kind === 'video'),
    audio: sources.filter((s) => s.kind === 'audio'),
    events,
  };
}
