/**
 * Exports follow what probing found of the sources (issue 52): with no `fps`, the timeline's
 * rate and frame size are the main camera's and each file declares its own audio format, in
 * all four formats. Read with an XML parser and JSON.parse, independent of the writers.
 */
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Cut, JobSource } from '../../../src/contract/types.ts';
import { exportEdit, type ExportableJob } from '../../../src/export/index.ts';
import { createNodeHarness, type NodeHarness } from '../../contract/node-harness.ts';
import { parseEdl } from './read-back.ts';

type Json = Record<string, any>; // loosely typed on purpose: the tests read documents as a reader would

const cam = (id: string, over: Partial<JobSource>): JobSource => ({
  id,
  label: id,
  kind: 'video',
  ext: 'mp4',
  durationMs: 60_000,
  offsetMs: 0,
  driftPpm: 0,
  ...over,
});
const mic: JobSource = {
  id: 'Mic',
  label: 'Mic',
  kind: 'audio',
  ext: 'wav',
  durationMs: 60_000,
  offsetMs: 0,
  driftPpm: 0,
  sampleRate: 16_000,
  channels: 1,
};
// Cam A is live longest (the main camera); the first event is 10.2 s: 255 frames at 25 fps, 306 at 30.
const cuts: Cut[] = [
  { sourceId: 'CamA', startMs: 0, endMs: 10_200 },
  { sourceId: 'CamB', startMs: 10_200, endMs: 14_000 },
  { sourceId: 'CamA', startMs: 14_000, endMs: 40_000 },
];
function jobWith(main: Partial<JobSource>): ExportableJob {
  return {
    id: 'job_p',
    title: 'Probed',
    sources: [
      cam('CamA', main),
      cam('CamB', { frameRate: 60, frameRateExact: { num: 60, den: 1 }, width: 3840, height: 2160 }),
      mic,
    ],
    cuts,
    removed_ranges: [],
  };
}
const pal = jobWith({ frameRate: 25, frameRateExact: { num: 25, den: 1 }, width: 1280, height: 720 });
const ntsc = jobWith({ frameRate: 30000 / 1001, frameRateExact: { num: 30000, den: 1001 }, width: 1920, height: 1080 });

function xml(body: string): Element {
  return new DOMParser().parseFromString(body, 'text/xml').documentElement!;
}
function all(root: Element, tag: string): Element[] {
  return Array.from(root.getElementsByTagName(tag));
}
function first(root: Element, tag: string): Element {
  const found = all(root, tag)[0];
  if (!found) throw new Error(`no <${tag}>`);
  return found;
}
const textOf = (root: Element, tag: string): string => first(root, tag).textContent ?? '';
/** The direct child `<tag>` of `node`. */
function childOf(node: Element, tag: string): Element {
  for (let c = node.firstChild; c; c = c.nextSibling)
    if (c.nodeType === 1 && (c as Element).tagName === tag) return c as Element;
  throw new Error(`<${node.tagName}> has no <${tag}>`);
}

/** Format checks of each export, read back. */
function fcpxmlFormat(job: ExportableJob): { frameDuration: string; width: string; height: string; mic: Element } {
  const root = xml(exportEdit(job, 'fcpxml').body);
  const format = first(root, 'format');
  const micAsset = all(root, 'asset').find((a) => a.getAttribute('name') === 'Mic')!;
  return {
    frameDuration: format.getAttribute('frameDuration')!,
    width: format.getAttribute('width')!,
    height: format.getAttribute('height')!,
    mic: micAsset,
  };
}
function xmemlSequence(job: ExportableJob): Json {
  const root = xml(exportEdit(job, 'xmeml').body);
  const sequence = first(root, 'sequence');
  const rate = childOf(sequence, 'rate');
  const format = first(sequence, 'format');
  const micFile = all(root, 'file').find((f) => all(f, 'name')[0]?.textContent === 'Mic.wav')!;
  return {
    timebase: Number(textOf(rate, 'timebase')),
    ntsc: textOf(rate, 'ntsc'),
    width: Number(textOf(format, 'width')),
    height: Number(textOf(format, 'height')),
    micRate: Number(textOf(micFile, 'samplerate')),
    micChannels: Number(textOf(micFile, 'channelcount')),
  };
}
function otioOf(job: ExportableJob): Json {
  return JSON.parse(exportEdit(job, 'otio').body) as Json;
}
function firstEdlEvent(job: ExportableJob): { fcm: string; recordOut: string } {
  const edl = parseEdl(exportEdit(job, 'edl').body);
  return { fcm: edl.fcm, recordOut: edl.events[0]!.recordOut };
}

describe('with no fps, exports take the main camera’s probed format', () => {
  test('a 25 fps 1280×720 main camera gives a 25 fps 1280×720 timeline in every format', () => {
    expect(exportEdit(pal, 'fcpxml').rate).toEqual({ num: 25, den: 1 });
    const fcp = fcpxmlFormat(pal);
    expect([fcp.frameDuration, fcp.width, fcp.height]).toEqual(['1/25s', '1280', '720']);

    const xm = xmemlSequence(pal);
    expect([xm.timebase, xm.ntsc, xm.width, xm.height]).toEqual([25, 'FALSE', 1280, 720]);

    const otio = otioOf(pal);
    expect(otio.metadata.multicam).toEqual({ rate: { num: 25, den: 1 }, width: 1280, height: 720 });
    const clip = otio.tracks.children[0].children[0];
    expect(clip.source_range.duration.rate).toBe(25);

    expect(firstEdlEvent(pal)).toEqual({ fcm: 'NON-DROP FRAME', recordOut: '01:00:10:05' });
  });

  test('a 30000/1001 main camera gives NTSC timing: 1001/30000s, timebase 30 ntsc TRUE, 29.97002997…, drop-frame', () => {
    expect(exportEdit(ntsc, 'xmeml').rate).toEqual({ num: 30000, den: 1001 });
    expect(fcpxmlFormat(ntsc).frameDuration).toBe('1001/30000s');
    const xm = xmemlSequence(ntsc);
    expect([xm.timebase, xm.ntsc]).toEqual([30, 'TRUE']);
    const otio = otioOf(ntsc);
    expect(otio.tracks.children[0].children[0].source_range.duration.rate).toBeCloseTo(30000 / 1001, 10);
    expect(otio.metadata.multicam.rate).toEqual({ num: 30000, den: 1001 });
    // 10.2 s is 305.69 frames at 29.97: 306 frames, 00:00:10;06 in drop-frame (no minute boundary yet).
    expect(firstEdlEvent(ntsc)).toEqual({ fcm: 'DROP FRAME', recordOut: '01:00:10;06' });
  });

  test('a 16 kHz mono mic is declared 16 kHz mono; an unprobed file stays 48 kHz stereo', () => {
    const fcp = fcpxmlFormat(pal);
    expect([fcp.mic.getAttribute('audioRate'), fcp.mic.getAttribute('audioChannels')]).toEqual(['16000', '1']);
    const camAsset = all(xml(exportEdit(pal, 'fcpxml').body), 'asset').find((a) => a.getAttribute('name') === 'CamA')!;
    expect([camAsset.getAttribute('audioRate'), camAsset.getAttribute('audioChannels')]).toEqual(['48000', '2']);
    const xm = xmemlSequence(pal);
    expect([xm.micRate, xm.micChannels]).toEqual([16_000, 1]);
    const micClip = otioOf(pal).tracks.children.find((t: Json) => t.name === 'Mic').children[0];
    expect(micClip.media_references.DEFAULT_MEDIA.metadata.multicam).toEqual({ sampleRate: 16_000, channels: 1 });
  });

  test('fps, width and height still override; a rate writers cannot express falls back to the nearest whole one', () => {
    const over = exportEdit(pal, 'fcpxml', { fps: 29.97, width: 3840, height: 2160 });
    expect(over.rate).toEqual({ num: 30000, den: 1001 });
    const format = first(xml(over.body), 'format');
    expect([format.getAttribute('width'), format.getAttribute('height')]).toEqual(['3840', '2160']);
    const odd = jobWith({ frameRate: 1000 / 67, frameRateExact: { num: 1000, den: 67 } });
    expect(exportEdit(odd, 'otio').rate).toEqual({ num: 15, den: 1 });
    // Nothing probed: 30 fps, 1920×1080 as before.
    const bare = jobWith({});
    expect(exportEdit(bare, 'otio').rate).toEqual({ num: 30, den: 1 });
    expect(otioOf(bare).metadata.multicam).toMatchObject({ width: 1920, height: 1080 });
  });
});

describe('probed formats reach the Job and its exports through the contract', () => {
  let h: NodeHarness;
  beforeEach(async () => {
    h = await createNodeHarness();
  });
  afterEach(async () => {
    await h.dispose();
  });

  test('syncing’s media report shows on the Job’s sources, and an export with no fps uses it', async () => {
    const apiKey = (await h.createAccount()).apiKey;
    const call = async (
      method: string,
      rest: string,
      json?: unknown,
    ): Promise<{ status: number; json: Json; text: string }> => {
      const r = await h.request(h.baseUrl + rest, {
        method,
        headers: { authorization: `Bearer ${apiKey}` },
        ...(json === undefined ? {} : { json }),
      });
      return { status: r.status, json: r.json as Json, text: r.text };
    };
    const created = (
      await call('POST', '/jobs', {
        title: 'Probed',
        autoMap: 'off',
        sources: [{ label: 'Cam A' }, { label: 'Cam B' }, { label: 'Mic', kind: 'audio', ext: 'wav' }],
      })
    ).json;
    for (const info of Object.values<Json>(created.uploads))
      expect((await h.request(info.url, { method: 'PUT', body: 'bytes '.repeat(20) })).status).toBe(200);
    const [a, b, m] = Object.keys(created.uploads) as [string, string, string];
    expect((await call('POST', `/jobs/${created.jobId}/process`)).status).toBe(200);
    h.engine.pending.splice(
      h.engine.pending.findIndex((w) => w.jobId === created.jobId && w.stage === 'syncing'),
      1,
    );
    await h.service.reporter.stageSucceeded(created.jobId, 'syncing', {
      durationsMs: { [a]: 60_000, [b]: 60_000, [m]: 60_000 },
      offsetsMs: { [a]: 0, [b]: 0, [m]: 0 },
      driftPpm: { [a]: 0, [b]: 0, [m]: 0 },
      media: {
        [a]: {
          frameRate: 25,
          frameRateExact: { num: 25, den: 1 },
          variableFrameRate: false,
          width: 1280,
          height: 720,
          sampleRate: 48_000,
          channels: 2,
        },
        // Nonsense from an engine is dropped, not stored.
        [b]: { frameRate: -3, frameRateExact: { num: 30.5, den: 1 }, width: 0, channels: 1.5 },
        [m]: { sampleRate: 16_000, channels: 1 },
      },
    });
    const job = (await call('GET', `/jobs/${created.jobId}`)).json.job;
    const byId = new Map<string, Json>(job.sources.map((s: Json) => [s.id, s]));
    expect(byId.get(a)).toMatchObject({
      frameRate: 25,
      frameRateExact: { num: 25, den: 1 },
      variableFrameRate: false,
      width: 1280,
      height: 720,
      sampleRate: 48_000,
      channels: 2,
    });
    for (const key of ['frameRate', 'frameRateExact', 'width', 'channels']) expect(byId.get(b)).not.toHaveProperty(key);
    expect(byId.get(m)).toMatchObject({ sampleRate: 16_000, channels: 1 });

    await h.completeStage(created.jobId, 'diarizing', {
      turns: [
        { speaker: 'SPEAKER_00', startMs: 0, endMs: 30_000 },
        { speaker: 'SPEAKER_01', startMs: 30_000, endMs: 40_000 },
      ],
    });
    const tracks = await call('POST', `/jobs/${created.jobId}/tracks`, {
      tracks: [
        { sourceId: a, speakers: ['SPEAKER_00'] },
        { sourceId: b, speakers: ['SPEAKER_01'] },
      ],
    });
    expect(tracks.status, tracks.text).toBe(200);
    const r = await call('GET', `/jobs/${created.jobId}/export?format=fcpxml`);
    expect(r.status, r.text).toBe(200);
    const root = xml(r.text);
    const format = first(root, 'format');
    expect([format.getAttribute('frameDuration'), format.getAttribute('width'), format.getAttribute('height')]).toEqual(
      ['1/25s', '1280', '720'],
    );
    const micAsset = all(root, 'asset').find((x) => x.getAttribute('name') === 'Mic')!;
    expect([micAsset.getAttribute('audioRate'), micAsset.getAttribute('audioChannels')]).toEqual(['16000', '1']);
  });
});
