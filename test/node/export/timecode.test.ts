/**
 * Real cameras' timecode through to the exports (issue 52). Debian's ffmpeg writes three files
 * as devices do: a 29.97 fps MP4 with drop-frame timecode 01:02:03;04 (a `tmcd` track), a 25 fps
 * MOV at 10:00:00:00 with 44.1 kHz audio, a 23.976 fps Matroska file with a TIMECODE tag
 * 00:59:58:12 and mono Opus. Our probe (mediabunny, and ffprobe's report as the ffmpeg.wasm
 * engine reads it) must find each file's rate, size, audio format and timecode; the Job must
 * show them; and every export, read back by readers independent of the writers (@xmldom/xmldom,
 * JSON.parse, a CMX 3600 line parser and SMPTE timecode arithmetic written in read-back.ts),
 * must carry the main camera's exact rate and size, each file's own timecode and audio format,
 * the record start (01:00:00:00 unless asked) and every cut on its frame.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseEditArgs, UsageError } from '../../../src/cli/args.ts';
import type { Cut, JobSource, SourceTimecode } from '../../../src/contract/types.ts';
import { ExportError, exportEdit, reelNames, type ExportableJob } from '../../../src/export/index.ts';
import { fromFfprobe } from '../../../src/media/ffmpeg-decoder.ts';
import { probeWithMediabunny } from '../../../src/media/mediabunny-decoder.ts';
import type { MediaProbe } from '../../../src/media/protocol.ts';
import { timecodeLabel, tmcdTimecode } from '../../../src/media/timecode.ts';
import { probedMedia } from '../../../src/pipeline/stages/syncing.ts';
import { createNodeHarness } from '../../contract/node-harness.ts';
import { parseEdl, readEdl, readFcpxml, readOtio, readXmeml, timecodeFrames } from './read-back.ts';

type Json = Record<string, any>; // documents are read loosely, as a reader would

const run = promisify(execFile);

/** The three camera files, as ffmpeg writes them, and what each must probe as. */
const FILES = {
  a: {
    name: 'Cam A.mp4',
    rate: '30000/1001',
    size: [320, 180],
    audio: ['-c:a', 'aac', '-ar', '48000', '-ac', '2'],
    timecode: '01:02:03;04',
    want: { num: 30000, den: 1001, width: 320, height: 180, sampleRate: 48_000, channels: 2 },
    tc: { start: '01:02:03;04', frameRate: { num: 30000, den: 1001 }, dropFrame: true },
  },
  b: {
    name: 'Cam B.mov',
    rate: '25',
    size: [256, 144],
    audio: ['-c:a', 'aac', '-ar', '44100', '-ac', '2'],
    timecode: '10:00:00:00',
    want: { num: 25, den: 1, width: 256, height: 144, sampleRate: 44_100, channels: 2 },
    tc: { start: '10:00:00:00', frameRate: { num: 25, den: 1 }, dropFrame: false },
  },
  c: {
    name: 'Cam C.mkv',
    rate: '24000/1001',
    size: [192, 108],
    audio: ['-c:a', 'libopus', '-ar', '48000', '-ac', '1'],
    timecode: '00:59:58:12',
    want: { num: 24000, den: 1001, width: 192, height: 108, sampleRate: 48_000, channels: 1 },
    tc: { start: '00:59:58:12', frameRate: { num: 24000, den: 1001 }, dropFrame: false },
  },
} as const;
type Key = keyof typeof FILES;
const KEYS = Object.keys(FILES) as Key[];

let dir = '';
const pathOf = (k: Key): string => join(dir, FILES[k].name);
const probes = new Map<Key, MediaProbe>();
const ffprobeReports = new Map<Key, unknown>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'multicam-tc-'));
  await Promise.all([
    // A camera file without timecode.
    run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=160x90:rate=30',
      '-t',
      '1',
      join(dir, 'plain.mp4'),
    ]),
    ...KEYS.map((k) => {
      const f = FILES[k];
      return run('ffmpeg', [
        ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${f.size[0]}x${f.size[1]}:rate=${f.rate}`],
        ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '5.2'],
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', ...f.audio],
        ...['-timecode', f.timecode, pathOf(k)],
      ]);
    }),
  ]);
  await Promise.all([
    ...KEYS.map(async (k) =>
      probes.set(k, await probeWithMediabunny(new Blob([readFileSync(pathOf(k))]), new AbortController().signal)),
    ),
    ...KEYS.map(async (k) => {
      const { stdout } = await run('ffprobe', [
        ...['-v', 'error', '-show_format', '-show_streams', '-of', 'json', pathOf(k)],
      ]);
      ffprobeReports.set(k, JSON.parse(stdout));
    }),
  ]);
}, 60_000);
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('the probe finds each camera file’s rate, size, audio format and start timecode', () => {
  test.each(KEYS)('%s through mediabunny (tmcd track / Matroska tag)', (k) => {
    const p = probes.get(k)!;
    const { want, tc } = FILES[k];
    expect(p.video?.frameRateExact).toEqual({ num: want.num, den: want.den });
    expect([p.video?.width, p.video?.height]).toEqual([want.width, want.height]);
    expect([p.audio?.sampleRate, p.audio?.channels]).toEqual([want.sampleRate, want.channels]);
    expect(p.timecode).toEqual(tc);
  });

  test.each(KEYS)('%s through ffprobe’s report (the ffmpeg.wasm engine’s reading)', (k) => {
    const report = ffprobeReports.get(k) as Parameters<typeof fromFfprobe>[0];
    const p = fromFfprobe(report);
    expect(p.timecode).toEqual(FILES[k].tc);
    expect(p.video?.frameRateExact).toEqual({ num: FILES[k].want.num, den: FILES[k].want.den });
  });

  test('a file without timecode has none; a torn file is not read as one', async () => {
    const plain = await probeWithMediabunny(
      new Blob([readFileSync(join(dir, 'plain.mp4'))]),
      new AbortController().signal,
    );
    expect(plain.timecode).toBeUndefined();
    const bytes = readFileSync(pathOf('a'));
    const reader =
      (b: Uint8Array) =>
      async (at: number, n: number): Promise<Uint8Array> =>
        b.subarray(at, at + n);
    expect(await tmcdTimecode(reader(bytes), bytes.length)).toEqual(FILES.a.tc);
    // Cut before its end (the moov box is at the end of an ffmpeg MP4): no timecode, no throw.
    const torn = bytes.subarray(0, bytes.length - 200);
    expect(await tmcdTimecode(reader(torn), torn.length)).toBeNull();
  });

  test('drop-frame labels agree with an independent SMPTE parser over 20 minutes at 29.97 and 59.94', () => {
    const wrong: string[] = [];
    for (const [num, base] of [
      [30000, 30],
      [60000, 60],
    ] as const) {
      for (let frame = 0; frame < base * 60 * 20; frame += 11) {
        const label = timecodeLabel(frame, { num, den: 1001 }, true);
        if (timecodeFrames(label, base) !== frame) wrong.push(`${frame} → ${label}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

/** A Job source from a probe, as syncing keeps it (the pipeline's own mapping). */
function sourceOf(k: Key, id: string): JobSource {
  const p = probes.get(k)!;
  const ext = FILES[k].name.split('.').pop()!;
  return {
    id,
    label: FILES[k].name.replace(/\.[^.]+$/, ''),
    kind: 'video',
    ext,
    durationMs: p.durationMs,
    offsetMs: 0,
    driftPpm: 0,
    ...probedMedia(p),
  };
}

/** Cuts over 5 s, `main` live longest; boundaries off the frame grid of every rate. */
function cutsFor(main: Key): Cut[] {
  const others = KEYS.filter((k) => k !== main);
  return [
    { sourceId: main, startMs: 0, endMs: 1_510 },
    { sourceId: others[0]!, startMs: 1_510, endMs: 2_230 },
    { sourceId: main, startMs: 2_230, endMs: 3_785 },
    { sourceId: others[1]!, startMs: 3_785, endMs: 4_400 },
    { sourceId: main, startMs: 4_400, endMs: 5_000 },
  ];
}
function jobFor(main: Key): ExportableJob {
  return {
    id: 'job_tc',
    title: 'Timecode',
    sources: KEYS.map((k) => sourceOf(k, k)),
    cuts: cutsFor(main),
    removed_ranges: [],
  };
}

/** What the exports must give back, computed here from the cuts in ms (no writer code). */
function expectedClips(
  main: Key,
): Array<{ file: string; recordIn: number; recordOut: number; sourceIn: number; sourceOut: number }> {
  const { num, den } = FILES[main].want;
  const frame = (ms: number): number => Math.round((ms * num) / (1000 * den));
  return cutsFor(main).map((c) => ({
    file: FILES[c.sourceId as Key].name,
    recordIn: frame(c.startMs),
    recordOut: frame(c.endMs),
    sourceIn: frame(c.startMs),
    sourceOut: frame(c.endMs),
  }));
}

/** A file's timecode as frames of the timeline (the same instant at the main camera's rate), computed independently. */
function startAt(k: Key, main: Key): number {
  const tc: SourceTimecode = FILES[k].tc;
  const base = Math.round(tc.frameRate.num / tc.frameRate.den);
  const frames = timecodeFrames(tc.start, base);
  const seconds = (frames * tc.frameRate.den) / tc.frameRate.num;
  const { num, den } = FILES[main].want;
  return Math.round((seconds * num) / den);
}

const strip = (c: { file: string; recordIn: number; recordOut: number; sourceIn: number; sourceOut: number }) => ({
  file: c.file,
  recordIn: c.recordIn,
  recordOut: c.recordOut,
  sourceIn: c.sourceIn,
  sourceOut: c.sourceOut,
});

function xmlRoot(body: string): Element {
  return new DOMParser().parseFromString(body, 'text/xml').documentElement!;
}
const all = (root: Element, tag: string): Element[] => Array.from(root.getElementsByTagName(tag));
const textIn = (node: Element, tag: string): string => all(node, tag)[0]?.textContent ?? '';

describe.each([
  { main: 'b' as const, fcpFrame: '1/25s', timebase: 25, ntsc: false, fcm: 'NON-DROP FRAME', start: '01:00:00:00' },
  { main: 'a' as const, fcpFrame: '1001/30000s', timebase: 30, ntsc: true, fcm: 'DROP FRAME', start: '01:00:00;00' },
  {
    main: 'c' as const,
    fcpFrame: '1001/24000s',
    timebase: 24,
    ntsc: true,
    fcm: 'NON-DROP FRAME',
    start: '01:00:00:00',
  },
])('main camera $main: every export at its exact rate and size, each file’s own timecode', (row) => {
  const { main } = row;
  const { num, den, width, height } = FILES[main].want;
  const job = (): ExportableJob => jobFor(main);
  const want = (): ReturnType<typeof expectedClips> => expectedClips(main);
  const hour = (): number => timecodeFrames(row.start, row.timebase);

  test('FCPXML: format, asset timecode (start) and audio, sequence tcStart 01:00:00:00, cuts on their frames', () => {
    const body = exportEdit(job(), 'fcpxml').body;
    const root = xmlRoot(body);
    const format = all(root, 'format')[0]!;
    expect([format.getAttribute('frameDuration'), format.getAttribute('width'), format.getAttribute('height')]).toEqual(
      [row.fcpFrame, String(width), String(height)],
    );
    const read = readFcpxml(body);
    expect(read.tcStart).toBe(hour());
    for (const k of KEYS) {
      expect(read.assetStart.get(FILES[k].name), k).toBe(startAt(k, main));
      const asset = all(root, 'asset').find((a) => a.getAttribute('name') === FILES[k].name.replace(/\.[^.]+$/, ''))!;
      expect([asset.getAttribute('audioRate'), asset.getAttribute('audioChannels')]).toEqual([
        String(FILES[k].want.sampleRate),
        String(FILES[k].want.channels),
      ]);
    }
    expect(read.video.map(strip)).toEqual(want());
  });

  test('Premiere XML: the cut on the top track (what a reader shows, enabled or not), camera tracks below, timecode per file', () => {
    const body = exportEdit(job(), 'xmeml').body;
    const read = readXmeml(body);
    expect([read.timebase, read.ntsc]).toEqual([row.timebase, row.ntsc]);
    const sequence = all(xmlRoot(body), 'sequence')[0]!;
    const format = all(sequence, 'format')[0]!;
    expect([Number(textIn(format, 'width')), Number(textIn(format, 'height'))]).toEqual([width, height]);
    expect(read.timecode.string).toBe(row.start);
    expect(read.timecode.frame).toBe(hour());
    expect(read.videoTracks).toBe(KEYS.length + 1);
    expect(read.video.map(strip)).toEqual(want());
    expect(read.video.every((c) => c.track === KEYS.length + 1)).toBe(true); // all from the top track
    const reels = reelNames(KEYS.map((k) => FILES[k].name.replace(/\.[^.]+$/, '')));
    KEYS.forEach((k, i) => {
      const tc = read.fileTimecode.get(FILES[k].name)!;
      expect(tc.frame, k).toBe(startAt(k, main));
      expect(timecodeFrames(tc.string, row.timebase)).toBe(startAt(k, main));
      expect(tc.reel).toBe(reels[i]);
    });
    for (const file of all(xmlRoot(body), 'file').filter((f) => textIn(f, 'pathurl') !== '')) {
      const k = KEYS.find((x) => FILES[x].name === textIn(file, 'name'))!;
      expect([Number(textIn(file, 'samplerate')), Number(textIn(file, 'channelcount'))]).toEqual([
        FILES[k].want.sampleRate,
        FILES[k].want.channels,
      ]);
    }
  });

  test('OTIO: exact rate, available_range from each file’s timecode, reels where OTIO’s adapters read them, global start', () => {
    const body = exportEdit(job(), 'otio').body;
    const read = readOtio(body);
    expect(read.rate).toBeCloseTo(num / den, 12);
    const doc = JSON.parse(body) as Json;
    expect(doc.metadata.multicam).toEqual({ rate: { num, den }, width, height });
    expect(read.globalStart).toBe(hour());
    expect(read.video.map(strip)).toEqual(want());
    const edlReels = new Map(parseEdl(exportEdit(job(), 'edl').body).events.map((e) => [e.clipName, e.reel]));
    for (const k of KEYS) {
      const m = read.media.get(FILES[k].name)!;
      expect(m.start, k).toBe(startAt(k, main));
      expect(m.reel).toBe(edlReels.get(FILES[k].name));
      expect(m.clipReel).toBe(m.reel);
    }
  });

  test('EDL: FCM, record from 01:00:00:00, source timecode from each file’s own, reels unique and mapped to one file each', () => {
    const body = exportEdit(job(), 'edl').body;
    const edl = parseEdl(body);
    expect(edl.fcm).toBe(row.fcm);
    expect(edl.events[0]!.recordIn).toBe(row.start);
    const starts = new Map(KEYS.map((k) => [FILES[k].name, startAt(k, main)]));
    const read = readEdl(body, row.timebase, { sourceStarts: starts });
    expect(read.video.map(strip)).toEqual(want());
    // The main camera's first event starts at its own timecode label.
    if (FILES[main].tc.frameRate.num === num) expect(edl.events[0]!.sourceIn).toBe(FILES[main].tc.start);
    const fileOfReel = new Map<string, string>();
    for (const e of edl.events) {
      expect(e.reel).toMatch(/^[A-Z0-9_]{1,8}$/);
      expect(fileOfReel.get(e.reel) ?? e.clipName).toBe(e.clipName);
      fileOfReel.set(e.reel, e.clipName!);
    }
    expect(new Set(fileOfReel.values()).size).toBe(fileOfReel.size); // one file per reel, one reel per file
  });

  test('recordStart moves the timeline’s first frame in every format alike', () => {
    const options = { recordStart: '00:59:50:00' };
    const at = timecodeFrames(row.fcm === 'DROP FRAME' ? '00:59:50;00' : '00:59:50:00', row.timebase);
    expect(readFcpxml(exportEdit(job(), 'fcpxml', options).body).tcStart).toBe(at);
    expect(readXmeml(exportEdit(job(), 'xmeml', options).body).timecode.frame).toBe(at);
    expect(readOtio(exportEdit(job(), 'otio', options).body).globalStart).toBe(at);
    const edl = readEdl(exportEdit(job(), 'edl', options).body, row.timebase, {
      recordStart: '00:59:50:00',
      sourceStarts: new Map(KEYS.map((k) => [FILES[k].name, startAt(k, main)])),
    });
    expect(edl.video.map(strip)).toEqual(want());
  });
});

describe('record start and reel names', () => {
  const job = (): ExportableJob => jobFor('a');
  test('a record start that is not a timecode at the export’s rate is refused, naming recordStart', () => {
    const field = (recordStart: string, extra = {}): string | null => {
      try {
        exportEdit(job(), 'edl', { recordStart, ...extra });
        return null;
      } catch (e) {
        return e instanceof ExportError ? e.field : 'other';
      }
    };
    expect(field('25:00:00:00')).toBe('recordStart');
    expect(field('01:00:00:30')).toBe('recordStart'); // 30 frames at 29.97: no such label
    expect(field('00:01:00;00')).toBe('recordStart'); // skipped in drop-frame
    expect(field('00:01:00:00', { dropFrame: false })).toBeNull(); // exists non-drop
    expect(field('10:00:00:00')).toBeNull();
  });

  test('reel names: 8 characters of A–Z 0–9 _, the telling part kept, collisions numbered in job order', () => {
    expect(reelNames(['Cam A', 'Cam B', 'Wide #2'])).toEqual(['CAM_A', 'CAM_B', 'WIDE_2']);
    expect(reelNames(['Conv2 A cam', 'Conv2 B cam', 'Conv2 wide'])).toEqual(['A_CAM', 'B_CAM', 'WIDE']);
    expect(reelNames(['Cam A', 'cam-a', 'CAM A!'])).toEqual(['CAM_A', 'CAM_A2', 'CAM_A3']);
    expect(reelNames(['Black', 'AX', '***'])).toEqual(['BLACK2', 'AX2', 'SRC3']);
    const long = reelNames(['Episode twelve close up Ana', 'Episode twelve close up Bo']);
    expect(long).toEqual(['ANA', 'BO']);
    for (const r of reelNames(['Überweitwinkel 1', 'Überweitwinkel 1', 'x'.repeat(40)]))
      expect(r).toMatch(/^[A-Z0-9_]{1,8}$/);
  });

  test('OTIO as its AAF adapter needs it: every media reference has an available range at the timeline rate, no track is empty', () => {
    const never: JobSource = { id: 'n', label: 'Never live', kind: 'video', ext: 'mp4' }; // no duration, never live
    const withIdle: ExportableJob = { ...job(), sources: [...job().sources, never] };
    const doc = JSON.parse(exportEdit(withIdle, 'otio').body) as Json;
    const rate = doc.tracks.children[0].children[0].source_range.duration.rate as number;
    for (const track of doc.tracks.children as Json[]) {
      expect(track.children.length, track.name).toBeGreaterThan(0);
      for (const item of track.children as Json[]) {
        expect(item.source_range.duration.rate).toBe(rate);
        if (item.OTIO_SCHEMA !== 'Clip.2') continue;
        const ref = item.media_references.DEFAULT_MEDIA;
        expect(ref.available_range.duration.rate).toBe(rate);
        expect(ref.available_range.start_time.rate).toBe(rate);
        // The clip lies within what the reference says is there.
        expect(item.source_range.start_time.value).toBeGreaterThanOrEqual(ref.available_range.start_time.value);
        expect(item.source_range.start_time.value + item.source_range.duration.value).toBeLessThanOrEqual(
          ref.available_range.start_time.value + ref.available_range.duration.value,
        );
      }
    }
    const idle = (doc.tracks.children as Json[]).find((t) => t.name === 'Never live')!;
    expect(idle.children.map((c: Json) => c.OTIO_SCHEMA)).toEqual(['Gap.1']);
  });

  test('OTIO carries one AAF MobID per file (a SMPTE basic UMID pyaaf2 parses), the same on every clip of it and in every export of the job', () => {
    const mobIds = (j: ExportableJob): Map<string, Set<string>> => {
      const byFile = new Map<string, Set<string>>();
      const doc = JSON.parse(exportEdit(j, 'otio').body) as Json;
      for (const track of doc.tracks.children as Json[])
        for (const item of track.children as Json[]) {
          if (item.OTIO_SCHEMA !== 'Clip.2') continue;
          const ref = item.media_references.DEFAULT_MEDIA;
          const ids = byFile.get(ref.target_url) ?? new Set<string>();
          ids.add(ref.metadata.AAF?.MobID);
          byFile.set(ref.target_url, ids);
        }
      return byFile;
    };
    const first = mobIds(job());
    expect([...first.keys()].sort()).toEqual(KEYS.map((k) => encodeURI(FILES[k].name)).sort());
    for (const [file, ids] of first) {
      // One id for all the file's clips, video and camera audio alike: one master clip in the AAF.
      expect(ids.size, file).toBe(1);
      const urn = [...ids][0]!;
      expect(urn, file).toMatch(/^urn:smpte:umid:[0-9a-f]{8}(\.[0-9a-f]{8}){7}$/);
      // pyaaf2's MobID.urn setter: strip the prefix and dots, then 64 hex digits. SMPTE ST 330:
      // a 12-byte universal label 06 0A 2B 34 01 01 01 05 01 01 (UMID), material type 0F (not
      // identified), creation method 20 (UUID/UL); length 13h (basic UMID); instance 000000.
      const hex = urn.replace('urn:smpte:umid:', '').replaceAll('.', '');
      expect(hex).toHaveLength(64);
      expect(hex.slice(0, 32)).toBe('060a2b340101010501010f2013000000');
      // The material number is a UUID: version 8 (custom), RFC 9562 variant.
      expect(hex[32 + 12]).toBe('8');
      expect('89ab').toContain(hex[32 + 16]!);
    }
    const ids = (m: Map<string, Set<string>>): string[] => [...m.values()].map((s) => [...s][0]!);
    expect(new Set(ids(first)).size).toBe(first.size); // one per file
    expect(ids(mobIds(job()))).toEqual(ids(first)); // the same again
    const other = ids(mobIds({ ...job(), id: 'job_other' }));
    expect(other.filter((id) => ids(first).includes(id))).toEqual([]); // another job: other master clips
  });

  test('the CLI takes --record-start with --export', () => {
    const videos = [pathOf('a'), pathOf('b')];
    expect(
      parseEditArgs([...videos, '-o', join(dir, 'o.mp4'), '--export', 'edl', '--record-start', '00:59:30:00'])
        .recordStart,
    ).toBe('00:59:30:00');
    expect(parseEditArgs([...videos, '-o', join(dir, 'o.mp4')]).recordStart).toBeNull();
    expect(() =>
      parseEditArgs([...videos, '-o', join(dir, 'o.mp4'), '--export', 'edl', '--record-start', '1:00']),
    ).toThrow(UsageError);
    expect(() => parseEditArgs([...videos, '-o', join(dir, 'o.mp4'), '--record-start', '01:00:00:00'])).toThrow(
      UsageError,
    );
  });
});

test('syncing’s probe report puts the timecode on the Job’s source (nonsense dropped); the route refuses a bad recordStart', async () => {
  const h = await createNodeHarness();
  try {
    const apiKey = (await h.createAccount()).apiKey;
    const call = async (method: string, rest: string, json?: unknown): Promise<Json> =>
      (
        await h.request(h.baseUrl + rest, {
          method,
          headers: { authorization: `Bearer ${apiKey}` },
          ...(json === undefined ? {} : { json }),
        })
      ).json as Json;
    const created = await call('POST', '/jobs', {
      title: 'TC',
      autoMap: 'off',
      sources: [{ label: 'A' }, { label: 'B' }],
    });
    for (const info of Object.values<Json>(created.uploads))
      expect((await h.request(info.url, { method: 'PUT', body: 'bytes '.repeat(20) })).status).toBe(200);
    const [a, b] = Object.keys(created.uploads) as [string, string];
    await call('POST', `/jobs/${created.jobId}/process`);
    h.engine.pending.splice(
      h.engine.pending.findIndex((w) => w.jobId === created.jobId && w.stage === 'syncing'),
      1,
    );
    await h.service.reporter.stageSucceeded(created.jobId, 'syncing', {
      durationsMs: { [a]: 6000, [b]: 6000 },
      offsetsMs: { [a]: 0, [b]: 0 },
      driftPpm: { [a]: 0, [b]: 0 },
      media: {
        [a]: probedMedia(probes.get('a')!),
        // A drop-frame flag at 25 fps and a label past 24 h: not a timecode.
        [b]: { timecode: { start: '25:00:00;00', frameRate: { num: 25, den: 1 }, dropFrame: true } },
      },
    });
    const job = (await call('GET', `/jobs/${created.jobId}`)).job;
    // The route checks recordStart before anything else about the export.
    const bad = await h.request(`${h.baseUrl}/jobs/${created.jobId}/export?format=edl&recordStart=1h`, {
      method: 'GET',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('recordStart');
    const byId = new Map<string, Json>(job.sources.map((s: Json) => [s.id, s]));
    expect(byId.get(a)!.timecode).toEqual(FILES.a.tc);
    expect(byId.get(b)).not.toHaveProperty('timecode');
  } finally {
    await h.dispose();
  }
});
