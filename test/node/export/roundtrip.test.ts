/**
 * Edit exports (src/export): every format is parsed back (XML parser, JSON.parse, an EDL line
 * parser, all in read-back.ts) and must reproduce the cut list to the frame, with each source's
 * sync offset and drift applied, at every supported frame rate, over more than ten minutes
 * (where drop-frame timecode matters).
 */
import { describe, expect, test } from 'vitest';
import { toSourceTime } from '../../../src/analysis/sync/sync.ts';
import type { Cut, JobSource, TimeRange } from '../../../src/contract/types.ts';
import { exportEdit, ExportError, type ExportableJob } from '../../../src/export/index.ts';
import { readEdl, readFcpxml, readOtio, readXmeml, timecodeFrames, type ReadClip } from './read-back.ts';

const sources: JobSource[] = [
  { id: 'src_a', label: 'Cam A', kind: 'video', ext: 'mp4', durationMs: 1_500_000, offsetMs: 0, driftPpm: 0 },
  { id: 'src_b', label: 'Cam B', kind: 'video', ext: 'mov', durationMs: 1_500_000, offsetMs: 1234.5, driftPpm: 37 },
  { id: 'src_c', label: 'Wide #2', kind: 'video', ext: 'mp4', durationMs: 1_500_000, offsetMs: 20_500, driftPpm: -80 },
  { id: 'src_m', label: 'Host mic', kind: 'audio', ext: 'wav', durationMs: 1_500_000, offsetMs: 612.3, driftPpm: 12 },
];
const fileName = new Map(sources.map((s) => [s.id, `${s.label}.${s.ext}`]));
const byId = new Map(sources.map((s) => [s.id, s]));

/** 40 cuts of irregular length over about 19 minutes, never the same camera twice in a row. */
function makeCuts(): Cut[] {
  const order = ['src_a', 'src_b', 'src_c', 'src_b', 'src_a', 'src_c', 'src_a', 'src_b'];
  const cuts: Cut[] = [];
  let t = 21_000.3;
  for (let k = 0; k < 40; k++) {
    const len = 4_000 + ((k * 7919) % 50_000) + 0.37 * k;
    cuts.push({ sourceId: order[k % order.length]!, startMs: t, endMs: t + len });
    t += len;
  }
  return cuts;
}
const cuts = makeCuts();
const removed: TimeRange[] = [
  { startMs: 100_000.4, endMs: 101_733.9 },
  { startMs: 400_010, endMs: 403_500 },
  { startMs: cuts[10]!.endMs - 700, endMs: cuts[10]!.endMs + 900 }, // across a cut
  { startMs: 500_000, endMs: 500_005 }, // shorter than a frame
];
const job: ExportableJob = { id: 'job_1', title: 'Episode 12', sources, cuts, removed_ranges: removed };

const RATES = [
  { fps: 23.976, num: 24000, den: 1001 },
  { fps: 24, num: 24, den: 1 },
  { fps: 25, num: 25, den: 1 },
  { fps: 29.97, num: 30000, den: 1001 },
  { fps: 30, num: 30, den: 1 },
  { fps: 50, num: 50, den: 1 },
  { fps: 59.94, num: 60000, den: 1001 },
  { fps: 60, num: 60, den: 1 },
] as const;

interface Expected extends ReadClip {
  sourceId: string;
  referenceIn: number;
  /** The cut's reference start and end in ms before snapping (for the truth check). */
  startMs: number;
  endMs: number;
}

/** The source frame shown at a reference frame: offset and drift applied (toSourceTime), rounded. */
function sourceFrame(sourceId: string, referenceFrame: number, frameMs: number): number {
  const s = byId.get(sourceId)!;
  return Math.round(
    toSourceTime(referenceFrame * frameMs, { offsetMs: s.offsetMs ?? 0, driftPpm: s.driftPpm ?? 0 }) / frameMs,
  );
}

/** What the edit must be on the frame grid: cuts minus removed ranges, each boundary on the nearest reference frame. */
function expectedEdit(num: number, den: number): Expected[] {
  const frameMs = (1000 * den) / num;
  const pieces: Array<{ sourceId: string; startMs: number; endMs: number }> = [];
  for (const c of cuts) {
    let parts = [[c.startMs, c.endMs] as [number, number]];
    for (const r of removed) {
      parts = parts.flatMap(([s, e]): Array<[number, number]> => {
        if (r.endMs <= s || r.startMs >= e) return [[s, e]];
        const out: Array<[number, number]> = [];
        if (r.startMs > s) out.push([s, r.startMs]);
        if (r.endMs < e) out.push([r.endMs, e]);
        return out;
      });
    }
    for (const [s, e] of parts) pieces.push({ sourceId: c.sourceId, startMs: s, endMs: e });
  }
  const out: Expected[] = [];
  let record = 0;
  for (const p of pieces) {
    const refIn = Math.round(p.startMs / frameMs);
    const refOut = Math.round(p.endMs / frameMs);
    if (refOut <= refIn) continue;
    const last = out[out.length - 1];
    if (last && last.sourceId === p.sourceId && last.referenceIn + (last.recordOut - last.recordIn) === refIn) {
      last.recordOut += refOut - refIn;
      last.sourceOut += refOut - refIn;
      last.endMs = p.endMs;
    } else {
      const sourceIn = sourceFrame(p.sourceId, refIn, frameMs);
      out.push({
        sourceId: p.sourceId,
        file: fileName.get(p.sourceId)!,
        recordIn: record,
        recordOut: record + refOut - refIn,
        sourceIn,
        sourceOut: sourceIn + refOut - refIn,
        referenceIn: refIn,
        startMs: p.startMs,
        endMs: p.endMs,
      });
    }
    record += refOut - refIn;
  }
  return out;
}

const strip = (c: ReadClip): ReadClip => ({
  file: c.file,
  recordIn: c.recordIn,
  recordOut: c.recordOut,
  sourceIn: c.sourceIn,
  sourceOut: c.sourceOut,
});

/** Each audio clip starts at the audio source's synced frame and the clips cover the whole edit. */
function checkAudio(
  audio: readonly ReadClip[],
  expected: readonly Expected[],
  frameMs: number,
  audioId = 'src_m',
): void {
  const total = expected[expected.length - 1]!.recordOut;
  let covered = 0;
  for (const a of [...audio].sort((x, y) => x.recordIn - y.recordIn)) {
    expect(a.file).toBe(fileName.get(audioId));
    const e = expected.find((x) => x.recordIn <= a.recordIn && a.recordIn < x.recordOut)!;
    expect(a.sourceIn).toBe(sourceFrame(audioId, e.referenceIn + (a.recordIn - e.recordIn), frameMs));
    expect(a.sourceOut - a.sourceIn).toBe(a.recordOut - a.recordIn);
    expect(a.recordIn).toBe(covered);
    covered = a.recordOut;
  }
  expect(covered).toBe(total);
}

describe('the expected edit itself', () => {
  test.each(RATES)(
    'at $fps fps it lies within a frame of the cut list in ms (offset and drift applied) and runs over ten minutes',
    ({ num, den }) => {
      const frameMs = (1000 * den) / num;
      const edit = expectedEdit(num, den);
      expect(edit.length).toBeGreaterThan(40); // the removed ranges split cuts
      expect((edit[edit.length - 1]!.recordOut * frameMs) / 60_000).toBeGreaterThan(10);
      for (const e of edit) {
        const s = byId.get(e.sourceId)!;
        const clock = { offsetMs: s.offsetMs ?? 0, driftPpm: s.driftPpm ?? 0 };
        const driftSlack = Math.abs(clock.driftPpm) * 1e-6 * (e.endMs - e.startMs);
        expect(Math.abs(e.sourceIn * frameMs - toSourceTime(e.startMs, clock))).toBeLessThanOrEqual(frameMs + 1e-6);
        expect(Math.abs(e.sourceOut * frameMs - toSourceTime(e.endMs, clock))).toBeLessThanOrEqual(
          frameMs + driftSlack + 1e-6,
        );
      }
    },
  );
});

describe.each(RATES)('at $fps fps', ({ fps, num, den }) => {
  const frameMs = (1000 * den) / num;
  const expected = expectedEdit(num, den);
  const want = expected.map(strip);

  test('FCPXML: a multicam clip whose mc-clips give back every cut, angles in sync for every camera', () => {
    const file = exportEdit(job, 'fcpxml', { fps });
    expect(file.filename).toBe('Episode 12.fcpxml');
    const read = readFcpxml(file.body);
    const [major, minor] = read.version.split('.').map(Number) as [number, number];
    expect(major === 1 && minor >= 9).toBe(true); // media-rep needs 1.9+
    expect(read.video.map(strip)).toEqual(want);
    checkAudio(read.audio, expected, frameMs);
    // Switching angle anywhere in the edit shows that camera's synced frame.
    for (const e of expected) {
      for (const cam of ['src_a', 'src_b', 'src_c']) {
        const shown = read.angleFrame(fileName.get(cam)!, e.referenceIn);
        if (sourceFrame(cam, e.referenceIn, frameMs) >= 0)
          expect(shown, `${cam} at reference frame ${e.referenceIn}`).toBe(sourceFrame(cam, e.referenceIn, frameMs));
        else expect(shown).toBeNull(); // the camera had not started yet
      }
    }
  });

  test('Premiere XML: the top track gives back every cut; camera tracks below, enabled where live, keep every camera in sync', () => {
    const file = exportEdit(job, 'xmeml', { fps });
    expect(file.filename).toBe('Episode 12.xml');
    const read = readXmeml(file.body);
    expect(read.timebase).toBe(Math.round(num / den));
    expect(read.ntsc).toBe(den === 1001);
    expect(read.videoTracks).toBe(4); // 3 cameras, the cut on top
    expect(read.video.map(strip)).toEqual(want); // what plays, whether or not a reader honours `enabled`
    expect(read.video.every((c) => c.track === 4 && c.enabled)).toBe(true);
    // A reader that honours `enabled` sees the same edit on the camera tracks alone.
    expect(
      read
        .angles!.filter((c) => c.enabled)
        .sort((x, y) => x.recordIn - y.recordIn)
        .map(strip),
    ).toEqual(want);
    for (const clip of read.angles!) {
      const cam = [...fileName.entries()].find(([, f]) => f === clip.file)![0];
      expect(clip.track).toBe(['src_a', 'src_b', 'src_c'].indexOf(cam) + 1); // one track per camera
      const e = expected.find((x) => x.recordIn <= clip.recordIn && clip.recordIn < x.recordOut)!;
      expect(clip.sourceIn).toBe(sourceFrame(cam, e.referenceIn + (clip.recordIn - e.recordIn), frameMs));
      expect(clip.enabled).toBe(e.sourceId === cam);
    }
    checkAudio(read.audio, expected, frameMs);
  });

  test('OTIO: one video track per camera (clips where live, gaps elsewhere) gives back every cut', () => {
    const file = exportEdit(job, 'otio', { fps });
    expect(file.filename).toBe('Episode 12.otio');
    const read = readOtio(file.body);
    expect(read.schema).toBe('Timeline.1');
    expect(read.videoTracks).toBe(3);
    expect(read.rate).toBe(num / den);
    expect(read.video.map(strip)).toEqual(want);
    for (const clip of read.video)
      expect(clip.track).toBe(['Cam A.mp4', 'Cam B.mov', 'Wide #2.mp4'].indexOf(clip.file) + 1);
    checkAudio(read.audio, expected, frameMs);
  });

  const timecodes = den === 1001 && Math.round(num / den) % 30 === 0 ? [true, false] : [false];
  test.each(timecodes)('EDL (drop-frame %s): the switched edit event by event, reels from labels', (dropFrame) => {
    const file = exportEdit(job, 'edl', { fps, dropFrame });
    expect(file.filename).toBe('Episode 12.edl');
    const read = readEdl(file.body, Math.round(num / den));
    expect(read.fcm).toBe(dropFrame ? 'DROP FRAME' : 'NON-DROP FRAME');
    expect(read.video.map(strip)).toEqual(want);
    for (const e of read.events) {
      expect(e.reel).toMatch(/^[A-Z0-9_]{1,8}$/);
      expect(e.recordIn.includes(';')).toBe(dropFrame);
    }
    expect(new Set(read.events.filter((e) => e.channel === 'V').map((e) => e.reel))).toEqual(
      new Set(['CAM_A', 'CAM_B', 'WIDE_2']),
    );
    expect(read.events.filter((e) => e.channel === 'A').every((e) => e.reel === 'HOST_MIC')).toBe(true);
    checkAudio(read.audio, expected, frameMs);
  });

  test('EDL track=N: only camera N', () => {
    const read = readEdl(exportEdit(job, 'edl', { fps, track: 2 }).body, Math.round(num / den));
    expect(read.title).toBe('Episode 12 - Cam B');
    expect(read.video.map(strip)).toEqual(want.filter((c) => c.file === 'Cam B.mov'));
    expect(read.audio).toEqual([]);
  });
});

/**
 * The part of Apple's FCPXML 1.10 DTD our documents use: each element's allowed children and
 * attributes, and the attributes it requires. Final Cut rejects a document that does not match.
 */
const FCPXML_DTD: Record<string, { children: string[]; attrs: string[]; required?: string[] }> = {
  fcpxml: { children: ['resources', 'library'], attrs: ['version'], required: ['version'] },
  resources: { children: ['asset', 'format', 'media'], attrs: [] },
  format: { children: [], attrs: ['id', 'name', 'frameDuration', 'width', 'height'], required: ['id'] },
  asset: {
    children: ['media-rep'],
    attrs: [
      'id',
      'name',
      'start',
      'duration',
      'hasVideo',
      'format',
      'hasAudio',
      'audioSources',
      'audioChannels',
      'audioRate',
    ],
    required: ['id'],
  },
  'media-rep': { children: [], attrs: ['kind', 'src'], required: ['src'] },
  media: { children: ['multicam'], attrs: ['id', 'name'], required: ['id'] },
  multicam: { children: ['mc-angle'], attrs: ['format', 'duration', 'tcStart', 'tcFormat'], required: ['format'] },
  'mc-angle': { children: ['gap', 'asset-clip'], attrs: ['name', 'angleID'], required: ['angleID'] },
  gap: { children: [], attrs: ['name', 'offset', 'start', 'duration'], required: ['duration'] },
  'asset-clip': {
    children: ['adjust-volume'],
    attrs: ['ref', 'offset', 'name', 'start', 'duration', 'tcFormat'],
    required: ['ref'],
  },
  // A source's clip gain (`%intrinsic-params-audio;` of asset-clip): amount="-6dB".
  'adjust-volume': { children: [], attrs: ['amount'] },
  library: { children: ['event'], attrs: [] },
  event: { children: ['project'], attrs: ['name'] },
  project: { children: ['sequence'], attrs: ['name'] },
  sequence: {
    children: ['spine'],
    attrs: ['format', 'duration', 'tcStart', 'tcFormat', 'audioLayout', 'audioRate'],
    required: ['format'],
  },
  spine: { children: ['mc-clip'], attrs: [] },
  'mc-clip': {
    children: ['mc-source'],
    attrs: ['ref', 'offset', 'name', 'start', 'duration'],
    required: ['ref', 'duration'],
  },
  'mc-source': { children: [], attrs: ['angleID', 'srcEnable'], required: ['angleID'] },
};

describe('FCPXML structure', () => {
  test('only elements and attributes of the FCPXML 1.10 DTD, required attributes present, IDREFs resolve', async () => {
    const { DOMParser } = await import('@xmldom/xmldom');
    // With a clip gain on the mic, so its adjust-volume is checked too.
    const body = exportEdit({ ...job, audio: { loudness: -16, gains: { src_m: -6 } } }, 'fcpxml', { fps: 29.97 }).body;
    expect(body).toContain('<adjust-volume amount="-6dB"/>');
    expect(body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<!DOCTYPE fcpxml>\n<fcpxml version="1.10">/);
    const root = new DOMParser().parseFromString(body, 'text/xml').documentElement!;
    const ids = new Set<string>();
    const refs: string[] = [];
    const visit = (node: import('@xmldom/xmldom').Element): void => {
      const rule = FCPXML_DTD[node.tagName];
      expect(rule, `<${node.tagName}>`).toBeDefined();
      for (let i = 0; i < node.attributes.length; i++) {
        const a = node.attributes.item(i)!;
        expect(rule!.attrs, `<${node.tagName} ${a.name}>`).toContain(a.name);
        if (a.name === 'id') ids.add(a.value);
        if (a.name === 'ref' || a.name === 'format') refs.push(a.value);
      }
      for (const r of rule!.required ?? []) expect(node.hasAttribute(r), `<${node.tagName}> needs ${r}`).toBe(true);
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType !== 1) continue;
        const el = c as import('@xmldom/xmldom').Element;
        expect(rule!.children, `<${el.tagName}> inside <${node.tagName}>`).toContain(el.tagName);
        visit(el);
      }
    };
    visit(root);
    for (const r of refs) expect(ids.has(r), `IDREF ${r}`).toBe(true);
  });
});

describe('drop-frame timecode', () => {
  test('at 29.97 and 59.94 the EDL timecode differs from non-drop past ten minutes but means the same frames', () => {
    for (const fps of [29.97, 59.94]) {
      const base = Math.round(fps);
      const df = readEdl(exportEdit(job, 'edl', { fps, dropFrame: true }).body, base);
      const ndf = readEdl(exportEdit(job, 'edl', { fps, dropFrame: false }).body, base);
      expect(df.video).toEqual(ndf.video);
      const late = df.events.filter(
        (e, i) =>
          timecodeFrames(e.recordIn, base) - timecodeFrames('01:00:00;00', base) > 10 * 60 * fps &&
          e.recordIn.replace(';', ':') !== ndf.events[i]!.recordIn,
      );
      expect(late.length).toBeGreaterThan(0);
    }
  });

  test('known drop-frame labels', async () => {
    const { toTimecode } = await import('../../../src/export/rate.ts');
    const ntsc30 = { num: 30000, den: 1001 };
    const ntsc60 = { num: 60000, den: 1001 };
    expect(toTimecode(17_982, ntsc30, true)).toBe('00:10:00;00');
    expect(toTimecode(1_800, ntsc30, true)).toBe('00:01:00;02');
    expect(toTimecode(1_799, ntsc30, true)).toBe('00:00:59;29');
    expect(toTimecode(107_892, ntsc30, true)).toBe('01:00:00;00');
    expect(toTimecode(35_964, ntsc60, true)).toBe('00:10:00;00');
    expect(toTimecode(3_600, ntsc60, true)).toBe('00:01:00;04');
    expect(toTimecode(17_982, ntsc30, false)).toBe('00:09:59:12');
    // Every frame of 21 minutes round-trips through the independent parser, and no dropped label appears.
    for (const [rate, base] of [
      [ntsc30, 30],
      [ntsc60, 60],
    ] as const) {
      for (let f = 0; f < 21 * 60 * base; f++) {
        const tc = toTimecode(f, rate, true);
        if (timecodeFrames(tc, base) !== f) throw new Error(`${f} → ${tc} → ${timecodeFrames(tc, base)}`);
      }
    }
  });
});

describe('inputs', () => {
  test('the frame rate is the main camera’s probed rate, else 30, unless fps is given', () => {
    const probed: ExportableJob = {
      ...job,
      sources: sources.map((s) =>
        s.id === 'src_a' ? { ...s, frameRate: 25 } : s.id === 'src_b' ? { ...s, frameRate: 29.97 } : s,
      ),
    };
    const live = (id: string): number =>
      cuts.filter((c) => c.sourceId === id).reduce((sum, c) => sum + c.endMs - c.startMs, 0);
    const main = live('src_a') >= live('src_b') ? 25 : 29.97;
    expect(exportEdit(probed, 'otio').rate).toEqual(main === 25 ? { num: 25, den: 1 } : { num: 30000, den: 1001 });
    expect(exportEdit(job, 'otio').rate).toEqual({ num: 30, den: 1 });
    expect(exportEdit(probed, 'otio', { fps: 23.976 }).rate).toEqual({ num: 24000, den: 1001 });
  });

  test('bad inputs throw ExportError naming the field', () => {
    const field = (f: () => unknown): string => {
      try {
        f();
      } catch (error) {
        expect(error).toBeInstanceOf(ExportError);
        return (error as ExportError).field;
      }
      throw new Error('no error');
    };
    expect(field(() => exportEdit(job, 'aaf'))).toBe('format');
    expect(field(() => exportEdit(job, 'otio', { fps: 33.3 }))).toBe('fps');
    expect(field(() => exportEdit(job, 'edl', { track: 4 }))).toBe('track');
    expect(field(() => exportEdit({ ...job, cuts: [] }, 'edl'))).toBe('cuts');
    expect(field(() => exportEdit({ ...job, cuts: [{ sourceId: 'nope', startMs: 0, endMs: 1000 }] }, 'fcpxml'))).toBe(
      'cuts[0].sourceId',
    );
    expect(field(() => exportEdit({ ...job, cuts: [{ sourceId: 'src_m', startMs: 0, endMs: 1000 }] }, 'fcpxml'))).toBe(
      'cuts[0].sourceId',
    );
  });

  test('no audio sources: the live camera carries the sound (EDL B events, FCPXML srcEnable all)', () => {
    const videoOnly: ExportableJob = { ...job, sources: sources.filter((s) => s.kind === 'video') };
    const expected = expectedEdit(30, 1);
    const edl = readEdl(exportEdit(videoOnly, 'edl', { fps: 30 }).body, 30);
    expect(edl.events.every((e) => e.channel === 'B')).toBe(true);
    expect(edl.audio.map(strip)).toEqual(expected.map(strip));
    const fcp = readFcpxml(exportEdit(videoOnly, 'fcpxml', { fps: 30 }).body);
    expect(fcp.audio.map(strip)).toEqual(expected.map(strip));
    const otio = readOtio(exportEdit(videoOnly, 'otio', { fps: 30 }).body);
    expect(otio.audio.map(strip)).toEqual(expected.map(strip));
    const xmeml = readXmeml(exportEdit(videoOnly, 'xmeml', { fps: 30 }).body);
    expect(xmeml.audio.map(strip)).toEqual(expected.map(strip));
  });

  test('sources without duration, offset or drift: every format reads back the plain cut list', () => {
    const bare: ExportableJob = {
      id: 'job_2',
      title: null,
      sources: [
        { id: 'x', label: 'X', kind: 'video', ext: 'mp4' },
        { id: 'y', label: 'Y', kind: 'video', ext: 'mp4' },
      ],
      cuts: [
        { sourceId: 'x', startMs: 0, endMs: 1000 },
        { sourceId: 'y', startMs: 1000, endMs: 2520 },
        { sourceId: 'x', startMs: 2520, endMs: 4000 },
      ],
      removed_ranges: null,
    };
    const want = [
      { file: 'X.mp4', recordIn: 0, recordOut: 25, sourceIn: 0, sourceOut: 25 },
      { file: 'Y.mp4', recordIn: 25, recordOut: 63, sourceIn: 25, sourceOut: 63 },
      { file: 'X.mp4', recordIn: 63, recordOut: 100, sourceIn: 63, sourceOut: 100 },
    ];
    const file = exportEdit(bare, 'fcpxml', { fps: 25 });
    expect(file.filename).toBe('job_2.fcpxml'); // untitled: named after the job id
    expect(readFcpxml(file.body).video.map(strip)).toEqual(want);
    expect(readXmeml(exportEdit(bare, 'xmeml', { fps: 25 }).body).video.map(strip)).toEqual(want);
    expect(readOtio(exportEdit(bare, 'otio', { fps: 25 }).body).video.map(strip)).toEqual(want);
    expect(readEdl(exportEdit(bare, 'edl', { fps: 25 }).body, 25).video.map(strip)).toEqual(want);
  });

  test('media URLs are percent-encoded file names, under mediaRoot when given; XML special characters are escaped', () => {
    const odd: ExportableJob = {
      ...job,
      title: 'Q&A <live> "ep"',
      sources: sources.map((s) => (s.id === 'src_a' ? { ...s, label: 'Cam A & B' } : s)),
    };
    const fcp = exportEdit(odd, 'fcpxml', { mediaRoot: 'file:///Volumes/Pod/ep12/' });
    expect(fcp.body).toContain('src="file:///Volumes/Pod/ep12/Cam%20A%20%26%20B.mp4"');
    expect(readFcpxml(fcp.body).video[0]!.file).toBe('Cam A & B.mp4');
    expect(readXmeml(exportEdit(odd, 'xmeml').body).video[0]!.file).toBe('Cam A & B.mp4');
    expect(exportEdit(odd, 'otio').body).toContain('"target_url": "Wide%20%232.mp4"');
  });
});
