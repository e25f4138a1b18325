/**
 * Final Cut Pro 7 XML (`xmeml` version 5), the XML Premiere Pro imports (and Resolve, Avid via
 * tools). Premiere's import drops multiclips, so the cameras become stacked video tracks:
 * track N holds camera N over the whole edit, its clipitems enabled where that camera is live
 * and disabled elsewhere, so switching a camera is toggling a clip. Audio tracks carry the
 * audio sources (or the live camera's sound when the job has none). Pure: an
 * {@link EditTimeline} in, a string out. Times are frames at `timebase`/`ntsc`.
 *
 * @module
 */
import { isNtsc, supportsDropFrame, timebaseOf, toTimecode } from './rate.ts';
import { mergeContinuous, sourceRange, type EditTimeline, type ExportSource, type SourceRange } from './timeline.ts';
import { el, xmlDocument, type XmlNode } from './xml.ts';

/** Options of {@link writeXmeml}. */
export interface XmemlOptions {
  width?: number;
  height?: number;
  /** Drop-frame timecode at 29.97/59.94; default true. */
  dropFrame?: boolean;
}

/**
 * The edit as an xmeml sequence with one video track per camera.
 *
 * @example
 * const xml = writeXmeml(buildTimeline({ name: 'Ep 12', sources, cuts, removedRanges, rate: frameRateOf(25) }));
 */
export function writeXmeml(t: EditTimeline, options: XmemlOptions = {}): string {
  const { width = 1920, height = 1080 } = options;
  const dropFrame = (options.dropFrame ?? true) && supportsDropFrame(t.rate);
  const rate = (): XmlNode =>
    el('rate', {}, [el('timebase', {}, timebaseOf(t.rate)), el('ntsc', {}, isNtsc(t.rate) ? 'TRUE' : 'FALSE')]);
  const timecode = (frame: number): XmlNode =>
    el('timecode', {}, [
      rate(),
      el('string', {}, toTimecode(frame, t.rate, dropFrame)),
      el('frame', {}, frame),
      el('displayformat', {}, dropFrame ? 'DF' : 'NDF'),
    ]);

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
        el('video', {}, [el('samplecharacteristics', {}, [rate(), el('width', {}, width), el('height', {}, height)])]),
      );
    media.push(
      el('audio', {}, [
        el('samplecharacteristics', {}, [el('depth', {}, 16), el('samplerate', {}, 48000)]),
        el('channelcount', {}, 2),
      ]),
    );
    return el('file', { id }, [
      el('name', {}, s.fileName),
      el('pathurl', {}, s.url),
      rate(),
      el('duration', {}, s.durationFrames ?? frames),
      timecode(0),
      el('media', {}, media),
    ]);
  };
  const clipitem = (s: ExportSource, r: SourceRange, enabled: boolean, kind: 'video' | 'audio'): XmlNode => {
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
    if (kind === 'audio') children.push(el('sourcetrack', {}, [el('mediatype', {}, 'audio'), el('trackindex', {}, 1)]));
    return el('clipitem', { id: `clipitem-${clipCount}` }, children);
  };

  const videoTracks = t.cameras.map((camera) => {
    const items: XmlNode[] = [];
    for (const e of t.events) {
      const r = sourceRange(camera, e, t.rate);
      if (r) items.push(clipitem(camera, r, e.sourceId === camera.id, 'video'));
    }
    return el('track', {}, [...items, el('enabled', {}, 'TRUE'), el('locked', {}, 'FALSE')]);
  });

  const audioTracks: XmlNode[] = [];
  if (t.audio.length > 0) {
    for (const s of t.audio) {
      const ranges = mergeContinuous(
        t.events.map((e) => sourceRange(s, e, t.rate)).filter((r): r is SourceRange => r !== null),
      );
      audioTracks.push(
        el('track', {}, [
          ...ranges.map((r) => clipitem(s, r, true, 'audio')),
          el('enabled', {}, 'TRUE'),
          el('locked', {}, 'FALSE'),
        ]),
      );
    }
  } else {
    const items: XmlNode[] = [];
    for (const e of t.events) {
      const camera = t.cameras.find((c) => c.id === e.sourceId)!;
      const r = sourceRange(camera, e, t.rate);
      if (r) items.push(clipitem(camera, r, true, 'audio'));
    }
    audioTracks.push(el('track', {}, [...items, el('enabled', {}, 'TRUE'), el('locked', {}, 'FALSE')]));
  }

  const root = el('xmeml', { version: 5 }, [
    el('sequence', { id: 'sequence-1' }, [
      el('name', {}, t.name),
      el('duration', {}, t.durationFrames),
      rate(),
      timecode(0),
      el('media', {}, [
        el('video', {}, [
          el('format', {}, [
            el('samplecharacteristics', {}, [rate(), el('width', {}, width), el('height', {}, height)]),
          ]),
          ...videoTracks,
        ]),
        el('audio', {}, audioTracks),
      ]),
    ]),
  ]);
  return xmlDocument('xmeml', root);
}
