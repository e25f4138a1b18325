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
export function readFcpxml(
  xml: string,
): ReadTimeline & { version: string; frameDuration: string; angleFrame: (file: string, t: number) => number | null } {
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
  const multicam = child(child(resources, 'media'), 'multicam');
  const angles = new Map<string, Array<{ file: string; offset: number; start: number; duration: number }>>();
  for (const angle of children(multicam, 'mc-angle')) {
    angles.set(
      angle.getAttribute('angleID')!,
      children(angle, 'asset-clip').map((c) => ({
        file: files.get(c.getAttribute('ref')!)!,
        offset: f(c.getAttribute('offset')),
        start: f(c.getAttribute('start')),
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
  const spine = child(child(child(child(child(root, 'library'), 'event'), 'project'), 'sequence'), 'spine');
  const video: ReadClip[] = [];
  const audio: ReadClip[] = [];
  for (const mc of children(spine, 'mc-clip')) {
    const recordIn = f(mc.getAttribute('offset'));
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
  return { video, audio, version: root.getAttribute('version')!, frameDuration, angleFrame };
}

/** Reads an xmeml export: stacked video tracks (enabled clipitems are the edit), audio tracks. */
export function readXmeml(xml: string): ReadTimeline & { timebase: number; ntsc: boolean } {
  const root = parseXml(xml);
  const sequence = child(root, 'sequence');
  const rate = child(sequence, 'rate');
  const files = new Map<string, string>();
  const read = (item: Element, track: number): ReadClip => {
    const file = child(item, 'file');
    const id = file.getAttribute('id')!;
    if (children(file, 'pathurl').length > 0) files.set(id, fileOf(text(file, 'pathurl')));
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
  const angles = children(child(media, 'video'), 'track').flatMap((tr, i) =>
    children(tr, 'clipitem').map((c) => read(c, i + 1)),
  );
  const audio = children(child(media, 'audio'), 'track').flatMap((tr, i) =>
    children(tr, 'clipitem').map((c) => read(c, i + 1)),
  );
  const video = angles.filter((c) => c.enabled).sort((a, b) => a.recordIn - b.recordIn);
  return { video, audio, angles, timebase: Number(text(rate, 'timebase')), ntsc: text(rate, 'ntsc') === 'TRUE' };
}

interface OtioTime {
  value: number;
  rate: number;
}

/** Reads an OTIO export: clips and gaps of each track laid end to end. */
export function readOtio(json: string): ReadTimeline & { rate: number; schema: string; videoTracks: number } {
  const doc = JSON.parse(json) as {
    OTIO_SCHEMA: string;
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
      const refs = item.media_references as Record<string, { OTIO_SCHEMA: string; target_url: string }>;
      const ref = refs[item.active_media_reference_key as string]!;
      if (ref.OTIO_SCHEMA !== 'ExternalReference.1') throw new Error(`media reference is ${ref.OTIO_SCHEMA}`);
      const clip = {
        file: fileOf(ref.target_url),
        recordIn: at,
        recordOut: at + range.duration.value,
        sourceIn: range.start_time.value,
        sourceOut: range.start_time.value + range.duration.value,
        track: i + 1,
      };
      (track.kind === 'Video' ? video : audio).push(clip);
      at = clip.recordOut;
    }
  });
  video.sort((a, b) => a.recordIn - b.recordIn);
  return { video, audio, rate, schema: doc.OTIO_SCHEMA, videoTracks };
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
}

/** A small CMX 3600 line parser: title, FCM, events with their `* FROM CLIP NAME` comments. */
export function parseEdl(edl: string): { title: string; fcm: string; events: EdlEvent[] } {
  let title = '';
  let fcm = '';
  const events: EdlEvent[] = [];
  for (const line of edl.split(/\r?\n/)) {
    if (line.startsWith('TITLE:')) title = line.slice(6).trim();
    else if (line.startsWith('FCM:')) fcm = line.slice(4).trim();
    else if (line.startsWith('* FROM CLIP NAME:')) events[events.length - 1]!.clipName = line.slice(17).trim();
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
      });
    } else if (line.trim() !== '') throw new Error(`unexpected EDL line: ${line}`);
  }
  return { title, fcm, events };
}

/** Reads an EDL export into clips: record frames counted from 01:00:00:00. */
export function readEdl(
  edl: string,
  timebase: number,
): ReadTimeline & { title: string; fcm: string; events: EdlEvent[] } {
  const parsed = parseEdl(edl);
  const dropFrame = parsed.fcm === 'DROP FRAME';
  const start = timecodeFrames(dropFrame ? '01:00:00;00' : '01:00:00:00', timebase);
  const toClip = (e: EdlEvent): ReadClip => ({
    file: e.clipName ?? '',
    recordIn: timecodeFrames(e.recordIn, timebase) - start,
    recordOut: timecodeFrames(e.recordOut, timebase) - start,
    sourceIn: timecodeFrames(e.sourceIn, timebase),
    sourceOut: timecodeFrames(e.sourceOut, timebase),
  });
  return {
    ...parsed,
    video: parsed.events.filter((e) => e.channel === 'V' || e.channel === 'B').map(toClip),
    audio: parsed.events.filter((e) => /^A\d?$/.test(e.channel) || e.channel === 'B').map(toClip),
  };
}
