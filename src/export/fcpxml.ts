/**
 * FCPXML 1.10 (Final Cut Pro 10.6+, DaVinci Resolve): the sources as one multicam clip and the
 * edit as a spine of `mc-clip`s, so every cut stays an angle switch. Pure: an
 * {@link EditTimeline} in, a string out.
 *
 * Layout: `resources` hold one `format`, one `asset` per source (`media-rep src` = the file
 * name) and a `media` with the `multicam`: one `mc-angle` per source, its `asset-clip` placed on
 * the multicam (reference) timeline at the source's sync offset. A source with clock drift gets
 * one asset-clip per event instead, each starting at its drift-corrected frame, so sync holds
 * at every cut. The project's spine has one `mc-clip` per event: `start` is the reference frame,
 * `mc-source srcEnable="video"` picks the live camera, and the audio comes from the audio
 * sources (or from the live camera when the job has none); a source's clip gain is an
 * `adjust-volume amount="-4.5dB"` on each of its angle's asset-clips. Times are rational seconds in
 * whole frames (`1001/30000s`); the format is the timeline's rate and frame size, each asset
 * declares its file's own audio rate and channels. Timecode: each asset's `start` is its file's
 * start timecode (so its asset-clips' `start` are the camera's own timecode), and the
 * sequence's `tcStart` is the record start (01:00:00:00 by default), which its spine's offsets
 * count from, as Final Cut and Resolve write them.
 *
 * @module
 */
import { rationalSeconds, supportsDropFrame, type FrameRate } from './rate.ts';
import {
  MUTED_DB,
  sourceFrameAt,
  sourceRange,
  type ClipGain,
  type EditTimeline,
  type ExportSource,
} from './timeline.ts';
import { el, xmlDocument, type XmlNode } from './xml.ts';

/** Options of {@link writeFcpxml}. */
export interface FcpxmlOptions {
  /** Frame size of the format; default the timeline's (the main camera's). */
  width?: number;
  height?: number;
  /** Drop-frame timecode display at 29.97/59.94; default true. */
  dropFrame?: boolean;
}

/** One asset-clip of an angle on the multicam timeline (reference frames). */
interface AngleClip {
  offset: number;
  start: number;
  duration: number;
}

/** The FCPXML version written. */
export const FCPXML_VERSION = '1.10';

/** Angle id of a source: stable and unique within the document. */
export function angleIdOf(source: Pick<ExportSource, 'id'>): string {
  return `angle-${source.id}`;
}

/** Where a source's media sits on the multicam (reference) timeline. */
function angleClips(source: ExportSource, t: EditTimeline): AngleClip[] {
  const extent = t.events.reduce((m, e) => Math.max(m, e.referenceOut), 0);
  if (source.clock.driftPpm === 0) {
    // No drift: the whole file, placed at its sync offset (editors keep handles around every cut).
    const s0 = sourceFrameAt(source, 0, t.rate);
    const refStart = Math.max(0, -s0);
    const refEnd = source.durationFrames === null ? Math.max(extent, refStart) : source.durationFrames - s0;
    return refEnd > refStart ? [{ offset: refStart, start: refStart + s0, duration: refEnd - refStart }] : [];
  }
  const clips: AngleClip[] = [];
  for (const e of t.events) {
    const r = sourceRange(
      source,
      { recordIn: e.referenceIn, recordOut: e.referenceOut, referenceIn: e.referenceIn },
      t.rate,
    );
    if (!r) continue;
    const last = clips[clips.length - 1];
    if (last && last.offset + last.duration === r.recordIn && last.start + last.duration === r.sourceIn)
      last.duration += r.recordOut - r.recordIn;
    else clips.push({ offset: r.recordIn, start: r.sourceIn, duration: r.recordOut - r.recordIn });
  }
  return clips;
}

/** Asset duration in frames: the file's, or as far as the edit uses it. */
function assetFrames(source: ExportSource, clips: readonly AngleClip[]): number {
  if (source.durationFrames !== null) return source.durationFrames;
  return clips.reduce((m, c) => Math.max(m, c.start + c.duration), 1);
}

/** Final Cut's most clip volume, dB. */
const MAX_VOLUME_DB = 12;

/** `adjust-volume`'s amount: `-4.5dB`, at most Final Cut's +12 dB (its floor, −96 dB, for a muted source). */
export function volumeAmount(gain: ClipGain): string {
  return `${gain.muted ? MUTED_DB : Math.min(MAX_VOLUME_DB, Number(gain.db.toFixed(2)))}dB`;
}

/** A source's angle of the multicam clip: its asset-clips at their reference frames, gaps between them. */
function mcAngle(
  t: EditTimeline,
  s: ExportSource,
  clips: readonly AngleClip[],
  ref: string,
  tcFormat: string,
): XmlNode {
  const time = (frames: number): string => rationalSeconds(frames, t.rate);
  const children: XmlNode[] = [];
  let at = 0;
  for (const c of clips) {
    if (c.offset > at)
      children.push(el('gap', { name: 'Gap', offset: time(at), start: time(at), duration: time(c.offset - at) }));
    children.push(
      el(
        'asset-clip',
        {
          ref,
          offset: time(c.offset),
          name: s.label,
          start: time(s.timecodeStart + c.start),
          duration: time(c.duration),
          tcFormat,
        },
        // The source's clip gain, wherever the multicam hears this angle.
        s.gain ? [el('adjust-volume', { amount: volumeAmount(s.gain) })] : [],
      ),
    );
    at = c.offset + c.duration;
  }
  return el('mc-angle', { name: s.label, angleID: angleIdOf(s) }, children);
}

/** The sequence's spine: an mc-clip per event, showing its camera's angle and hearing the audio angles. */
function mcSpine(t: EditTimeline, multicamId: string): XmlNode[] {
  const time = (frames: number): string => rationalSeconds(frames, t.rate);
  const audioAngles = t.audio.map(angleIdOf);
  return t.events.map((e) => {
    const camera = t.cameras.find((c) => c.id === e.sourceId)!;
    const sources = [
      el('mc-source', { angleID: angleIdOf(camera), srcEnable: audioAngles.length === 0 ? 'all' : 'video' }),
      ...audioAngles.map((id) => el('mc-source', { angleID: id, srcEnable: 'audio' })),
    ];
    return el(
      'mc-clip',
      {
        ref: multicamId,
        offset: time(t.recordStart + e.recordIn),
        name: `${t.name} Multicam`,
        start: time(e.referenceIn),
        duration: time(e.recordOut - e.recordIn),
      },
      // The reason the camera is live, as a marker at the clip's first frame (clip-local time).
      e.note === ''
        ? sources
        : [...sources, el('marker', { start: time(e.referenceIn), duration: time(1), value: e.note })],
    );
  });
}

/**
 * The edit as an FCPXML 1.10 document with a multicam clip.
 *
 * @example
 * const xml = writeFcpxml(buildTimeline({ name: 'Ep 12', sources, cuts, removedRanges, rate: frameRateOf(29.97) }));
 */
export function writeFcpxml(t: EditTimeline, options: FcpxmlOptions = {}): string {
  const time = (frames: number): string => rationalSeconds(frames, t.rate);
  const tcFormat = (options.dropFrame ?? true) && supportsDropFrame(t.rate) ? 'DF' : 'NDF';
  const formatId = 'r1';
  const assetId = new Map(t.sources.map((s, i) => [s.id, `r${i + 2}`]));
  const multicamId = `r${t.sources.length + 2}`;
  const clipsBySource = new Map(t.sources.map((s) => [s.id, angleClips(s, t)]));

  const assets = t.sources.map((s) =>
    el(
      'asset',
      {
        id: assetId.get(s.id),
        name: s.label,
        // The file's start timecode: its asset-clips' `start` count from it.
        start: time(s.timecodeStart),
        duration: time(assetFrames(s, clipsBySource.get(s.id)!)),
        hasVideo: s.kind === 'video' ? '1' : undefined,
        format: s.kind === 'video' ? formatId : undefined,
        hasAudio: '1',
        audioSources: '1',
        // The file's own audio format as probed (a 16 kHz mono mic is declared so); stereo 48 kHz when unknown.
        audioChannels: String(s.channels ?? 2),
        audioRate: String(s.sampleRate ?? 48000),
      },
      [el('media-rep', { kind: 'original-media', src: s.url })],
    ),
  );

  const angles = t.sources.map((s) => mcAngle(t, s, clipsBySource.get(s.id)!, assetId.get(s.id)!, tcFormat));
  const spine = mcSpine(t, multicamId);

  const { width = t.width, height = t.height } = options;
  const root = el('fcpxml', { version: FCPXML_VERSION }, [
    el('resources', {}, [
      el('format', { id: formatId, name: formatName(t.rate, width, height), frameDuration: time(1), width, height }),
      ...assets,
      el('media', { id: multicamId, name: `${t.name} Multicam` }, [
        el('multicam', { format: formatId, tcStart: '0s', tcFormat }, angles),
      ]),
    ]),
    el('library', {}, [
      el('event', { name: t.name }, [
        el('project', { name: t.name }, [
          el(
            'sequence',
            {
              format: formatId,
              duration: time(t.durationFrames),
              tcStart: time(t.recordStart),
              tcFormat,
              audioLayout: 'stereo',
              audioRate: '48k',
            },
            [el('spine', {}, spine)],
          ),
        ]),
      ]),
    ]),
  ]);
  return xmlDocument('fcpxml', root);
}

/** Final Cut's name of a standard format (`FFVideoFormat1080p2997`); custom sizes have none. */
function formatName(rate: FrameRate, width: number, height: number): string | undefined {
  const lines: Record<string, number> = { '1280x720': 720, '1920x1080': 1080, '3840x2160': 2160 };
  const line = lines[`${width}x${height}`];
  if (line === undefined) return undefined;
  const fps = rate.num / rate.den;
  const digits = Number.isInteger(fps) ? String(fps) : (Math.round(fps * 100) / 100).toFixed(2).replace('.', '');
  return `FFVideoFormat${line === 2160 ? '3840x2160' : line}p${digits}`;
}
