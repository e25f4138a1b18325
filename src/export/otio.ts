/**
 * OpenTimelineIO JSON (`.otio`): a Timeline.1 whose Stack.1 holds one Video Track.1 per camera
 * (a Clip.2 where that camera is live, a Gap.1 elsewhere) and the audio tracks (one per audio
 * source, or the live camera's sound when the job has none). Clips point at the original files
 * through ExternalReference.1 `target_url`; `source_range` is in the source's own frames counted
 * from its start timecode, which is the reference's `available_range.start_time` (as OTIO's
 * EDL and AAF adapters read it; 0 for a file without timecode). Reels are in
 * `metadata.cmx_3600.reel` of clips and references, the key OTIO's CMX 3600 adapter writes and
 * reads. The timeline's `global_start_time` is the record start (01:00:00:00 by default).
 * Times are RationalTime.1 `{ value, rate }` with the exact rate (29.97 as 30000/1001 = 29.97002997…).
 * Pure: an {@link EditTimeline} in, a string out.
 *
 * @module
 */
import { fpsOf } from './rate.ts';
import { mergeContinuous, sourceRange, type EditTimeline, type ExportSource, type SourceRange } from './timeline.ts';

type Json = Record<string, unknown>;

type TrackItem = { source: ExportSource; range: SourceRange; note?: string };

function otioTime(rate: number, value: number): Json {
  return { OTIO_SCHEMA: 'RationalTime.1', rate, value };
}

function otioRange(rate: number, start: number, duration: number): Json {
  return { OTIO_SCHEMA: 'TimeRange.1', duration: otioTime(rate, duration), start_time: otioTime(rate, start) };
}

function otioGap(rate: number, frames: number): Json {
  return {
    OTIO_SCHEMA: 'Gap.1',
    metadata: {},
    name: '',
    source_range: otioRange(rate, 0, frames),
    effects: [],
    markers: [],
    enabled: true,
  };
}

/** The file's probed format (what OTIO's schema has no field for), as far as it is known. */
function mediaMetadata(s: ExportSource): Json {
  const out: Json = {};
  if (s.timecode) out.timecode = { ...s.timecode, frameRate: { ...s.timecode.frameRate } };
  if (s.width !== null && s.height !== null) Object.assign(out, { width: s.width, height: s.height });
  if (s.sampleRate !== null) out.sampleRate = s.sampleRate;
  if (s.channels !== null) out.channels = s.channels;
  return out;
}

function otioClip(rate: number, s: ExportSource, r: SourceRange, extent: number, note = ''): Json {
  const from = s.timecodeStart;
  return {
    OTIO_SCHEMA: 'Clip.2',
    metadata: {
      cmx_3600: { reel: s.reel },
      multicam: { sourceId: s.id, reel: s.reel, ...(note === '' ? {} : { reason: note }) },
    },
    name: s.label,
    source_range: otioRange(rate, from + r.sourceIn, r.sourceOut - r.sourceIn),
    effects: [],
    // The reason the camera is live, as a marker at the clip's first frame (the clip's source time).
    markers:
      note === ''
        ? []
        : [
            {
              OTIO_SCHEMA: 'Marker.2',
              metadata: {},
              name: note,
              color: 'GREEN',
              comment: note,
              marked_range: otioRange(rate, from + r.sourceIn, 0),
            },
          ],
    enabled: true,
    media_references: {
      DEFAULT_MEDIA: {
        OTIO_SCHEMA: 'ExternalReference.1',
        metadata: { cmx_3600: { reel: s.reel }, multicam: mediaMetadata(s) },
        name: s.fileName,
        // Always given (OTIO's AAF writer needs it): the file's frames from its start timecode;
        // as far as the edit uses it when the file's length is not known.
        available_range: otioRange(rate, from, s.durationFrames ?? extent),
        available_image_bounds: null,
        target_url: s.url,
      },
    },
    active_media_reference_key: 'DEFAULT_MEDIA',
  };
}

/** A track: clips at their record frames, gaps between them; one gap over the edit when it has no clip. */
function otioTrack(
  t: EditTimeline,
  name: string,
  kind: 'Video' | 'Audio',
  items: readonly TrackItem[],
  extents: ReadonlyMap<string, number>,
): Json {
  const rate = fpsOf(t.rate);
  const children: Json[] = [];
  let at = 0;
  for (const { source, range: r, note } of items) {
    if (r.recordIn > at) children.push(otioGap(rate, r.recordIn - at));
    children.push(otioClip(rate, source, r, extents.get(source.id) ?? r.sourceOut, note));
    at = r.recordOut;
  }
  // OTIO's AAF writer reads a track's rate from its first child: an empty track would fail it.
  if (children.length === 0 && t.durationFrames > 0) children.push(otioGap(rate, t.durationFrames));
  return {
    OTIO_SCHEMA: 'Track.1',
    metadata: {},
    name,
    source_range: null,
    effects: [],
    markers: [],
    enabled: true,
    children,
    kind,
  };
}

/**
 * The edit as an OTIO document.
 *
 * @example
 * const otio = JSON.parse(writeOtio(timeline)); // otio.tracks.children[0].kind === 'Video'
 */
export function writeOtio(t: EditTimeline): string {
  const rate = fpsOf(t.rate);
  // How far the edit uses each file (its reference's length when the file's is not known).
  const extents = new Map<string, number>();
  for (const e of t.events)
    for (const s of t.sources) {
      const r = sourceRange(s, e, t.rate);
      if (r) extents.set(s.id, Math.max(extents.get(s.id) ?? 0, r.sourceOut));
    }
  const track = (name: string, kind: 'Video' | 'Audio', items: readonly TrackItem[]): Json =>
    otioTrack(t, name, kind, items, extents);
  const live = (e: EditTimeline['events'][number]): TrackItem | null => {
    const source = t.cameras.find((c) => c.id === e.sourceId)!;
    const r = sourceRange(source, e, t.rate);
    return r ? { source, range: r, note: e.note } : null;
  };
  const present = <T>(x: T | null): x is T => x !== null;

  const video = t.cameras.map((camera) =>
    track(
      camera.label,
      'Video',
      t.events
        .filter((e) => e.sourceId === camera.id)
        .map(live)
        .filter(present),
    ),
  );
  const audio =
    t.audio.length > 0
      ? t.audio.map((s) =>
          track(
            s.label,
            'Audio',
            mergeContinuous(t.events.map((e) => sourceRange(s, e, t.rate)).filter(present)).map((r) => ({
              source: s,
              range: r,
            })),
          ),
        )
      : [
          track(
            'Camera audio',
            'Audio',
            t.events
              .map(live)
              .filter(present)
              .map(({ source, range }) => ({ source, range })),
          ),
        ];

  const timeline = {
    OTIO_SCHEMA: 'Timeline.1',
    // The timeline's exact rate and frame size (the main camera's): RationalTime's float rate loses the fraction.
    metadata: { multicam: { rate: { num: t.rate.num, den: t.rate.den }, width: t.width, height: t.height } },
    name: t.name,
    // The record start: OTIO's EDL writer and editors count the timeline's timecode from it.
    global_start_time: otioTime(rate, t.recordStart),
    tracks: {
      OTIO_SCHEMA: 'Stack.1',
      metadata: {},
      name: 'tracks',
      source_range: null,
      effects: [],
      markers: [],
      enabled: true,
      children: [...video, ...audio],
    },
  };
  return `${JSON.stringify(timeline, null, 4)}\n`;
}
