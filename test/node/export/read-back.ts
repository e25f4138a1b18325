/**
 * Readers of the four export formats, written for the tests and independent of src/export:
 * each parses a document (a real XML parser, JSON.parse, a small EDL line parser) and returns
 * the clips it places, as an editor would see them: file, record frames, source frames.
 *
 * @module
 */
import { DOMParser, type Element } from '@xmldom/xmldom';

/** One clip on a timeline as read back from an export. */
export interface ReadClip {
  /** The media file name (URL-decoded). */
  file: string;
  recordIn: number;
  recordOut: number;
  sourceIn: number;
  sourceOut: number;
  /** xmeml only: whether the clipitem is enabled. */
  enabled?: boolean;
  /** Video track number (1-based) for xmeml and OTIO. */
  track?: number;
}

/** What a reader returns: the video the edit shows, the audio clips, and anything format-specific. */
export interface ReadTimeline {
  /** The switched edit (what plays), sorted by record in. */
  video: ReadClip[];
  audio: ReadClip[];
  /** xmeml: every video clipitem, enabled or not (the switchable angles). FCPXML: every angle clip. */
  angles?: ReadClip[];
}

const fileOf = (url: string): string => decodeURIComponent(url.trim().split('/').pop()!);

function children(node: Element, name: string): Element[] {
  const out: Element[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling)
    if (c.nodeType === 1 && (c as Element).tagName === name) out.push(c as Element);
  return out;
}
function child(node: Element, name: string): Element {
  const c = children(node, name)[0];
  if (!c) throw new Error(`<${node.tagName}> has no <${name}>`);
  return c;
}
const text = (node: Element, name: string): string => child(node, name).textContent ?? '';

function parseXml(xml: string): Element {
  const errors: string[] = [];
  const doc = new DOMParser({
    onError: (level, message) => void (level !== 'warning' && errors.push(message)),
  }).parseFromString(xml, 'text/xml');
  if (errors.length > 0) throw new Error(`XML does not parse: ${errors.join('; ')}`);
  return doc.documentElement!;
}

/** FCPXML rational seconds (`1001/30000s`, `5s`) in whole frames at `num/den` fps; throws if not whole. */
export function fcpFrames(value: string, num: number, den: number): number {
  const m = /^(-?\d+)(?:\/(\d+))?s$/.exec(value);
  if (!m) throw new Error(`not an FCPXML time: ${value}`);
  const seconds = { n: BigInt(m[1]!), d: BigInt(m[2] ?? '1') };
  // frames = n/d · num/den, exactly
  const top = seconds.n * BigInt(num);
  const bottom = seconds.d * BigInt(den);
  if (top % bottom !== 0n) throw new Error(`${value} is not a whole number of frames at ${num}/${den}`);
  return Number(top / bottom);
}

/** Reads an FCPXML multicam export: mc-clips through their angles to the files. */
export function readFcpxml(xml: string): ReadTimeline & {
  version: string;
  frameDuration: string;
  angleFrame: (file: string, t: number) => number | null;
  /** The sequence's `tcStart` in frames (its spine's offsets count from it). */
  tcStart: number;
  /** Each file's asset `start` (its start timecode) in frames. */
  assetStart: Map<string, number>;
} {
  const root = parseXml(xml);
  const resources = child(root, 'resources');
  const format = child(resources, 'format');
  const frameDuration = format.getAttribute('frameDuration')!;
  const fd = /^(\d+)(?:\/(\d+))?s$/.exec(frameDuration)!;
  // frameDuration = den/num seconds
  const num = Number(fd[2] ?? '1');
  const den = Number(fd[1]);
  const f = (v: string | null): number => fcpFrames(v ?? '', num, den);
  const files = new Map(
    children(resources, 'asset').map((a) => [
      a.getAttribute('id')!,
      fileOf(child(a, 'media-rep').getAttribute('src')!),
    ]),
  );
  // An asset's start is its media's first timecode; asset-clips' `start` are in that time.
  const assetStartById = new Map(
    children(resources, 'asset').map((a) => [a.getAttribute('id')!, f(a.getAttribute('start'))]),
  );
  const assetStart = new Map([...files].map(([id, file]) => [file, assetStartById.get(id)!]));
  const multicam = child(child(resources, 'media'), 'multicam');
  const angles = new Map<string, Array<{ file: string; offset: number; start: number; duration: number }>>();
  for (const angle of children(multicam, 'mc-angle')) {
    angles.set(
      angle.getAttribute('angleID')!,
      children(angle, 'asset-clip').map((c) => ({
        file: files.get(c.getAttribute('ref')!)!,
        offset: f(c.getAttribute('offset')),
        start: f(c.getAttribute('start')) - assetStartById.get(c.getAttribute('ref')!)!,
        duration: f(c.getAttribute('duration')),
      })),
    );
  }
  const resolve = (angleId: string, t: number, length: number, recordIn: number): ReadClip => {
    const clip = (angles.get(angleId) ?? []).find((c) => c.offset <= t && t + length <= c.offset + c.duration);
    if (!clip) throw new Error(`angle ${angleId} has no media for multicam frames ${t}..${t + length}`);
    const sourceIn = clip.start + (t - clip.offset);
    return { file: clip.file, recordIn, recordOut: recordIn + length, sourceIn, sourceOut: sourceIn + length };
  };
  const sequence = child(child(child(child(root, 'library'), 'event'), 'project'), 'sequence');
  const tcStart = f(sequence.getAttribute('tcStart') ?? '0s');
  const spine = child(sequence, 'spine');
  const video: ReadClip[] = [];
  const audio: ReadClip[] = [];
  for (const mc of children(spine, 'mc-clip')) {
    const recordIn = f(mc.getAttribute('offset')) - tcStart;
    const start = f(mc.getAttribute('start'));
    const length = f(mc.getAttribute('duration'));
    for (const source of children(mc, 'mc-source')) {
      const enable = source.getAttribute('srcEnable');
      const clip = resolve(source.getAttribute('angleID')!, start, length, recordIn);
      if (enable === 'video' || enable === 'all') video.push(clip);
      if (enable === 'audio' || enable === 'all') audio.push(clip);
    }
  }
  /** The frame of `file` its angle shows at multicam frame `t` (what switching to that angle shows). */
  const angleFrame = (file: string, t: number): number | null => {
    for (const clips of angles.values()) {
      const c = clips.find((x) => x.file === file && x.offset <= t && t < x.offset + x.duration);
      if (c) return c.start + (t - c.offset);
    }
    return null;
  };
  return { video, audio, version: root.getAttribute('version')!, frameDuration, angleFrame, tcStart, assetStart };
}

/** An xmeml `<timecode>`: its label, frame count and reel name (when given). */
export interface XmemlTimecode {
  string: string;
  frame: number;
  displayformat: string;
  reel: string | null;
}

function readTimecode(node: Element): XmemlTimecode {
  const reel = children(node, 'reel')[0];
  return {
    string: text(node, 'string'),
    frame: Number(text(node, 'frame')),
    displayformat: text(node, 'displayformat'),
    reel: reel ? text(reel, 'name') : null,
  };
}

/**
 * Reads an xmeml export as a reader that ignores `enabled` would: at each frame, the clip of the
 * topmost video track that has one is what plays (`video`); `angles` are the clipitems of the
 * tracks below it, `enabled` as written.
 */
export function readXmeml(xml: string): ReadTimeline & {
  timebase: number;
  ntsc: boolean;
  videoTracks: number;
  /** The sequence's `<timecode>` (its record start). */
  timecode: XmemlTimecode;
  /** Each file's `<timecode>` (its start timecode and reel). */
  fileTimecode: Map<string, XmemlTimecode>;
} {
  const root = parseXml(xml);
  const sequence = child(root, 'sequence');
  const rate = child(sequence, 'rate');
  const files = new Map<string, string>();
  const fileTimecode = new Map<string, XmemlTimecode>();
  const read = (item: Element, track: number): ReadClip => {
    const file = child(item, 'file');
    const id = file.getAttribute('id')!;
    if (children(file, 'pathurl').length > 0) {
      files.set(id, fileOf(text(file, 'pathurl')));
      fileTimecode.set(fileOf(text(file, 'pathurl')), readTimecode(child(file, 'timecode')));
    }
    const name = files.get(id);
    if (name === undefined) throw new Error(`file ${id} is used before it is described`);
    return {
      file: name,
      recordIn: Number(text(item, 'start')),
      recordOut: Number(text(item, 'end')),
      sourceIn: Number(text(item, 'in')),
      sourceOut: Number(text(item, 'out')),
      enabled: text(item, 'enabled') === 'TRUE',
      track,
    };
  };
  const media = child(sequence, 'media');
  const tracks = children(child(media, 'video'), 'track').map((tr, i) =>
    children(tr, 'clipitem').map((c) => read(c, i + 1)),
  );
  const audio = children(child(media, 'audio'), 'track').flatMap((tr, i) =>
    children(tr, 'clipitem').map((c) => read(c, i + 1)),
  );
  // What plays, frame by frame: the topmost track with a clip there (enabled or not).
  const video: ReadClip[] = [];
  const boundaries = [...new Set(tracks.flat().flatMap((c) => [c.recordIn, c.recordOut]))].sort((a, b) => a - b);
  for (let i = 0; i + 1 < boundaries.length; i++) {
    const [from, to] = [boundaries[i]!, boundaries[i + 1]!];
    const top = [...tracks]
      .reverse()
      .flat()
      .find((c) => c.recordIn <= from && to <= c.recordOut);
    if (!top) continue;
    const piece = { ...top, recordIn: from, recordOut: to, sourceIn: top.sourceIn + (from - top.recordIn) };
    piece.sourceOut = piece.sourceIn + (to - from);
    const last = video[video.length - 1];
    if (
      last &&
      last.track === piece.track &&
      last.file === piece.file &&
      last.recordOut === from &&
      last.sourceOut === piece.sourceIn
    )
      Object.assign(last, { recordOut: to, sourceOut: piece.sourceOut });
    else video.push(piece);
  }
  return {
    video,
    audio,
    angles: tracks.slice(0, -1).flat(),
    timebase: Number(text(rate, 'timebase')),
    ntsc: text(rate, 'ntsc') === 'TRUE',
    videoTracks: tracks.length,
    timecode: readTimecode(child(sequence, 'timecode')),
    fileTimecode,
  };
}

interface OtioTime {
  value: number;
  rate: number;
}

/** Reads an OTIO export: clips and gaps of each track laid end to end. */
export function readOtio(json: string): ReadTimeline & {
  rate: number;
  schema: string;
  videoTracks: number;
  /** `global_start_time` in frames (the record start). */
  globalStart: number;
  /** Each file's `available_range.start_time` (its start timecode) in frames, and its reel (`metadata.cmx_3600.reel`). */
  media: Map<string, { start: number; reel: string | undefined; clipReel: string | undefined }>;
} {
  const doc = JSON.parse(json) as {
    OTIO_SCHEMA: string;
    global_start_time: OtioTime | null;
    tracks: {
      OTIO_SCHEMA: string;
      children: Array<{ OTIO_SCHEMA: string; kind: string; children: Array<Record<string, unknown>> }>;
    };
  };
  if (doc.tracks.OTIO_SCHEMA !== 'Stack.1') throw new Error(`tracks is ${doc.tracks.OTIO_SCHEMA}, not Stack.1`);
  const video: ReadClip[] = [];
  const audio: ReadClip[] = [];
  let rate = NaN;
  let videoTracks = 0;
  const media = new Map<string, { start: number; reel: string | undefined; clipReel: string | undefined }>();
  doc.tracks.children.forEach((track, i) => {
    if (track.OTIO_SCHEMA !== 'Track.1') throw new Error(`track ${i} is ${track.OTIO_SCHEMA}`);
    if (track.kind === 'Video') videoTracks += 1;
    let at = 0;
    for (const item of track.children) {
      const range = item.source_range as { start_time: OtioTime; duration: OtioTime };
      rate = range.duration.rate;
      if (item.OTIO_SCHEMA === 'Gap.1') {
        at += range.duration.value;
        continue;
      }
      if (item.OTIO_SCHEMA !== 'Clip.2') throw new Error(`unexpected ${String(item.OTIO_SCHEMA)} in track ${i}`);
      type Reel = { cmx_3600?: { reel?: string } };
      const refs = item.media_references as Record<
        string,
        { OTIO_SCHEMA: string; target_url: string; available_range: { start_time: OtioTime } | null; metadata: Reel }
      >;
      const ref = refs[item.active_media_reference_key as string]!;
      if (ref.OTIO_SCHEMA !== 'ExternalReference.1') throw new Error(`media reference is ${ref.OTIO_SCHEMA}`);
      // Source time counts from the media's available range start (its start timecode).
      const start = ref.available_range?.start_time.value ?? 0;
      media.set(fileOf(ref.target_url), {
        start,
        reel: ref.metadata.cmx_3600?.reel,
        clipReel: (item.metadata as Reel).cmx_3600?.reel,
      });
      const clip = {
        file: fileOf(ref.target_url),
        recordIn: at,
        recordOut: at + range.duration.value,
        sourceIn: range.start_time.value - start,
        sourceOut: range.start_time.value - start + range.duration.value,
        track: i + 1,
      };
      (track.kind === 'Video' ? video : audio).push(clip);
      at = clip.recordOut;
    }
  });
  video.sort((a, b) => a.recordIn - b.recordIn);
  return {
    video,
    audio,
    rate,
    schema: doc.OTIO_SCHEMA,
    videoTracks,
    globalStart: doc.global_start_time?.value ?? 0,
    media,
  };
}

/** SMPTE timecode to frames, written here independently of src/export (`;` = drop-frame). */
export function timecodeFrames(tc: string, timebase: number): number {
  const m = /^(\d\d):(\d\d):(\d\d)([:;])(\d\d)$/.exec(tc);
  if (!m) throw new Error(`bad timecode ${tc}`);
  const [h, min, s, f] = [m[1], m[2], m[3], m[5]].map(Number) as [number, number, number, number];
  const nominal = ((h * 60 + min) * 60 + s) * timebase + f;
  if (m[4] === ':') return nominal;
  const dropped = timebase === 30 ? 2 : timebase === 60 ? 4 : NaN;
  const minutes = h * 60 + min;
  if (min % 10 !== 0 && s === 0 && f < dropped) throw new Error(`${tc} does not exist in drop-frame timecode`);
  return nominal - dropped * (minutes - Math.floor(minutes / 10));
}

/** One EDL event. */
export interface EdlEvent {
  num: number;
  reel: string;
  channel: string;
  sourceIn: string;
  sourceOut: string;
  recordIn: string;
  recordOut: string;
  clipName: string | null;
  /** The event's other comment lines (`* COMMENT: …`, `* AUDIO GAIN: …`), without the `* `. */
  comments: string[];
}

/** A small CMX 3600 line parser: title, FCM, events with their `* FROM CLIP NAME` and other comments. */
export function parseEdl(edl: string): { title: string; fcm: string; events: EdlEvent[] } {
  let title = '';
  let fcm = '';
  const events: EdlEvent[] = [];
  for (const line of edl.split(/\r?\n/)) {
    if (line.startsWith('TITLE:')) title = line.slice(6).trim();
    else if (line.startsWith('FCM:')) fcm = line.slice(4).trim();
    else if (line.startsWith('* FROM CLIP NAME:')) events[events.length - 1]!.clipName = line.slice(17).trim();
    else if (line.startsWith('* ') && events.length > 0) events[events.length - 1]!.comments.push(line.slice(2).trim());
    else if (/^\d{3}/.test(line)) {
      const p = line.trim().split(/\s+/);
      if (p.length !== 8 || p[3] !== 'C') throw new Error(`not a cut event: ${line}`);
      events.push({
        num: Number(p[0]),
        reel: p[1]!,
        channel: p[2]!,
        sourceIn: p[4]!,
        sourceOut: p[5]!,
        recordIn: p[6]!,
        recordOut: p[7]!,
        clipName: null,
        comments: [],
      });
    } else if (line.trim() !== '') throw new Error(`unexpected EDL line: ${line}`);
  }
  return { title, fcm, events };
}

/**
 * Reads an EDL export into clips: record frames counted from `recordStart` (01:00:00:00 unless
 * given), each file's source frames from its start timecode in `sourceStarts` (0 if absent).
 */
export function readEdl(
  edl: string,
  timebase: number,
  starts: { recordStart?: string; sourceStarts?: ReadonlyMap<string, number> } = {},
): ReadTimeline & { title: string; fcm: string; events: EdlEvent[] } {
  const parsed = parseEdl(edl);
  const dropFrame = parsed.fcm === 'DROP FRAME';
  const label = starts.recordStart ?? '01:00:00:00';
  const start = timecodeFrames(dropFrame ? label.replace(/:(\d\d)$/, ';$1') : label, timebase);
  const toClip = (e: EdlEvent): ReadClip => {
    const from = starts.sourceStarts?.get(e.clipName ?? '') ?? 0;
    return {
      file: e.clipName ?? '',
      recordIn: timecodeFrames(e.recordIn, timebase) - start,
      recordOut: timecodeFrames(e.recordOut, timebase) - start,
      sourceIn: timecodeFrames(e.sourceIn, timebase) - from,
      sourceOut: timecodeFrames(e.sourceOut, timebase) - from,
    };
  };
  return {
    ...parsed,
    video: parsed.events.filter((e) => e.channel === 'V' || e.channel === 'B').map(toClip),
    audio: parsed.events.filter((e) => /^A\d?$/.test(e.channel) || e.channel === 'B').map(toClip),
  };
}
