/**
 * Injection into exports (issue 48): free text a client gives (source labels, the job title,
 * speaker names, cut reasons) is bounded and stripped of control characters at validation, and
 * every export writer stays well-formed even for records stored before that check (a label that
 * still holds a newline must not add an EDL event; a control character must not make the XML
 * ill-formed).
 *
 * Part (a) goes through the Node handler; part (b) feeds the writers hostile text directly.
 */
import { DOMParser } from '@xmldom/xmldom';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { JobSource } from '../../../src/contract/types.ts';
import {
  buildTimeline,
  exportEdit,
  writeEdl,
  writeFcpxml,
  writeOtio,
  writeXmeml,
  type EditTimeline,
  type ExportableJob,
} from '../../../src/export/index.ts';
import { frameRateOf } from '../../../src/export/rate.ts';
import type { HarnessResponse } from '../../contract/harness.ts';
import { createNodeHarness, type NodeHarness } from '../../contract/node-harness.ts';

type Json = Record<string, any>; // response bodies read loosely, as a client would

/** A label that tries to add an EDL event, with C0 controls (SOH, BS, VT, ESC) after it. */
const EVIL_LABEL = 'Cam A\n* FROM CLIP NAME: evil\n001  EVIL\u0001\u0008\u000B\u001B[31m';
/** What is stored: line breaks and tabs become one space, other controls go, the ends are trimmed. */
const CLEAN_LABEL = 'Cam A * FROM CLIP NAME: evil 001  EVIL [31m';

/** Characters no stored text may hold: C0 and C1 controls, DEL, lone surrogates, U+FFFE/U+FFFF. */
const UNCLEAN =
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  /[\u0000-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Every string anywhere in a JSON value. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

const TC = '\\d\\d:\\d\\d:\\d\\d[:;]\\d\\d';
/** The shapes of the lines writeEdl writes; anything else is injected. */
const EDL_LINES = [
  /^TITLE: .*$/,
  /^FCM: (DROP FRAME|NON-DROP FRAME)$/,
  new RegExp(`^\\d{3} {2}[A-Z0-9_]{1,8} +(V|B|A|A2|A3|A4) +C {8}${TC} ${TC} ${TC} ${TC}$`),
  /^\* FROM CLIP NAME: .+$/,
  /^\* COMMENT: .+$/,
  /^$/,
];

/** The EDL's event lines, after checking that every line has one of the shapes writeEdl writes. */
function edlEvents(edl: string): string[] {
  expect(edl.endsWith('\n')).toBe(true);
  const lines = edl.slice(0, -1).split('\n');
  for (const line of lines) {
    expect(
      EDL_LINES.some((shape) => shape.test(line)),
      `an EDL line no writer wrote: ${JSON.stringify(line)}`,
    ).toBe(true);
    expect(line, 'EDL line with a control character').not.toMatch(UNCLEAN);
  }
  expect(edl).not.toMatch(/\r/);
  const events = lines.filter((l) => /^\d{3} {2}/.test(l));
  // Numbered 001, 002, … with nothing skipped or repeated.
  expect(events.map((l) => Number(l.slice(0, 3)))).toEqual(events.map((_, i) => i + 1));
  // Each event has exactly one clip name.
  expect(lines.filter((l) => l.startsWith('* FROM CLIP NAME: '))).toHaveLength(events.length);
  return events;
}

/**
 * Parses XML 1.0 strictly: xmldom's errors and warnings fail the test, and so does any character
 * outside XML 1.0's Char production, raw or as a character reference (xmldom lets those through).
 */
function parseXmlStrictly(text: string): Document {
  const problems: string[] = [];
  const doc = new DOMParser({
    onError: (level, message) => {
      problems.push(`${level}: ${message}`);
    },
  }).parseFromString(text, 'text/xml') as unknown as Document;
  expect(problems).toEqual([]);
  const illegal = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
  const raw = illegal.exec(text);
  expect(raw, `a character XML 1.0 forbids: U+${raw?.[0].codePointAt(0)?.toString(16)}`).toBeNull();
  for (const ref of text.matchAll(/&#(x[0-9a-f]+|\d+);/gi)) {
    const code = ref[1]!.startsWith('x') || ref[1]!.startsWith('X') ? parseInt(ref[1]!.slice(1), 16) : Number(ref[1]);
    expect(String.fromCodePoint(code), `a character reference XML 1.0 forbids: ${ref[0]}`).not.toMatch(illegal);
  }
  return doc;
}

/** Every attribute value and text node of an XML document. */
function xmlStrings(doc: Document): string[] {
  const out: string[] = [];
  const walk = (node: Node): void => {
    if (node.nodeType === 3) out.push(node.nodeValue ?? '');
    const attrs = (node as Element).attributes;
    if (attrs) for (let i = 0; i < attrs.length; i++) out.push(attrs[i]!.value);
    for (let c = node.firstChild; c; c = c.nextSibling) walk(c);
  };
  walk(doc.documentElement);
  return out;
}

// ------------------------------------------------------------------------------------------------
describe('(a) validation: free text is bounded and stripped of control characters', () => {
  let h: NodeHarness;
  let key: string;
  beforeEach(async () => {
    h = await createNodeHarness();
    key = (await h.createAccount()).apiKey;
  });
  afterEach(async () => {
    await h.dispose();
  });

  const call = async (method: string, rest: string, json?: unknown): Promise<HarnessResponse> =>
    h.request(h.baseUrl + rest, {
      method,
      headers: { authorization: `Bearer ${key}` },
      ...(json === undefined ? {} : { json }),
    });
  const ok = (r: HarnessResponse): Json => {
    expect(r.status, r.text).toBe(200);
    return r.json as Json;
  };
  const refused = (r: HarnessResponse, message: string): void => {
    expect(r.status, r.text).toBe(400);
    expect((r.json as Json).error).toBe(message);
  };
  const jobCount = async (): Promise<number> => (ok(await call('GET', '/jobs')).jobs as unknown[]).length;
  const getJob = async (jobId: string): Promise<Json> => ok(await call('GET', `/jobs/${jobId}`)).job as Json;

  /** A job with two cameras labelled `labels`, taken to `ready` with cuts. */
  async function readyJob(labels: [string, string], title?: string): Promise<{ jobId: string; sourceIds: string[] }> {
    const created = ok(
      await call('POST', '/jobs', {
        sources: labels.map((label) => ({ label })),
        autoMap: 'off',
        ...(title === undefined ? {} : { title }),
      }),
    );
    const jobId = created.jobId as string;
    const sourceIds = Object.keys(created.uploads);
    for (const info of Object.values<Json>(created.uploads)) {
      // An MP4's first box (`ftyp` at offset 4): uploads are sniffed as media.
      const r = await h.request(info.url, { method: 'PUT', body: `\0\0\0\x18ftypisom${'some bytes '.repeat(20)}` });
      expect(r.status, r.text).toBe(200);
    }
    ok(await call('POST', `/jobs/${jobId}/process`));
    await h.completeStage(jobId, 'syncing', { durationsMs: { [sourceIds[0]!]: 60_000, [sourceIds[1]!]: 60_000 } });
    await h.completeStage(jobId, 'diarizing', {
      turns: [
        { speaker: 'SPEAKER_00', startMs: 0, endMs: 20_000 },
        { speaker: 'SPEAKER_01', startMs: 20_000, endMs: 40_000 },
        { speaker: 'SPEAKER_00', startMs: 40_000, endMs: 60_000 },
      ],
    });
    ok(
      await call('POST', `/jobs/${jobId}/tracks`, {
        tracks: [
          { sourceId: sourceIds[0], speakers: ['SPEAKER_00'] },
          { sourceId: sourceIds[1], speakers: ['SPEAKER_01'] },
        ],
      }),
    );
    return { jobId, sourceIds };
  }

  test('a label with newlines and C0 controls is stored stripped; the default title too; its EDL has no injected event', async () => {
    const created = ok(await call('POST', '/jobs', { sources: [{ label: EVIL_LABEL }, { label: 'Cam B\t2' }] }));
    const job = await getJob(created.jobId);
    expect(job.sources.map((s: Json) => s.label)).toEqual([CLEAN_LABEL, 'Cam B 2']);
    expect(job.title).toMatch(
      new RegExp(`^${CLEAN_LABEL.replace(/[[*]/g, '\\$&')}, Cam B 2 \\(\\d{4}-\\d\\d-\\d\\d\\)$`),
    );

    const { jobId } = await readyJob([EVIL_LABEL, 'Cam B']);
    const edl = await call('GET', `/jobs/${jobId}/export?format=edl&fps=25`);
    expect(edl.status, edl.text).toBe(200);
    const cuts = (await getJob(jobId)).cuts as unknown[];
    expect(cuts.length).toBeGreaterThan(0);
    expect(edlEvents(edl.text)).toHaveLength(cuts.length);
  });

  test('a title with control characters is stored stripped', async () => {
    const created = ok(
      await call('POST', '/jobs', {
        sources: [{ label: 'A' }, { label: 'B' }],
        title: 'Ep 12\r\nTITLE: evil\u0000\u007f\u0085\u009b',
      }),
    );
    expect((await getJob(created.jobId)).title).toBe('Ep 12 TITLE: evil');
  });

  test('a 3 MiB label is 400 naming the field, and no job is created', async () => {
    const huge = 'x'.repeat(3 * 1024 * 1024);
    refused(
      await call('POST', '/jobs', { sources: [{ label: 'A' }, { label: 'B' }, { label: huge }] }),
      'sources[2].label must be at most 200 characters',
    );
    expect(await jobCount()).toBe(0);
    // Exactly at the limit is fine.
    ok(await call('POST', '/jobs', { sources: [{ label: 'y'.repeat(200) }, { label: 'B' }] }));
    expect(await jobCount()).toBe(1);
  });

  test('a label of nothing but control characters is 400 (it would be empty)', async () => {
    refused(
      await call('POST', '/jobs', { sources: [{ label: 'A' }, { label: '\u0001\n\t' }] }),
      'sources[1].label must be a non-empty string',
    );
    expect(await jobCount()).toBe(0);
  });

  test('PATCH cuts: a reason over the limit is 400 and the cuts are unchanged; a reason with controls is stored stripped', async () => {
    const { jobId, sourceIds } = await readyJob(['Cam A', 'Cam B']);
    const before = (await getJob(jobId)).cuts as Json[];
    const cut = (reason: string, startMs = 0, endMs = 60_000): Json => ({
      sourceId: sourceIds[1],
      startMs,
      endMs,
      reason,
    });
    refused(
      await call('PATCH', `/jobs/${jobId}/cuts`, { cuts: [cut('ok', 0, 30_000), cut('r'.repeat(2001), 30_000)] }),
      'cuts[1].reason must be at most 2000 characters',
    );
    expect((await getJob(jobId)).cuts).toEqual(before);

    ok(await call('PATCH', `/jobs/${jobId}/cuts`, { cuts: [cut('wide\n* COMMENT: evil\r\n002  X\u001b')] }));
    expect(((await getJob(jobId)).cuts as Json[]).map((c) => c.reason)).toEqual(['wide * COMMENT: evil 002  X']);
  });

  test("the service's own reasons go back through PATCH cuts unchanged (the editor's save)", async () => {
    const { jobId, sourceIds } = await readyJob(['y'.repeat(200), 'z'.repeat(200)]);
    // Both speakers on one camera: the longest reasons the planner writes (every speaker, why no close-up).
    ok(
      await call('POST', `/jobs/${jobId}/tracks`, {
        tracks: [
          { sourceId: sourceIds[0], speakers: ['SPEAKER_00', 'SPEAKER_01'] },
          { sourceId: sourceIds[1], speakers: [] },
        ],
        cuts: (await getJob(jobId)).cuts,
      }),
    );
    const cuts = ok(await call('POST', `/jobs/${jobId}/recut`, { presetId: 'balanced' })).cuts as Json[];
    expect(cuts.length).toBeGreaterThan(0);
    ok(await call('PATCH', `/jobs/${jobId}/cuts`, { cuts }));
    expect((await getJob(jobId)).cuts).toEqual(cuts);
  });

  test('POST tracks with cuts: a reason over the limit is 400 and the cuts are unchanged', async () => {
    const { jobId, sourceIds } = await readyJob(['Cam A', 'Cam B']);
    const before = await getJob(jobId);
    refused(
      await call('POST', `/jobs/${jobId}/tracks`, {
        tracks: [
          { sourceId: sourceIds[0], speakers: ['SPEAKER_01'] },
          { sourceId: sourceIds[1], speakers: ['SPEAKER_00'] },
        ],
        cuts: [{ sourceId: sourceIds[0], startMs: 0, endMs: 60_000, reason: 'r'.repeat(10_000) }],
      }),
      'cuts[0].reason must be at most 2000 characters',
    );
    const after = await getJob(jobId);
    expect(after.cuts).toEqual(before.cuts);
    expect(after.tracks).toEqual(before.tracks);
  });

  test('speaker names: characters XML forbids or C1 controls are 400 and change nothing', async () => {
    const { jobId } = await readyJob(['Cam A', 'Cam B']);
    ok(await call('PUT', `/jobs/${jobId}/speakers`, { names: { SPEAKER_00: 'Ana' } }));
    for (const name of ['Bo\uffff', 'Bo\u0085Li', 'Bo\ud800', 'Bo\u009b31m'])
      refused(
        await call('PUT', `/jobs/${jobId}/speakers`, { names: { SPEAKER_00: 'Ana', SPEAKER_01: name } }),
        'names.SPEAKER_01 must not contain control characters',
      );
    expect((await getJob(jobId)).speaker_names).toEqual({ SPEAKER_00: 'Ana' });
  });
});

// ------------------------------------------------------------------------------------------------
describe('(b) writers: text stored before the check still exports well-formed files', () => {
  const HOSTILE = {
    title: 'Ep 12\nTITLE: evil\u0000\u0007\udc00',
    labelA: EVIL_LABEL,
    labelB: 'Cam B\uffff\ufffe\u0002\ud800',
    reason: 'SPEAKER_00 speaks\r\n003  EVIL     V     C        00:00:00:00\u000c\u001b',
    name: 'Ana\u0001\nBo',
  };
  const sources = (a: string, b: string): JobSource[] => [
    { id: 'src_a', label: a, kind: 'video', ext: 'mp4', durationMs: 60_000, offsetMs: 0, driftPpm: 0 },
    { id: 'src_b', label: b, kind: 'video', ext: 'mp4', durationMs: 60_000, offsetMs: 0, driftPpm: 0 },
    { id: 'src_m', label: `Mic\n${b}`, kind: 'audio', ext: 'wav', durationMs: 60_000, offsetMs: 0, driftPpm: 0 },
  ];
  const jobWith = (t: typeof HOSTILE): ExportableJob => ({
    id: 'job_1',
    title: t.title,
    sources: sources(t.labelA, t.labelB),
    cuts: [
      { sourceId: 'src_a', startMs: 0, endMs: 4000, reason: t.reason },
      { sourceId: 'src_b', startMs: 4000, endMs: 9000, reason: `${t.reason} (SPEAKER_01)` },
      { sourceId: 'src_a', startMs: 9000, endMs: 15_000 },
    ],
    removed_ranges: [],
    speaker_names: { SPEAKER_00: t.name, SPEAKER_01: t.name.split('').reverse().join('') },
  });
  const hostile = jobWith(HOSTILE);
  const clean = jobWith({ title: 'Ep 12', labelA: 'Cam A', labelB: 'Cam B', reason: 'SPEAKER_00 speaks', name: 'Ana' });
  /** A timeline whose text went round the validation: what an old record gives a writer directly. */
  const rawTimeline = (): EditTimeline => {
    const t = buildTimeline({
      name: 'Ep',
      sources: clean.sources,
      cuts: clean.cuts,
      removedRanges: [],
      rate: frameRateOf(25, 'fps'),
    });
    t.name = HOSTILE.title;
    for (const s of t.sources) {
      s.label = `${s.label}${HOSTILE.labelA}${HOSTILE.labelB}`;
      s.fileName = `${s.label}.mp4`;
    }
    for (const e of t.events) e.note = HOSTILE.reason;
    return t;
  };

  test('EDL through exportEdit: as many events as the same edit with clean text, every line one the writer wrote', () => {
    for (const track of [0, 1, 2]) {
      const want = edlEvents(exportEdit(clean, 'edl', { fps: 25, track }).body).length;
      expect(want).toBeGreaterThan(0);
      expect(edlEvents(exportEdit(hostile, 'edl', { fps: 25, track }).body)).toHaveLength(want);
    }
  });

  test('EDL writer fed raw text: no raw newline or control character in any field', () => {
    const t = rawTimeline();
    const want = edlEvents(writeEdl(buildTimeline({ ...clean, name: 'Ep', removedRanges: [], rate: t.rate }))).length;
    expect(edlEvents(writeEdl(t))).toHaveLength(want);
    expect(edlEvents(writeEdl(t, { track: 1 }))).toHaveLength(
      edlEvents(writeEdl(buildTimeline({ ...clean, name: 'Ep', removedRanges: [], rate: t.rate }), { track: 1 }))
        .length,
    );
  });

  for (const format of ['fcpxml', 'xmeml'] as const) {
    test(`${format} through exportEdit: well-formed XML 1.0, no control character in any name or note`, () => {
      const doc = parseXmlStrictly(exportEdit(hostile, format, { fps: 25 }).body);
      for (const text of xmlStrings(doc)) if (text.trim() !== '') expect(text).not.toMatch(UNCLEAN);
      // The names survive, cleaned.
      expect(xmlStrings(doc)).toContain(CLEAN_LABEL);
    });
  }

  test('fcpxml writer fed raw text: well-formed XML 1.0', () => {
    parseXmlStrictly(writeFcpxml(rawTimeline()));
  });

  test('xmeml writer fed raw text: well-formed XML 1.0', () => {
    parseXmlStrictly(writeXmeml(rawTimeline()));
  });

  test('every format: the file name is one plain line a Content-Disposition header can carry', () => {
    for (const format of ['fcpxml', 'xmeml', 'otio', 'edl'] as const) {
      const { filename } = exportEdit(hostile, format, { fps: 25 });
      expect(filename).toBe(`Ep 12 TITLE_ evil.${format === 'xmeml' ? 'xml' : format}`);
      expect(() => encodeURIComponent(filename)).not.toThrow();
    }
  });

  test('otio through exportEdit: valid JSON, no control character in any string', () => {
    const otio = JSON.parse(exportEdit(hostile, 'otio', { fps: 25 }).body) as unknown;
    const strings = stringsIn(otio);
    expect(strings).toContain(CLEAN_LABEL);
    for (const s of strings) expect(s).not.toMatch(UNCLEAN);
  });

  test('otio writer fed raw text: JSON.stringify escapes every control character and lone surrogate', () => {
    const text = writeOtio(rawTimeline());
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(stringsIn(JSON.parse(text))).toContain(HOSTILE.title);
  });
});
