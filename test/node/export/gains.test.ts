/**
 * Clip gains in the exports (issue 55): each heard source's gain is the levelling planned for
 * its speaker (the Job's `audio.levels`) plus the gain a person set (`audio.gains`), written where
 * the format carries one: FCPXML `adjust-volume amount`, xmeml's Audio Levels `level` (linear),
 * OTIO clip metadata (no standard field) with muted clips disabled, an EDL comment. Every format
 * is read back by a parser, not by matching our own template: @xmldom/xmldom's DOM for the XML,
 * JSON.parse for OTIO, the EDL line parser of read-back.ts.
 */
import { describe, expect, test } from 'vitest';
import type { DOMParser as XmlDomParser, Element } from '@xmldom/xmldom';
import type { Cut, JobSource, RecordedLevels, SourceGain } from '../../../src/contract/types.ts';
import { clipGains, exportEdit, type ExportableJob } from '../../../src/export/index.ts';
import { parseEdl } from './read-back.ts';

const { DOMParser } = (await import('@xmldom/xmldom')) as { DOMParser: typeof XmlDomParser };

const cameras: JobSource[] = [
  { id: 'cam_a', label: 'Cam A', kind: 'video', ext: 'mp4', durationMs: 120_000, offsetMs: 0, driftPpm: 0 },
  { id: 'cam_b', label: 'Cam B', kind: 'video', ext: 'mp4', durationMs: 120_000, offsetMs: 500, driftPpm: 0 },
];
const mics: JobSource[] = [
  { id: 'mic_1', label: 'Host mic', kind: 'audio', ext: 'wav', durationMs: 120_000, offsetMs: 200, driftPpm: 0 },
  // Drifting: FCPXML writes its angle as one asset-clip per event, each must carry the gain.
  { id: 'mic_2', label: 'Guest mic', kind: 'audio', ext: 'wav', durationMs: 120_000, offsetMs: 900, driftPpm: 40 },
  { id: 'mic_r', label: 'Room', kind: 'audio', ext: 'wav', durationMs: 120_000, offsetMs: 0, driftPpm: 0 },
];
const cuts: Cut[] = [
  { sourceId: 'cam_a', startMs: 2_000, endMs: 20_000 },
  { sourceId: 'cam_b', startMs: 20_000, endMs: 45_000 },
  { sourceId: 'cam_a', startMs: 45_000, endMs: 70_000 },
];

/** What the analysis measured: the host 6 dB over the guest, the room mic nobody's. */
const levels: RecordedLevels = {
  speech_target_lufs: -24,
  sources: [
    {
      source_id: 'mic_1',
      integrated_lufs: -22.5,
      speakers: [{ speaker: 'S1', speech_lufs: -21, gain_db: -3, speech_sec: 40 }],
    },
    {
      source_id: 'mic_2',
      integrated_lufs: -28.5,
      speakers: [{ speaker: 'S2', speech_lufs: -27, gain_db: 3, speech_sec: 35 }],
    },
    { source_id: 'mic_r', integrated_lufs: -35, speakers: [] },
  ],
};

function jobWith(
  audio: ExportableJob['audio'],
  sources: JobSource[] = [...cameras, ...mics],
): ExportableJob & { audio: NonNullable<ExportableJob['audio']> } {
  // A removed range: the drifting mic's angle then has clips on either side of it.
  return {
    id: 'job_g',
    title: 'Gains',
    sources,
    cuts,
    removed_ranges: [{ startMs: 30_000, endMs: 31_000 }],
    audio: audio!,
  };
}

/** Host mic −1.5 dB, camera A +6 (not heard: the mics are), the room mic untouched. */
const nudges: Record<string, SourceGain> = { mic_1: -1.5, cam_a: 6 };
const levelled = jobWith({ loudness: -16, gains: nudges, levels });

const dom = (xml: string): Element => new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
const elements = (root: Element, tag: string): Element[] => Array.from(root.getElementsByTagName(tag));
const childElements = (node: Element, tag: string): Element[] =>
  Array.from(node.childNodes).filter((c): c is Element => c.nodeType === 1 && (c as Element).tagName === tag);
const text = (node: Element, tag: string): string => childElements(node, tag)[0]?.textContent ?? '';

/** FCPXML: per file, the `adjust-volume` amounts of its angle's asset-clips (null for a clip without one). */
function fcpxmlVolumes(xml: string): Map<string, Array<string | null>> {
  const root = dom(xml);
  const fileOf = new Map(
    elements(root, 'asset').map((a) => [
      a.getAttribute('id')!,
      decodeURIComponent(childElements(a, 'media-rep')[0]!.getAttribute('src')!),
    ]),
  );
  const out = new Map<string, Array<string | null>>();
  for (const clip of elements(root, 'mc-angle').flatMap((a) => childElements(a, 'asset-clip'))) {
    const file = fileOf.get(clip.getAttribute('ref')!)!;
    const volume = childElements(clip, 'adjust-volume');
    expect(volume.length).toBeLessThanOrEqual(1);
    out.set(file, [...(out.get(file) ?? []), volume[0]?.getAttribute('amount') ?? null]);
  }
  return out;
}

/** xmeml: per file, the Audio Levels `level` of each audio clipitem (null without the filter); video clipitems' filters. */
function xmemlLevels(xml: string): { audio: Map<string, Array<number | null>>; videoFilters: number } {
  const root = dom(xml);
  const names = new Map<string, string>();
  for (const file of elements(root, 'file')) {
    const name = text(file, 'name');
    if (name !== '') names.set(file.getAttribute('id')!, name);
  }
  const media = childElements(elements(root, 'sequence')[0]!, 'media')[0]!;
  const audio = new Map<string, Array<number | null>>();
  for (const item of elements(childElements(media, 'audio')[0]!, 'clipitem')) {
    const file = names.get(childElements(item, 'file')[0]!.getAttribute('id')!)!;
    const filters = childElements(item, 'filter').filter(
      (f) => text(childElements(f, 'effect')[0]!, 'effectid') === 'audiolevels',
    );
    expect(filters.length).toBeLessThanOrEqual(1);
    let level: number | null = null;
    if (filters[0]) {
      const effect = childElements(filters[0], 'effect')[0]!;
      expect(text(effect, 'name')).toBe('Audio Levels');
      const parameter = childElements(effect, 'parameter').find((p) => text(p, 'parameterid') === 'level')!;
      level = Number(text(parameter, 'value'));
    }
    audio.set(file, [...(audio.get(file) ?? []), level]);
  }
  const videoFilters = elements(childElements(media, 'video')[0]!, 'filter').length;
  return { audio, videoFilters };
}

interface OtioClip {
  OTIO_SCHEMA: string;
  name: string;
  enabled: boolean;
  metadata: { multicam: { gain?: { db: number; levellingDb: number; nudgeDb: number; muted: boolean } } };
}

/** OTIO: every clip of the audio tracks and of the video tracks. */
function otioClips(json: string): { audio: OtioClip[]; video: OtioClip[] } {
  const doc = JSON.parse(json) as { tracks: { children: Array<{ kind: string; children: OtioClip[] }> } };
  const of = (kind: string): OtioClip[] =>
    doc.tracks.children
      .filter((t) => t.kind === kind)
      .flatMap((t) => t.children)
      .filter((c) => c.OTIO_SCHEMA === 'Clip.2');
  return { audio: of('Audio'), video: of('Video') };
}

const dbOf = (level: number): number => 20 * Math.log10(level);

describe('clip gains in the exports', () => {
  test('clipGains: the levelling of the source’s one speaker plus the person’s gain; unity left out', () => {
    expect(clipGains(levelled)).toEqual({
      mic_1: { db: -4.5, levellingDb: -3, nudgeDb: -1.5, muted: false },
      mic_2: { db: 3, levellingDb: 3, nudgeDb: 0, muted: false },
    });
  });

  test('FCPXML: adjust-volume on every asset-clip of a heard source’s angle, none at 0 dB or on a camera not heard', () => {
    const volumes = fcpxmlVolumes(exportEdit(levelled, 'fcpxml').body);
    expect(new Set(volumes.get('Host mic.wav'))).toEqual(new Set(['-4.5dB']));
    // The drifting mic: an asset-clip per stretch of the edit, every one with the gain.
    expect(volumes.get('Guest mic.wav')!.length).toBeGreaterThan(1);
    expect(new Set(volumes.get('Guest mic.wav'))).toEqual(new Set(['3dB']));
    for (const file of ['Room.wav', 'Cam A.mp4', 'Cam B.mp4'])
      expect(new Set(volumes.get(file))).toEqual(new Set([null]));
  });

  test('Premiere XML: an Audio Levels filter with the linear level on every audio clipitem of a heard source', () => {
    const { audio, videoFilters } = xmemlLevels(exportEdit(levelled, 'xmeml').body);
    const host = audio.get('Host mic.wav')!;
    expect(host.length).toBeGreaterThan(0);
    for (const level of host) expect(dbOf(level!)).toBeCloseTo(-4.5, 4);
    for (const level of audio.get('Guest mic.wav')!) expect(dbOf(level!)).toBeCloseTo(3, 4);
    expect(new Set(audio.get('Room.wav'))).toEqual(new Set([null]));
    expect(videoFilters).toBe(0);
  });

  test('OTIO: the gain in each audio clip’s metadata (OTIO has no audio gain), none on video clips', () => {
    const { audio, video } = otioClips(exportEdit(levelled, 'otio').body);
    const gainOf = (name: string): Array<OtioClip['metadata']['multicam']['gain']> =>
      audio.filter((c) => c.name === name).map((c) => c.metadata.multicam.gain);
    expect(gainOf('Host mic')).toEqual(
      Array(gainOf('Host mic').length).fill({ db: -4.5, levellingDb: -3, nudgeDb: -1.5, muted: false }),
    );
    expect(gainOf('Guest mic')[0]!.db).toBe(3);
    expect(gainOf('Room').every((g) => g === undefined)).toBe(true);
    expect(video.every((c) => c.metadata.multicam.gain === undefined && c.enabled)).toBe(true);
    expect(audio.every((c) => c.enabled)).toBe(true);
  });

  test('EDL: a comment with the gain on the first event of each heard reel, once', () => {
    const { events } = parseEdl(exportEdit(levelled, 'edl').body);
    const said = events.flatMap((e) =>
      e.comments.filter((c) => c.startsWith('AUDIO GAIN:')).map((c) => ({ reel: e.reel, channel: e.channel, c })),
    );
    expect(said).toEqual([
      { reel: 'HOST_MIC', channel: 'A', c: 'AUDIO GAIN: -4.5 DB (LEVELLING -3, NUDGE -1.5)' },
      { reel: 'GUEST_MI', channel: 'A2', c: 'AUDIO GAIN: +3 DB (LEVELLING +3, NUDGE 0)' },
    ]);
    const first = events.find((e) => e.reel === 'HOST_MIC')!;
    expect(first.comments).toContain('AUDIO GAIN: -4.5 DB (LEVELLING -3, NUDGE -1.5)');
  });

  test('muted: FCPXML −96 dB, xmeml level 0, OTIO clips disabled, EDL says MUTED', () => {
    const job = jobWith({ loudness: -16, gains: { mic_2: 'mute' }, levels });
    expect(clipGains(job)['mic_2']).toEqual({ db: 3, levellingDb: 3, nudgeDb: 0, muted: true });
    expect(new Set(fcpxmlVolumes(exportEdit(job, 'fcpxml').body).get('Guest mic.wav'))).toEqual(new Set(['-96dB']));
    expect(new Set(xmemlLevels(exportEdit(job, 'xmeml').body).audio.get('Guest mic.wav'))).toEqual(new Set([0]));
    const guest = otioClips(exportEdit(job, 'otio').body).audio.filter((c) => c.name === 'Guest mic');
    expect(guest.length).toBeGreaterThan(0);
    expect(guest.every((c) => !c.enabled && c.metadata.multicam.gain!.muted)).toBe(true);
    const events = parseEdl(exportEdit(job, 'edl').body).events;
    expect(events.filter((e) => e.comments.includes('AUDIO GAIN: MUTED')).map((e) => e.reel)).toEqual(['GUEST_MI']);
  });

  test('without recorded levels (or with mastering off) only the person’s gain is written; 0 dB writes nothing', () => {
    for (const job of [
      jobWith({ loudness: -16, gains: nudges }),
      jobWith({ loudness: 'off', gains: nudges, levels }),
    ]) {
      expect(clipGains(job)).toEqual({ mic_1: { db: -1.5, levellingDb: 0, nudgeDb: -1.5, muted: false } });
      const volumes = fcpxmlVolumes(exportEdit(job, 'fcpxml').body);
      expect(new Set(volumes.get('Host mic.wav'))).toEqual(new Set(['-1.5dB']));
      expect(new Set(volumes.get('Guest mic.wav'))).toEqual(new Set([null]));
    }
    // No audio at all (a job from before gains): every format as before, no gain anywhere.
    const { audio: _audio, ...plain } = levelled;
    const fcp = exportEdit(plain, 'fcpxml').body;
    expect(elements(dom(fcp), 'adjust-volume')).toEqual([]);
    expect(elements(dom(exportEdit(plain, 'xmeml').body), 'filter')).toEqual([]);
    expect(otioClips(exportEdit(plain, 'otio').body).audio.every((c) => c.metadata.multicam.gain === undefined)).toBe(
      true,
    );
    expect(parseEdl(exportEdit(plain, 'edl').body).events.every((e) => e.comments.length === 0)).toBe(true);
  });

  test('a single mix (several speakers on one source) gets the person’s gain only; without mics the cameras’ sound carries it', () => {
    const single: RecordedLevels = {
      speech_target_lufs: -24,
      sources: [
        {
          source_id: 'cam_a',
          integrated_lufs: -23,
          speakers: [
            { speaker: 'S1', speech_lufs: -22, gain_db: -2, speech_sec: 30 },
            { speaker: 'S2', speech_lufs: -26, gain_db: 2, speech_sec: 30 },
          ],
        },
      ],
    };
    const job = jobWith({ loudness: -16, gains: { cam_a: -6 }, levels: single }, cameras);
    expect(clipGains(job)).toEqual({ cam_a: { db: -6, levellingDb: 0, nudgeDb: -6, muted: false } });
    // FCPXML: the camera angle's clips (its sound is heard: srcEnable all).
    expect(new Set(fcpxmlVolumes(exportEdit(job, 'fcpxml').body).get('Cam A.mp4'))).toEqual(new Set(['-6dB']));
    // xmeml: the camera-audio track's clips of camera A, not its video clips.
    const xm = xmemlLevels(exportEdit(job, 'xmeml').body);
    for (const level of xm.audio.get('Cam A.mp4')!) expect(dbOf(level!)).toBeCloseTo(-6, 4);
    expect(new Set(xm.audio.get('Cam B.mp4'))).toEqual(new Set([null]));
    expect(xm.videoFilters).toBe(0);
    // OTIO: camera A's clips on the camera-audio track only.
    const otio = otioClips(exportEdit(job, 'otio').body);
    expect(otio.audio.filter((c) => c.name === 'Cam A').every((c) => c.metadata.multicam.gain?.db === -6)).toBe(true);
    expect(otio.video.every((c) => c.metadata.multicam.gain === undefined)).toBe(true);
    // EDL: the first event carrying camera A's sound (channel B) says it.
    const events = parseEdl(exportEdit(job, 'edl').body).events;
    expect(events.filter((e) => e.comments.some((c) => c.startsWith('AUDIO GAIN'))).map((e) => e.reel)).toEqual([
      'CAM_A',
    ]);
  });

  test('beyond the editors’ +12 dB the XML formats write +12; OTIO keeps the figure', () => {
    const loud: RecordedLevels = {
      ...levels,
      sources: [{ ...levels.sources[0]!, speakers: [{ ...levels.sources[0]!.speakers[0]!, gain_db: 15 }] }],
    };
    const job = jobWith({ loudness: -16, gains: { mic_1: 6 }, levels: loud });
    expect(new Set(fcpxmlVolumes(exportEdit(job, 'fcpxml').body).get('Host mic.wav'))).toEqual(new Set(['12dB']));
    for (const level of xmemlLevels(exportEdit(job, 'xmeml').body).audio.get('Host mic.wav')!)
      expect(dbOf(level!)).toBeCloseTo(12, 3);
    expect(
      otioClips(exportEdit(job, 'otio').body).audio.find((c) => c.name === 'Host mic')!.metadata.multicam.gain!.db,
    ).toBe(21);
  });
});
