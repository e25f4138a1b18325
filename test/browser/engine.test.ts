/**
 * The engine runner in a real Chromium (issue 5): files of the tiny fixture are uploaded
 * through the signed URLs of a page running `startMulticam({ engine: true })`; startProcessing
 * then runs syncing for real (media worker, analysis worker) and the offsets must match
 * truth.json. Also: a reload mid-sync resumes and mov/webm/mkv/wav/mp3 inputs sync. (A damaged
 * file failing at once is in the CLI test and test/reliability/engine-faults; real faces through
 * the contract in test/deep/active-speaker.test.ts, beside the demo's real-faces test.)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CreateJobResponse, GetJobResponse } from '../../src/contract/types.ts';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { buildSite, siteLinks } from '../support/build-site.ts';
import {
  callEngine,
  ENGINE_PAGE,
  engineActive,
  engineApi,
  openEnginePage,
  openSecondTab,
  putUploads,
  servedSizes,
} from '../support/engine-page.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS, type Truth } from '../support/fixtures.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { patient } from '../support/patience.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SITE = join(ROOT, '.cache/engine-site');
/** Inputs made from the fixture with Debian's ffmpeg (kept between runs). */
const FORMATS = join(ROOT, '.cache/engine-formats');
/** One video frame of the fixture (30 fps). */
const FRAME_MS = 1000 / 30;

let chromium: LaunchedChromium;
let server: StaticServer;
let receiver: WebhookReceiver;
let page: Page;
let truth: Truth;
let apiKey: string;
let dbName: string;
/** The first test's job, left in mapping for the render test. */
let mappedJob: { jobId: string; ids: string[]; speakers: string[] } | undefined;

/** getJob's full view, as the contract types it. */
type JobView = GetJobResponse;
type History = Array<{
  jobId: string;
  stage: string;
  outcome: string;
  elapsedMs: number;
  failure?: { message: string };
  metrics?: Record<string, number | string>;
}>;

async function buildEngineSite(fixtureDir: string): Promise<void> {
  await buildSite({
    pages: { engine: ENGINE_PAGE },
    shared: true,
    outDir: SITE,
    sw: true,
    links: {
      wasm: join(ROOT, 'wasm'),
      models: join(ROOT, 'models'),
      fixture: fixtureDir,
      formats: FORMATS,
    },
  });
}

/** mov, webm, mkv, wav, mp3 versions of fixture files. */
function makeFormats(dir: string): void {
  mkdirSync(FORMATS, { recursive: true });
  const ff = (out: string, args: string[]): void => {
    if (!existsSync(join(FORMATS, out))) execFileSync('ffmpeg', ['-v', 'error', '-y', ...args, join(FORMATS, out)]);
  };
  ff('cam1.mov', ['-i', join(dir, 'cam1.mp4'), '-c', 'copy']);
  ff('cam2.webm', [
    '-i',
    join(dir, 'cam2.mp4'),
    '-vf',
    'scale=160:90',
    '-c:v',
    'libvpx',
    '-deadline',
    'realtime',
    '-b:v',
    '100k',
    '-c:a',
    'libopus',
  ]);
  ff('cam3.mkv', ['-i', join(dir, 'cam3.mp4'), '-c', 'copy']);
  ff('mic.wav', ['-i', join(dir, truth.reference.file), '-c:a', 'pcm_s16le']);
  // Close mics: each close-up's own audio (its person at 1, the others at 0.3).
  ['cam1', 'cam2', 'cam5'].forEach((cam, i) =>
    ff(`mic-spk${i + 1}.wav`, ['-i', join(dir, `${cam}.mp4`), '-vn', '-c:a', 'pcm_s16le']),
  );
  // Starts 1.5 s into the reference: its offset is 1500 ms.
  ff('mic44.mp3', [
    '-ss',
    '1.5',
    '-i',
    join(dir, truth.reference.file),
    '-ar',
    '44100',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '96k',
  ]);
  // A camera that recorded no sound: silent audio track.
  ff('silent.mp4', [
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=160x90:rate=30',
    '-f',
    'lavfi',
    '-i',
    'anullsrc=r=48000:cl=mono',
    '-t',
    '10',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
  ]);
}

const call = <T>(fn: string, ...args: unknown[]): Promise<T> => callEngine<T>(page, fn, ...args);

const api = <T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> =>
  engineApi<T>(page, apiKey, method, path, body);

async function openPage(createAccount: boolean): Promise<void> {
  const key = await openEnginePage(page, server.origin, dbName, createAccount);
  if (key) apiKey = key;
}

/** Creates a job of `files` (paths on the test server), uploads them, starts processing. */
async function createAndStart(
  files: Array<{ url: string; label: string; kind?: 'video' | 'audio'; ext: string }>,
  extra: { callbackUrl?: string } = {},
): Promise<{ jobId: string; ids: string[] }> {
  const sizes = await servedSizes(
    page,
    files.map((f) => f.url),
  );
  const created = await api<CreateJobResponse>('POST', '/jobs', {
    sources: files.map((f, i) => ({ label: f.label, kind: f.kind ?? 'video', ext: f.ext, fileSize: sizes[i] })),
    ...extra,
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  for (const upload of Object.values(created.json.uploads)) expect(upload.method).toBe('put');
  const ids = await putUploads(
    page,
    created.json.uploads,
    files.map((f) => f.url),
  );
  const started = await api<{ status: string }>('POST', `/jobs/${created.json.jobId}/process`);
  expect(started.status, JSON.stringify(started.json)).toBe(200);
  expect(started.json.status).toBe('syncing');
  return { jobId: created.json.jobId, ids };
}

/** Polls getJob until `done` holds (or the time is up). */
async function waitForJob(jobId: string, done: (v: JobView) => boolean, timeoutMs: number): Promise<JobView> {
  const until = Date.now() + patient(timeoutMs);
  for (;;) {
    const res = await api<JobView>('GET', `/jobs/${jobId}`);
    expect(res.status).toBe(200);
    if (done(res.json) || Date.now() > until) return res.json;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const pastSyncing = (v: JobView): boolean => v.job.status !== 'syncing';

/** Our offsets against truth: both put the earliest of the job's sources at 0. */
function offsetErrors(view: JobView, expected: Record<string, number>): number[] {
  const min = Math.min(...Object.values(expected));
  return view.job.sources.map((s) => Math.abs((s.offsetMs ?? NaN) - ((expected[s.id] ?? NaN) - min)));
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

beforeAll(async () => {
  const fixture = await ensureFixture('tiny');
  truth = fixture.truth;
  makeFormats(fixture.dir);
  await buildEngineSite(fixture.dir);
  server = await serveStatic(SITE, { allow: siteLinks(SITE) });
  receiver = await startWebhookReceiver({ allowOrigin: server.origin, crossOriginResourcePolicy: true });
  chromium = await launchChromium();
  page = await chromium.context.newPage();
  page.on('pageerror', (e) => console.error('[engine page]', e));
  dbName = `multicam-engine-test-${process.pid}-${Date.now()}`;
  await openPage(true);
}, FIXTURE_TIMEOUT_MS + 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await receiver?.close();
});

test(
  'uploaded fixture files sync to truth.json and the job goes on to speaker detection',
  async () => {
    const cams = truth.sources.slice(0, 3);
    const { jobId, ids } = await createAndStart(
      cams.map((s) => ({ url: `/fixture/${s.file}`, label: s.label, ext: 'mp4' })),
      { callbackUrl: receiver.url },
    );
    const synced = await waitForJob(jobId, pastSyncing, 60_000);
    expect(synced.job.status, synced.job.error_message ?? '').not.toMatch(/syncing|failed/);
    const expected = Object.fromEntries(ids.map((id, i) => [id, cams[i]!.offsetMs]));
    const errors = offsetErrors(synced, expected);
    console.log(
      '[engine] offset errors (ms):',
      errors.map((e) => e.toFixed(2)).join(', '),
      'history:',
      JSON.stringify(await call<History>('history')),
    );
    for (const e of errors) expect(e).toBeLessThanOrEqual(FRAME_MS);
    expect(median(errors)).toBeLessThanOrEqual(1);
    for (const [i, s] of synced.job.sources.entries())
      expect(Math.abs(s.durationMs! - cams[i]!.durationMs)).toBeLessThan(100);

    // Speaker detection on the first camera's audio (no audio sources): turns, and the mix as audioUrl.
    const after = await waitForJob(jobId, (v) => !['syncing', 'diarizing'].includes(v.job.status), 90_000);
    console.log(
      '[engine] after diarizing:',
      after.job.status,
      after.job.error_message,
      'turns:',
      after.job.turns.length,
      JSON.stringify((await call<History>('history')).filter((h) => h.stage === 'diarizing')),
    );
    expect(after.job.status, after.job.error_message ?? '').toMatch(/^(mapping|ready)$/);
    expect(after.job.turns.length).toBeGreaterThan(0);
    expect(after.audioUrl).not.toBeNull();
    const wav = await page.evaluate(async (u) => {
      const r = await fetch(u);
      const b = new Uint8Array(await r.arrayBuffer());
      return {
        status: r.status,
        head: String.fromCharCode(...b.subarray(0, 4), ...b.subarray(8, 12)),
        bytes: b.length,
      };
    }, after.audioUrl!);
    expect(wav).toMatchObject({ status: 200, head: 'RIFFWAVE' });
    // 16 kHz, 16-bit mono over the reference timeline (to where the last of the job's sources ends).
    const first = Math.min(...cams.map((c) => c.offsetMs));
    const timelineMs = Math.max(...cams.map((c) => c.offsetMs - first + c.durationMs));
    expect(Math.abs((wav.bytes - 44) / 32 - timelineMs)).toBeLessThan(50);

    // The camera map is computed from sampled frames (or the job moved on without one).
    const mapped = await waitForJob(jobId, (v) => v.job.camera_map !== null || v.job.status !== 'mapping', 60_000);
    console.log(
      '[engine] camera map:',
      JSON.stringify(mapped.job.camera_map),
      'history:',
      JSON.stringify(await call<History>('history')),
    );
    expect(mapped.job.camera_map).not.toBeNull();
    expect(mapped.job.camera_map!.cameras.map((c) => c.sourceId).sort()).toEqual([...ids].sort());
    mappedJob = { jobId, ids, speakers: [...new Set(after.job.turns.map((t) => t.speaker))] };
  },
  patient(150_000),
);

test(
  'rendering: a mapped job renders through the render worker and completes with a playable MP4',
  async () => {
    expect(mappedJob, 'the first test left a job in mapping').toBeDefined();
    const { jobId, ids, speakers } = mappedJob!;
    // Speaker i on camera i (the fixture's close-ups); the rest on the last camera.
    const tracks = ids.map((sourceId, i) => ({
      sourceId,
      speakers: i < ids.length - 1 ? speakers.slice(i, i + 1) : speakers.slice(i),
    }));
    const mapped = await api<{ cuts: unknown[] }>('POST', `/jobs/${jobId}/tracks`, { tracks });
    expect(mapped.status, JSON.stringify(mapped.json)).toBe(200);
    const render = await api<{ status: string }>('POST', `/jobs/${jobId}/render`);
    expect(render.status, JSON.stringify(render.json)).toBe(200);
    const done = await waitForJob(jobId, (v) => v.job.status !== 'rendering', 110_000);
    const runs = (await call<History>('history')).filter((h) => h.jobId === jobId && h.stage === 'rendering');
    console.log('[engine] render:', done.job.status, done.job.error_message, JSON.stringify(runs));
    expect(done.job.status, done.job.error_message ?? '').toBe('complete');
    const file = await page.evaluate(async (u) => {
      const r = await fetch(u);
      const b = new Uint8Array(await r.arrayBuffer());
      let base64 = '';
      // Slices of a multiple of 3 bytes: their base64 texts join without padding in between.
      for (let i = 0; i < b.length; i += 0x6000) base64 += btoa(String.fromCharCode(...b.subarray(i, i + 0x6000)));
      return { status: r.status, brand: String.fromCharCode(...b.subarray(4, 8)), bytes: b.length, base64 };
    }, done.job.output_url!);
    expect(file).toMatchObject({ status: 200, brand: 'ftyp' });
    expect(Buffer.from(file.base64, 'base64').length).toBe(file.bytes);
    // Native ffprobe reads the rendered file: an H.264 video stream and a duration.
    const out = join(FORMATS, `render-${process.pid}.mp4`);
    const rendered = Buffer.from(file.base64, 'base64');
    writeFileSync(out, rendered);
    // The fragmented MP4 carries its length in its header (mvex's mehd, written once the file was
    // whole; src/media/fmp4-duration.ts): the moov's own boxes, read by the same walk as ffprobe.
    const moovAt = rendered.indexOf('moov') - 4;
    const moov = rendered.subarray(moovAt, moovAt + rendered.readUInt32BE(moovAt));
    const mehdAt = moov.indexOf('mehd') - 4;
    expect(mehdAt, 'an mehd inside the moov').toBeGreaterThan(0);
    const mvhdAt = moov.indexOf('mvhd') - 4;
    const timescale = moov.readUInt32BE(mvhdAt + 20);
    const lengthS = Number(moov.readBigUInt64BE(mehdAt + 12)) / timescale;
    const probe = JSON.parse(
      execFileSync('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_type,codec_name:format=duration',
        '-of',
        'json',
        out,
      ]).toString(),
    ) as {
      streams: Array<{ codec_type: string; codec_name: string }>;
      format: { duration: string };
    };
    rmSync(out);
    console.log('[engine] rendered file:', file.bytes, 'bytes', JSON.stringify(probe));
    expect(probe.streams.some((st) => st.codec_type === 'video' && st.codec_name === 'h264')).toBe(true);
    expect(Number(probe.format.duration)).toBeGreaterThan(1);
    expect(Math.abs(lengthS - Number(probe.format.duration)), `mehd says ${lengthS} s`).toBeLessThan(0.25);

    // The quiet ranges found in the diarize audio let silence removal work: the fixture has
    // pauses of 0.9 to 2.1 s between turns.
    const recut = await api<{ removedRanges: unknown[]; savedMs: number }>('POST', `/jobs/${jobId}/recut`, {
      presetId: 'balanced',
      silence: { mode: 'remove', minPauseSec: 0.5 },
    });
    console.log('[engine] recut with silence removal:', recut.status, JSON.stringify(recut.json));
    expect(recut.status).toBe(200);
    expect(recut.json.savedMs).toBeGreaterThan(0);

    // The engine page delivers the job's webhooks, signed: mapping (no confident proposal), ready, complete.
    const posts = await receiver.waitForPosts(3, 30_000);
    const bodies = posts.map((p) => JSON.parse(p.body) as { jobId: string; status: string });
    expect(bodies.filter((b) => b.jobId === jobId).map((b) => b.status)).toEqual(['mapping', 'ready', 'complete']);
    for (const p of posts) expect(p.headers['webhook-signature']).toMatch(/^v1,/);
  },
  patient(150_000),
);

test(
  'a reload mid-sync resumes: the job still completes syncing',
  async () => {
    const cams = truth.sources.slice(3, 6);
    // The job is started from a page without the engine, so its syncing stage is queued and no
    // page runs it: what a page closed or reloaded before the stage finished leaves behind.
    // (Reloading an engine page at once raced the 2 s stage, which sometimes won.)
    await openEnginePage(page, server.origin, dbName, false, false);
    const { jobId, ids } = await createAndStart(
      cams.map((s) => ({ url: `/fixture/${s.file}`, label: s.label, ext: 'mp4' })),
    );
    await new Promise((r) => setTimeout(r, 1000));
    const queued = await api<JobView>('GET', `/jobs/${jobId}`);
    expect(queued.json.job.status).toBe('syncing');
    expect(await call<History>('history')).toEqual([]);
    // The reloaded page's engine picks the stage up.
    await openPage(false);
    const synced = await waitForJob(jobId, pastSyncing, 60_000);
    const history = await call<History>('history');
    console.log('[engine] after reload:', synced.job.status, 'history:', JSON.stringify(history));
    expect(synced.job.status, synced.job.error_message ?? '').not.toMatch(/syncing|failed/);
    expect(history.some((h) => h.jobId === jobId && h.stage === 'syncing' && h.outcome === 'succeeded')).toBe(true);
    const expected = Object.fromEntries(ids.map((id, i) => [id, cams[i]!.offsetMs]));
    for (const e of offsetErrors(synced, expected)) expect(e).toBeLessThanOrEqual(FRAME_MS);
  },
  patient(120_000),
);

test('one engine per profile: a second tab waits for the engine lock', async () => {
  // start() in the second tab does not wait for the lock it cannot get; it only registers.
  const second = await openSecondTab(chromium.context, server.origin, dbName);
  try {
    // Give the engine lock request time to be granted, were it free.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await engineActive(second)).toBe(false);
    expect(await call<boolean>('active')).toBe(true);
  } finally {
    await second.close();
  }
});

test(
  'a source without usable audio is retried once automatically, then fails naming it',
  async () => {
    const { jobId } = await createAndStart([
      { url: `/fixture/${truth.sources[0]!.file}`, label: 'Good camera', ext: 'mp4' },
      { url: '/formats/silent.mp4', label: 'Muted camera', ext: 'mp4' },
    ]);
    const failed = await waitForJob(jobId, pastSyncing, 90_000);
    console.log('[engine] silent:', failed.job.error_message);
    expect(failed.job.status).toBe('failed');
    expect(failed.job.failed_at_status).toBe('syncing');
    expect(failed.job.error_message).toContain('Muted camera');
    const summary = await api<{ nextAction: { type: string } }>('GET', `/jobs/${jobId}?view=summary`);
    expect(summary.json.nextAction.type).toBe('retry');
    const runs = (await call<History>('history')).filter((h) => h.jobId === jobId);
    expect(runs.map((h) => `${h.stage}:${h.outcome}`)).toEqual(['syncing:failed', 'syncing:failed']);

    // retryJob hands the failed stage back to the engine, which runs it again (same file: same end).
    const retry = await api<{ status: string }>('POST', `/jobs/${jobId}/retry`);
    expect(retry.status, JSON.stringify(retry.json)).toBe(200);
    const again = await waitForJob(jobId, (v) => v.job.status === 'failed', 60_000);
    expect(again.job.error_message).toContain('Muted camera');
    // The history entry follows the report that failed the job by a moment.
    let more: History = [];
    for (
      const until = Date.now() + 5000;
      more.length <= 2 && Date.now() < until;
      await new Promise((r) => setTimeout(r, 50))
    ) {
      more = (await call<History>('history')).filter((h) => h.jobId === jobId);
    }
    expect(more.length).toBeGreaterThan(2);
    expect(more.every((h) => h.stage === 'syncing' && h.outcome === 'failed')).toBe(true);
  },
  patient(120_000),
);

test(
  'mov, webm, mkv, wav and mp3 sources sync',
  async () => {
    const [c1, c2, c3] = truth.sources as [
      Truth['sources'][number],
      Truth['sources'][number],
      Truth['sources'][number],
    ];
    const { jobId, ids } = await createAndStart([
      { url: '/formats/cam1.mov', label: 'cam1 mov', ext: 'mov' },
      { url: '/formats/cam2.webm', label: 'cam2 webm', ext: 'webm' },
      { url: '/formats/cam3.mkv', label: 'cam3 mkv', ext: 'mkv' },
      { url: '/formats/mic.wav', label: 'mic wav', kind: 'audio', ext: 'wav' },
      { url: '/formats/mic44.mp3', label: 'mic mp3', kind: 'audio', ext: 'mp3' },
    ]);
    const synced = await waitForJob(jobId, pastSyncing, 90_000);
    expect(synced.job.status, synced.job.error_message ?? '').not.toMatch(/syncing|failed/);
    // The reference recording starts at reference time 0; the mp3 was cut 1.5 s later.
    const expected = Object.fromEntries(ids.map((id, i) => [id, [c1.offsetMs, c2.offsetMs, c3.offsetMs, 0, 1500][i]!]));
    const errors = offsetErrors(synced, expected);
    console.log('[engine] formats offset errors (ms):', errors.map((e) => e.toFixed(2)).join(', '));
    for (const e of errors) expect(e).toBeLessThanOrEqual(FRAME_MS);
  },
  patient(120_000),
);

test(
  'close mics: per-mic speaker detection keeps its signals in a scratch folder, and the folder goes once the audio is stored',
  async () => {
    const cams = truth.sources.filter((s) => ['cam1.mp4', 'cam2.mp4', 'cam4.mp4'].includes(s.file));
    const mics = [1, 2, 3].map((i) => ({
      url: `/formats/mic-spk${i}.wav`,
      label: `mic ${i}`,
      kind: 'audio' as const,
      ext: 'wav',
    }));
    const { jobId, ids } = await createAndStart([
      ...cams.map((s) => ({ url: `/fixture/${s.file}`, label: s.label, ext: 'mp4' })),
      ...mics,
    ]);
    // The mics are the close-ups' own audio (each person at 1, the others at 0.3).
    const after = await waitForJob(jobId, (v) => !['syncing', 'diarizing'].includes(v.job.status), 150_000);
    expect(after.job.status, after.job.error_message ?? '').toMatch(/^(mapping|ready)$/);
    expect(ids).toHaveLength(6);
    // The history entry follows the report that moved the job on by a moment.
    let diarized: History[number] | undefined;
    for (
      const until = Date.now() + 10_000;
      !diarized && Date.now() < until;
      await new Promise((r) => setTimeout(r, 50))
    ) {
      diarized = (await call<History>('history')).find((h) => h.jobId === jobId && h.stage === 'diarizing');
    }
    expect(diarized?.metrics).toMatchObject({ channels: 3, signals: 'disk' });
    expect(new Set(after.job.turns.map((t) => t.speaker)).size).toBe(3);
    // The media worker decoded the mics into the folder, the analysis worker kept the channels
    // and the mix's WAV there; the job's audio was stored from that file and the folder is gone.
    const audio = await page.evaluate(async (u) => {
      const r = await fetch(u);
      const b = new Uint8Array(await r.arrayBuffer());
      const root = await navigator.storage.getDirectory();
      const scratch: string[] = [];
      for await (const [name] of root as unknown as AsyncIterable<[string, FileSystemHandle]>)
        if (name.startsWith('multicam-diarize-')) scratch.push(name);
      return {
        status: r.status,
        head: String.fromCharCode(...b.subarray(0, 4), ...b.subarray(8, 12)),
        bytes: b.length,
        scratch,
      };
    }, after.audioUrl!);
    expect(audio).toMatchObject({ status: 200, head: 'RIFFWAVE', scratch: [] });
    // 16 kHz 16-bit mono over the reference timeline (the mics start and end with their cameras).
    const all = truth.sources.filter((s) => ['cam1.mp4', 'cam2.mp4', 'cam4.mp4', 'cam5.mp4'].includes(s.file));
    const first = Math.min(...all.map((c) => c.offsetMs));
    const timelineMs = Math.max(...all.map((c) => c.offsetMs - first + c.durationMs));
    expect(Math.abs((audio.bytes - 44) / 32 - timelineMs)).toBeLessThan(50);
  },
  patient(240_000),
);

test(
  'deleteJob cancels the running stage: nothing is reported, the engine moves on',
  async () => {
    const cams = truth.sources.slice(0, 3);
    const { jobId } = await createAndStart(
      cams.map((s) => ({ url: `/fixture/${s.file}`, label: s.label, ext: 'mp4' })),
    );
    const until = Date.now() + 60_000;
    while ((await call<{ jobId: string } | null>('running'))?.jobId !== jobId) {
      expect(Date.now(), 'the syncing stage never started').toBeLessThan(until);
      await new Promise((r) => setTimeout(r, 20));
    }
    const deleted = await api<unknown>('DELETE', `/jobs/${jobId}`);
    expect(deleted.status).toBeLessThan(300);
    let runs: History = [];
    while (runs.length === 0) {
      expect(Date.now(), 'the stage did not stop').toBeLessThan(until);
      await new Promise((r) => setTimeout(r, 50));
      runs = (await call<History>('history')).filter((h) => h.jobId === jobId);
    }
    expect(runs.map((h) => `${h.stage}:${h.outcome}`)).toEqual(['syncing:cancelled']);
    expect((await api<unknown>('GET', `/jobs/${jobId}`)).status).toBe(404);
  },
  patient(90_000),
);
