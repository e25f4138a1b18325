/**
 * OpenTimelineIO JSON (`.otio`): a Timeline.1 whose Stack.1 holds one Video Track.1 per camera
 * (a Clip.2 where that camera is live, a Gap.1 elsewhere) and the audio tracks (one per audio
 * source, or the live camera's sound when the job has none). Clips point at the original files
 * through ExternalReference.1 `target_url`; `source_range` is in the source's own frames counted
 * from its start timecode, which is the reference's `available_range.start_time` (as OTIO's
 * EDL and AAF adapters read it; 0 for a file without timecode). Reels are in
 * `metadata.cmx_3600.reel` of clips and references, the key OTIO's CMX 3600 adapter writes and
 * reads. The timeline's `global_start_time` is the record start (01:00:00:00 by default).
 * Each reference also carries `metadata.AAF.MobID`, one stable SMPTE UMID per file of the job,
 * so that OTIO's AAF writer makes one master clip per file (not one per clip) without
 * `use_empty_mob_ids`.
 * OTIO has no standard audio gain: a source's clip gain is in its audio clips'
 * `metadata.multicam.gain` (`{ db, levellingDb, nudgeDb, muted }`), which no adapter reads; a
 * muted source's audio clips are disabled (`enabled: false`).
 * Times are RationalTime.1 `{ value, rate }` with the exact rate (29.97 as 30000/1001 = 29.97002997…).
 * Pure: an {@link EditTimeline} in, a string out.
 *
 * @module
 */
import { fpsOf } from './rate.ts';
import {
  mergeContinuous,
  sourceRange,
  type ClipGain,
  type EditTimeline,
  type ExportSource,
  type SourceRange,
} from './timeline.ts';

type Json = Record<string, unknown>;

type TrackItem = { source: ExportSource; range: SourceRange; note?: string };

/** Options of {@link writeOtio}. */
export interface OtioOptions {
  /**
   * What makes the files' AAF MobIDs unique to this edit (exportEdit passes the job's id);
   * default the timeline's name. The same id and source id always give the same MobID.
   */
  documentId?: string;
}

/**
 * A 128-bit hash of `text`: four 32-bit multiply–xor lanes with different multipliers, each
 * finished with MurmurHash3's fmix32 and mixed into the others. A stable dumb number for an
 * identifier, not a cryptographic hash.
 */
function hash128(text: string): Uint8Array {
  const primes = [0x01000193, 0x5bd1e995, 0xcc9e2d51, 0x1b873593];
  const lanes = [0x811c9dc5, 0x9e3779b9, 0x85ebca6b, 0xc2b2ae35];
  for (let i = 0; i < text.length; i++)
    for (let l = 0; l < 4; l++) lanes[l] = Math.imul(lanes[l]! ^ text.charCodeAt(i), primes[l]!);
  const fmix = (h: number): number => {
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  const out = new Uint8Array(16);
  const view = new DataView(out.buffer);
  for (let l = 0; l < 4; l++) {
    const mixed = fmix(lanes[l]! ^ Math.imul(lanes[(l + 1) % 4]!, 0x27d4eb2f) ^ text.length);
    view.setUint32(l * 4, mixed);
  }
  return out;
}

/**
 * The AAF MobID of one file of an edit, as OTIO's AAF writer reads it (`metadata.AAF.MobID`
 * of a media reference, parsed by pyaaf2's `MobID.urn`): a basic SMPTE UMID (ST 330) whose
 * universal label says "material type not identified, UUID/UL number method" (byte 12 `0x20`,
 * as pyaaf2's own `MobID.new()` writes) and whose material number is a name-based UUID
 * (version 8, RFC 9562) of `documentId` and the source's id.
 *
 * @example
 * aafMobId('job-1', 'src-a'); // 'urn:smpte:umid:060a2b34.01010105.01010f20.13000000.xxxxxxxx.xxxx8xxx.yxxxxxxx.xxxxxxxx'
 */
export function aafMobId(documentId: string, sourceId: string): string {
  const material = hash128(`multicam AAF MobID\u0000${documentId}\u0000${sourceId}`);
  material[6] = (material[6]! & 0x0f) | 0x80; // UUID version 8: custom (name-based here)
  material[8] = (material[8]! & 0x3f) | 0x80; // RFC 4122/9562 variant
  const hex = [...material].map((b) => b.toString(16).padStart(2, '0')).join('');
  const groups = [0, 8, 16, 24].map((at) => hex.slice(at, at + 8));
  return `urn:smpte:umid:060a2b34.01010105.01010f20.13000000.${groups.join('.')}`;
}

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

/**
 * The clip gain of an audio clip in `metadata.multicam.gain` (OTIO has no standard audio gain, so
 * no adapter reads it): `{ db, levellingDb, nudgeDb, muted }`.
 */
function gainMetadata(gain: ClipGain | null): Json {
  return gain ? { gain: { ...gain } } : {};
}

function otioClip(
  rate: number,
  s: ExportSource,
  mobId: string,
  r: SourceRange,
  extent: number,
  note = '',
  gain: ClipGain | null = null,
): Json {
  const from = s.timecodeStart;
  return {
    OTIO_SCHEMA: 'Clip.2',
    metadata: {
      cmx_3600: { reel: s.reel },
      multicam: { sourceId: s.id, reel: s.reel, ...(note === '' ? {} : { reason: note }), ...gainMetadata(gain) },
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
    // A muted source's clips are disabled: not heard (OTIO's meaning of `enabled`).
    enabled: !(gain?.muted ?? false),
    media_references: {
      DEFAULT_MEDIA: {
        OTIO_SCHEMA: 'ExternalReference.1',
        // AAF.MobID: one master clip per file in OTIO's AAF writer (it reads this key before making new ones).
        metadata: { cmx_3600: { reel: s.reel }, AAF: { MobID: mobId }, multicam: mediaMetadata(s) },
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
  mobIds: ReadonlyMap<string, string>,
): Json {
  const rate = fpsOf(t.rate);
  const children: Json[] = [];
  let at = 0;
  for (const { source, range: r, note } of items) {
    if (r.recordIn > at) children.push(otioGap(rate, r.recordIn - at));
    const gain = kind === 'Audio' ? source.gain : null;
    children.push(otioClip(rate, source, mobIds.get(source.id)!, r, extents.get(source.id) ?? r.sourceOut, note, gain));
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
export function writeOtio(t: EditTimeline, options: OtioOptions = {}): string {
  const rate = fpsOf(t.rate);
  const documentId = options.documentId ?? t.name;
  const mobIds = new Map(t.sources.map((s) => [s.id, aafMobId(documentId, s.id)]));
  // How far the edit uses each file (its reference's length when the file's is not known).
  const extents = new Map<string, number>();
  for (const e of t.events)
    for (const s of t.sources) {
      const r = sourceRange(s, e, t.rate);
      if (r) extents.set(s.id, Math.max(extents.get(s.id) ?? 0, r.sourceOut));
    }
  const track = (name: string, kind: 'Video' | 'Audio', items: readonly TrackItem[]): Json =>
    otioTrack(t, name, kind, items, extents, mobIds);
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
