/**
 * Final Cut Pro 7 XML (`xmeml` version 5), the XML Premiere Pro imports (and Resolve, Avid via
 * tools). Premiere's import drops multiclips, so the cameras become stacked video tracks:
 * V1…VN hold camera N over the whole edit, its clipitems enabled where that camera is live
 * and disabled elsewhere (switching a camera is toggling a clip), and the top track, V(N+1),
 * holds the cut itself: the live camera's clip for every event. A reader shows the top track
 * wherever it has a clip, so the chosen camera is what plays whether or not it honours
 * `enabled` (OTIO's FCP 7 adapter does not). Audio tracks carry the audio sources (or the live
 * camera's sound when the job has none), a source's clip gain as an Audio Levels filter
 * (linear `level`) on each of its audio clipitems. Timecode: the sequence's `<timecode>` is the record
 * start (01:00:00:00 by default), each file's `<timecode>` its own start timecode with its reel
 * name; clipitem `in`/`out` count media frames from the file's start, as the format has it.
 * Pure: an {@link EditTimeline} in, a string out. Times are frames at `timebase`/`ntsc`.
 *
 * @module
 */
import { isNtsc, supportsDropFrame, timebaseOf, toTimecode } from './rate.ts';
import {
  mergeContinuous,
  sourceRange,
  type ClipGain,
  type EditTimeline,
  type ExportSource,
  type SourceRange,
} from './timeline.ts';
import { el, xmlDocument, type XmlNode } from './xml.ts';

/** Options of {@link writeXmeml}. */
export interface XmemlOptions {
  width?: number;
  height?: number;
  /** Drop-frame timecode at 29.97/59.94; default true. */
  dropFrame?: boolean;
}

/** What every clip and file of the sequence is written with. */
interface XmemlFormat {
  t: EditTimeline;
  width: number;
  height: number;
  dropFrame: boolean;
}

function xmemlRate(t: EditTimeline): XmlNode {
  return el('rate', {}, [el('timebase', {}, timebaseOf(t.rate)), el('ntsc', {}, isNtsc(t.rate) ? 'TRUE' : 'FALSE')]);
}

function xmemlTimecode({ t, dropFrame }: XmemlFormat, frame: number, reel?: string): XmlNode {
  return el('timecode', {}, [
    xmemlRate(t),
    el('string', {}, toTimecode(frame, t.rate, dropFrame)),
    el('frame', {}, frame),
    el('displayformat', {}, dropFrame ? 'DF' : 'NDF'),
    reel === undefined ? null : el('reel', {}, [el('name', {}, reel)]),
  ]);
}

/** Premiere's and Final Cut 7's most gain, +12 dB, as Audio Levels' linear level. */
const MAX_LEVEL = 3.98107;

/** Audio Levels' `level`: linear gain (1 is 0 dB, 0.501187 is −6 dB, 0 is silence for a muted source). */
export function linearLevel(gain: ClipGain): number {
  return gain.muted ? 0 : Math.min(MAX_LEVEL, Number((10 ** (gain.db / 20)).toFixed(6)));
}

/** The Audio Levels filter that carries a clip's gain, as Final Cut Pro 7 writes it (Premiere reads it). */
function audioLevels(gain: ClipGain): XmlNode {
  return el('filter', {}, [
    el('enabled', {}, 'TRUE'),
    el('start', {}, -1),
    el('end', {}, -1),
    el('effect', {}, [
      el('name', {}, 'Audio Levels'),
      el('effectid', {}, 'audiolevels'),
      el('effectcategory', {}, 'audiolevels'),
      el('effecttype', {}, 'audiolevels'),
      el('mediatype', {}, 'audio'),
      el('parameter', {}, [
        el('parameterid', {}, 'level'),
        el('name', {}, 'Level'),
        el('valuemin', {}, 0),
        el('valuemax', {}, MAX_LEVEL),
        el('value', {}, linearLevel(gain)),
      ]),
    ]),
  ]);
}

type ClipitemWriter = (s: ExportSource, r: SourceRange, enabled: boolean, kind: 'video' | 'audio') => XmlNode;

/** Writes clipitems numbered in call order; a file's first clipitem describes it, later ones point at it by id. */
function clipitemWriter(format: XmemlFormat): ClipitemWriter {
  const { t, width, height } = format;
  const rate = (): XmlNode => xmemlRate(t);
  const fileId = new Map(t.sources.map((s, i) => [s.id, `file-${i + 1}`]));
  const described = new Set<string>();
  let clipCount = 0;
  const file = (s: ExportSource, frames: number): XmlNode => {
    const id = fileId.get(s.id)!;
    // The first clipitem describes the file; later ones point at it by id.
    if (described.has(id)) return el('file', { id });
    described.add(id);
    const media: XmlNode[] = [];
    if (s.kind === 'video')
      media.push(
        el('video', {}, [
          el('samplecharacteristics', {}, [
            rate(),
            el('width', {}, s.width ?? width),
            el('height', {}, s.height ?? height),
          ]),
        ]),
      );
    // The file's own frame size and audio format as probed; the sequence's when unknown.
    media.push(
      el('audio', {}, [
        el('samplecharacteristics', {}, [el('depth', {}, 16), el('samplerate', {}, s.sampleRate ?? 48000)]),
        el('channelcount', {}, s.channels ?? 2),
      ]),
    );
    return el('file', { id }, [
      el('name', {}, s.fileName),
      el('pathurl', {}, s.url),
      rate(),
      el('duration', {}, s.durationFrames ?? frames),
      xmemlTimecode(format, s.timecodeStart, s.reel),
      el('media', {}, media),
    ]);
  };
  return (s, r, enabled, kind) => {
    clipCount += 1;
    const children: XmlNode[] = [
      el('name', {}, s.label),
      el('enabled', {}, enabled ? 'TRUE' : 'FALSE'),
      el('duration', {}, s.durationFrames ?? r.sourceOut),
      rate(),
      el('start', {}, r.recordIn),
      el('end', {}, r.recordOut),
      el('in', {}, r.sourceIn),
      el('out', {}, r.sourceOut),
      file(s, r.sourceOut),
    ];
    if (kind === 'audio') {
      children.push(el('sourcetrack', {}, [el('mediatype', {}, 'audio'), el('trackindex', {}, 1)]));
      if (s.gain) children.push(audioLevels(s.gain));
    }
    return el('clipitem', { id: `clipitem-${clipCount}` }, children);
  };
}

function xmemlTrack(items: readonly XmlNode[]): XmlNode {
  return el('track', {}, [...items, el('enabled', {}, 'TRUE'), el('locked', {}, 'FALSE')]);
}

/** The audio tracks: one per audio source, or the live camera's sound when the job has none. */
function xmemlAudioTracks(t: EditTimeline, clipitem: ClipitemWriter): XmlNode[] {
  if (t.audio.length > 0)
    return t.audio.map((s) => {
      const ranges = mergeContinuous(
        t.events.map((e) => sourceRange(s, e, t.rate)).filter((r): r is SourceRange => r !== null),
      );
      return xmemlTrack(ranges.map((r) => clipitem(s, r, true, 'audio')));
    });
  const items: XmlNode[] = [];
  for (const e of t.events) {
    const camera = t.cameras.find((c) => c.id === e.sourceId)!;
    const r = sourceRange(camera, e, t.rate);
    if (r) items.push(clipitem(camera, r, true, 'audio'));
  }
  return [xmemlTrack(items)];
}

/**
 * The edit as an xmeml sequence: one video track per camera, the cut on the top track.
 *
 * @example
 * const xml = writeXmeml(buildTimeline({ name: 'Ep 12', sources, cuts, removedRanges, rate: frameRateOf(25) }));
 */
export function writeXmeml(t: EditTimeline, options: XmemlOptions = {}): string {
  const { width = t.width, height = t.height } = options;
  const dropFrame = (options.dropFrame ?? true) && supportsDropFrame(t.rate);
  const format: XmemlFormat = { t, width, height, dropFrame };
  const rate = (): XmlNode => xmemlRate(t);
  const clipitem = clipitemWriter(format);

  const videoTracks = t.cameras.map((camera) => {
    const items: XmlNode[] = [];
    for (const e of t.events) {
      const r = sourceRange(camera, e, t.rate);
      if (r) items.push(clipitem(camera, r, e.sourceId === camera.id, 'video'));
    }
    return xmemlTrack(items);
  });
  // The cut on top: the live camera's clip for every event.
  const cutItems: XmlNode[] = [];
  for (const e of t.events) {
    const camera = t.cameras.find((c) => c.id === e.sourceId)!;
    const r = sourceRange(camera, e, t.rate);
    if (r) cutItems.push(clipitem(camera, r, true, 'video'));
  }
  videoTracks.push(xmemlTrack(cutItems));
  const audioTracks = xmemlAudioTracks(t, clipitem);

  const root = el('xmeml', { version: 5 }, [
    el('sequence', { id: 'sequence-1' }, [
      el('name', {}, t.name),
      el('duration', {}, t.durationFrames),
      rate(),
      xmemlTimecode(format, t.recordStart),
      el('media', {}, [
        el('video', {}, [
          el('format', {}, [
            el('samplecharacteristics', {}, [rate(), el('width', {}, width), el('height', {}, height)]),
          ]),
          ...videoTracks,
        ]),
        el('audio', {}, audioTracks),
      ]),
      // Why each camera is live: a sequence marker at the event's first frame.
      ...t.events
        .filter((e) => e.note !== '')
        .map((e) =>
          el('marker', {}, [
            el('name', {}, e.note),
            el('comment', {}, e.note),
            el('in', {}, e.recordIn),
            el('out', {}, -1),
          ]),
        ),
    ]),
  ]);
  return xmlDocument('xmeml', root);
}
