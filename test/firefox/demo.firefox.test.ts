/**
 * The demo page as a person uses it in Firefox: Debian's stock firefox-esr, driven over
 * WebDriver BiDi through src/cli/firefox.ts. Pick the built-in sample, untick review, start,
 * wait for the render, check what it made and click to download it. Firefox has WebCodecs
 * H.264 but no AAC encoder, so the WebAssembly AAC encoder bundled in the render worker
 * (`@mediabunny/aac-encoder`, MPL-2.0) makes the AAC-LC, not the GPL core; its service worker's fetch
 * event has no request body stream (src/routes/http.ts `requestBody` reads the blob), and it
 * asks the person before keeping the site's storage (a prompt start-up must not wait on).
 * Then, on the same job (no second analysis or render), the review editor as a person uses it:
 * opened from the page's link, the edit shown, played and seeked, a shot's camera changed and a
 * cut moved, a level nudged, all kept after a reload and in the job, then approved.
 * Screenshots go to test-results/firefox/*.png.
 *
 * The firefox tier (`npm run test:firefox`); one file:
 * `flock /tmp/multicam-browser.lock npx vitest run --project firefox test/firefox/demo.firefox.test.ts`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KeyInput, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SAMPLE_DIR, type SampleManifest } from '../../demo/sample/manifest.ts';
import type { Cut, GetJobResponse, Job, JobSource } from '../../src/contract/types.ts';
import { moveBoundary, pickCameraAt, setCutCamera, sourceTimeMs, timelineEndMs } from '../../src/dom/editor/model.ts';
import type { Truth } from '../../tools/fixtures/truth.ts';
import { ownCloseupShare } from '../support/own-closeup.ts';
import { launchFirefox, type LaunchedFirefox } from '../../src/cli/firefox.ts';
import { demoAppSite } from '../support/app-site.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { patient } from '../support/patience.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SHOTS = join(ROOT, 'test-results/firefox');
const DOWNLOADS = join(SHOTS, 'downloads');
const SAMPLE = join(ROOT, SAMPLE_DIR);

let firefox: LaunchedFirefox;
let server: StaticServer;
let page: Page;
/** What the page wrote to its console and any uncaught error: printed when something fails. */
const consoleLines: string[] = [];
/** Set once the first test saw the job complete: the review editor test works on that job. */
let completedJobId: string | null = null;

const shot = async (name: string): Promise<void> => {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
};
const text = (selector: string): Promise<string> => page.$eval(selector, (el) => el.textContent ?? '').catch(() => '');
const demoJob = (): Promise<Job> =>
  page.evaluate(
    async () =>
      (await (window as unknown as { multicamDemo: { job(): Promise<GetJobResponse> } }).multicamDemo.job()).job,
  );

/** Waits for the job's status on the page; on a timeout or a failure, says what the page showed. */
async function waitForStatus(status: string, timeout: number): Promise<void> {
  try {
    await page.waitForFunction(
      (s: string) => document.body.dataset['jobStatus'] === s || document.body.dataset['jobStatus'] === 'failed',
      { timeout: patient(timeout), polling: 1000 },
      status,
    );
  } catch (error) {
    await shot(`timeout-${status}`);
    throw new Error(`waiting for ${status}: ${(error as Error).message}; the page showed ${await shown()}`, {
      cause: error,
    });
  }
}
const shown = (): Promise<string> =>
  page.evaluate(() =>
    ['status', 'job-status', 'job-plain', 'job-next', 'job-error', 'warnings']
      .map((id) => `${id}: ${document.getElementById(id)?.textContent}`)
      .join(' | '),
  );

/** The saved download once Firefox has finished writing it (no `.part` beside it). */
async function savedDownload(timeout: number): Promise<string> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const files = existsSync(DOWNLOADS) ? readdirSync(DOWNLOADS) : [];
    const done = files.find((f) => f.endsWith('.mp4'));
    if (done !== undefined && !files.some((f) => f.endsWith('.part'))) return join(DOWNLOADS, done);
    if (Date.now() > deadline) throw new Error(`no download in ${DOWNLOADS} (saw ${files.join(', ') || 'nothing'})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

// The review editor's tab (the second test) and what it is asked.
let editor: Page;
const editorShot = (name: string): Promise<unknown> =>
  editor.screenshot({ path: join(SHOTS, `editor-${name}.png`), fullPage: true });
const saves = (): Promise<number> => editor.$eval('#editor', (e) => Number((e as HTMLElement).dataset['saved'] ?? '0'));
/** Waits for the editor to count a save past `before`, then reads the job over the API. */
const savedJob = async (before: number): Promise<Job> => {
  await editor.waitForFunction(
    (n: number) => Number(document.getElementById('editor')?.dataset['saved'] ?? '0') > n,
    { timeout: patient(15_000), polling: 100 },
    before,
  );
  return demoJob();
};
const playheadMs = (): Promise<number> =>
  editor.$eval('#editor', (e) => Number((e as HTMLElement).dataset['playheadMs']));
const pageCuts = (): Promise<Array<{ sourceId: string; start: string }>> =>
  editor.$$eval('li.cut', (items) =>
    items.map((li) => ({
      sourceId: (li as HTMLElement).dataset['sourceId'] ?? '',
      start: li.querySelector('.cut-seek')?.textContent ?? '',
    })),
  );
const waitComplete = async (): Promise<void> => {
  try {
    await editor.waitForSelector('#editor[data-status="complete"]', { timeout: patient(60_000) });
  } catch (error) {
    await editorShot('timeout-complete');
    throw new Error(
      `the editor did not show the complete job: ${await editor.$eval('#editor', (e) => e.textContent)}`,
      {
        cause: error,
      },
    );
  }
};
/** Takes the focus off any control, so the editor's keys reach it (as a click on the page does). */
const focusPage = (): Promise<void> => editor.click('h1.job-title');

/** Waits until the editor's playhead (whole ms) is `v`, below it, or within 1 s of it; returns it. */
const playheadWhen = async (test: 'equal' | 'below' | 'near', v: number): Promise<number> => {
  await editor
    .waitForFunction(
      (t: string, want: number) => {
        const p = Number(document.getElementById('editor')?.dataset['playheadMs']);
        return t === 'equal' ? p === want : t === 'below' ? p < want : Math.abs(p - want) < 1000;
      },
      { timeout: patient(10_000), polling: 50 },
      test,
      v,
    )
    .catch(() => undefined);
  return playheadMs();
};
/** Every camera recording at `at` shows its own time for it (offset and drift applied). */
async function expectCamerasAt(cameras: readonly JobSource[], at: number): Promise<void> {
  const times = await editor.$$eval('figure.camera video', (vs) =>
    vs.map((v) => ({ id: v.dataset['sourceId'], ms: v.currentTime * 1000 })),
  );
  for (const camera of cameras) {
    const want = sourceTimeMs(camera, at);
    if (want < 0 || want >= camera.durationMs!) continue;
    expect(Math.abs(times.find((t) => t.id === camera.id)!.ms - want), camera.label).toBeLessThanOrEqual(1);
  }
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  rmSync(DOWNLOADS, { recursive: true, force: true });
  mkdirSync(DOWNLOADS, { recursive: true });
  // The app build the Chromium tier served (rebuilt only when a source changed since).
  server = await serveStatic(demoAppSite(), 0);
  firefox = await launchFirefox({ downloadDir: DOWNLOADS, protocolTimeout: patient(1_000_000) });
  page = await firefox.browser.newPage();
  page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => consoleLines.push(`pageerror: ${String(error)}`));
  await page.setViewport({ width: 1280, height: 800 });
}, patient(240_000));

afterAll(async () => {
  writeFileSync(join(SHOTS, 'console.log'), consoleLines.join('\n'));
  await firefox?.close();
  server?.server.closeAllConnections();
  await server?.close();
});

test(
  'hands-off in Firefox: sample → review off → start → an MP4 with H.264 and the audio this browser can encode → click to download',
  async () => {
    const started = Date.now();
    await page.goto(`${server.origin}/`);
    try {
      await page.waitForSelector('body[data-ready]', { timeout: patient(60_000) });
    } catch (error) {
      await shot('timeout-ready');
      throw new Error(`waiting for the page to start: ${(error as Error).message}; it showed ${await shown()}`, {
        cause: error,
      });
    }
    expect(await page.$eval('body', (b) => b.dataset['ready']), await text('#status')).toBe('1');
    expect(await page.evaluate(() => globalThis.crossOriginIsolated)).toBe(true);
    expect(await text('#sample-title')).toContain('Built-in sample');
    await shot('01-ready');

    await page.click('#use-sample');
    await page.waitForSelector('#chosen:not([hidden])');
    // Untick review: the job renders without a person.
    if (await page.$eval('#opt-review', (box) => (box as HTMLInputElement).checked)) await page.click('#opt-review');
    expect(await page.$eval('#opt-review', (box) => (box as HTMLInputElement).checked)).toBe(false);
    await page.click('#start');
    // Firefox decodes in software here, on two shared cores: allow far more than Chromium needs.
    await waitForStatus('complete', 900_000);
    console.log(`[firefox] start → complete in ${Math.round((Date.now() - started) / 1000)} s`);
    await page.waitForSelector('#download:not([hidden])');
    expect(await text('#job-error'), await shown()).toBe('');
    await shot('02-complete');

    const warnings = await page.$$eval('#warnings li', (items) => items.map((li) => li.textContent ?? ''));
    console.log(`[firefox] warnings shown: ${JSON.stringify(warnings)}`);
    const job = await demoJob();
    completedJobId = job.id;
    console.log(`[firefox] job warnings: ${JSON.stringify(job.warnings)}`);
    console.log(`[firefox] output_format: ${JSON.stringify(job.output_format)}`);
    // AAC, as editing software wants: from WebCodecs where the browser has an AAC encoder, else
    // from the bundled WebAssembly encoder (Firefox, like Linux Chromium, has none).
    const aacEncoder = await page.evaluate(async () => {
      const config = { codec: 'mp4a.40.2', sampleRate: 48_000, numberOfChannels: 2, bitrate: 128_000 };
      return typeof AudioEncoder !== 'undefined' && (await AudioEncoder.isConfigSupported(config)).supported === true;
    });
    console.log(`[firefox] WebCodecs AAC encoder: ${aacEncoder}`);
    expect(job.output_format).toMatchObject({
      container: 'mp4',
      video_codec: 'h264',
      audio_codec: 'aac',
      audio_encoder: aacEncoder ? 'webcodecs' : 'aac-wasm',
      note: null,
    });

    // The edit itself: each close-up shows its own speaker, as in Chromium.
    const truth = JSON.parse(readFileSync(join(SAMPLE, 'truth.json'), 'utf8')) as Truth;
    const manifest = JSON.parse(readFileSync(join(SAMPLE, 'manifest.json'), 'utf8')) as SampleManifest;
    const edit = ownCloseupShare(truth, job, (label) => manifest.files.find((f) => f.label === label)?.file);
    console.log(`[firefox] own close-up share: ${edit.share}`);
    expect(edit.share, JSON.stringify(edit)).toBeGreaterThanOrEqual(0.9);

    // The edit plays on the page, its whole length from the start: the render writes the
    // fragmented MP4's length into its header (an mehd) once the file is whole; without it
    // Firefox's player showed only the fragments it had loaded (2–22 s of a 63 s edit).
    const atMetadata = await page.evaluate(async () => {
      const video = document.querySelector<HTMLVideoElement>('#player')!;
      if (video.readyState < 1) await new Promise((r) => video.addEventListener('loadedmetadata', r, { once: true }));
      return { duration: video.duration, width: video.videoWidth };
    });
    console.log(`[firefox] player at loadedmetadata: ${JSON.stringify(atMetadata)}`);
    expect(atMetadata.width).toBe(640);

    // Click the link as a person does: Firefox saves an MP4 (ftyp box) of real size, named.
    await page.click('#download');
    const saved = await savedDownload(patient(60_000));
    console.log(`[firefox] downloaded ${saved}`);
    expect(saved).toMatch(/multicam-[0-9a-f]{8}\.mp4$/);
    const bytes = readFileSync(saved);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.length).toBeGreaterThan(100_000);
    // What is in it, by Debian's ffprobe: H.264 and AAC-LC.
    const probe = JSON.parse(
      execFileSync('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_type,codec_name,profile:format=duration',
        '-of',
        'json',
        saved,
      ]).toString(),
    ) as {
      streams: Array<{ codec_type: string; codec_name: string; profile?: string }>;
      format: { duration: string };
    };
    // The player said the whole length at once (within a few frames of what ffprobe reads).
    expect(Math.abs(atMetadata.duration - Number(probe.format.duration))).toBeLessThan(0.25);
    console.log(`[firefox] ffprobe: ${JSON.stringify(probe.streams)}`);
    expect(probe.streams.find((x) => x.codec_type === 'video')).toMatchObject({ codec_name: 'h264' });
    expect(probe.streams.find((x) => x.codec_type === 'audio')).toMatchObject({ codec_name: 'aac', profile: 'LC' });
    // The page stays where it was (the click saved a file; it did not navigate away).
    expect(await page.$eval('#download', (a) => (a as HTMLElement).hidden)).toBe(false);
    console.log(`[firefox] whole run (page open → download) ${Math.round((Date.now() - started) / 1000)} s`);
  },
  patient(1_000_000),
);

test(
  'the review editor in Firefox, on the same job: opened from the page, played and seeked, a camera picked and a cut moved, a level nudged, all kept after a reload, approved',
  async () => {
    if (completedJobId === null)
      throw new Error('the hands-off test above did not complete its job: nothing to review');
    const started = Date.now();
    let job = await demoJob();
    expect(job.id).toBe(completedJobId);
    const cameras = job.sources.filter((s) => s.kind === 'video');
    expect(cameras.length).toBe(3);

    // The page offers the editor for the complete job; a person clicks the link (a new tab).
    await page.waitForSelector('#review-link:not([hidden])');
    const href = await page.$eval('#review-link', (a) => (a as HTMLAnchorElement).href);
    expect(href).toMatch(/\/review\/\?token=/);
    const opened = firefox.browser.waitForTarget((t) => t.url() === href, { timeout: patient(30_000) });
    await page.click('#review-link');
    const tab = await (await opened).page();
    if (tab === null) throw new Error(`the review link opened no page (${href})`);
    editor = tab;
    editor.on('console', (message) => consoleLines.push(`editor ${message.type()}: ${message.text()}`));
    editor.on('pageerror', (error) => consoleLines.push(`editor pageerror: ${String(error)}`));
    await editor.setViewport({ width: 1280, height: 800 });
    await editor.bringToFront();
    // The edit is shown: a tile and a player per camera, the timeline, every shot in the list.
    await waitComplete();
    console.log(`[firefox] editor: link clicked → edit shown in ${Math.round((Date.now() - started) / 1000)} s`);
    expect(await editor.$$eval('figure.camera figcaption', (f) => f.map((c) => c.textContent ?? ''))).toEqual(
      cameras.map((c, i) => `${i + 1} ${c.label}`),
    );
    expect((await pageCuts()).map((c) => c.sourceId)).toEqual(job.cuts.map((c) => c.sourceId));
    expect(await editor.$eval('.edit-summary', (p) => p.textContent)).toMatch(new RegExp(`^${job.cuts.length} cuts`));
    expect(await editor.$eval('canvas.timeline', (c) => c.clientWidth)).toBeGreaterThan(600);
    await editor.waitForFunction(
      () => [...document.querySelectorAll<HTMLVideoElement>('figure.camera video')].every((v) => v.readyState >= 2),
      { timeout: patient(30_000), polling: 250 },
    );
    // What Firefox's players report for the cameras (the person's own files, whole MP4s) and the
    // speech mix: the player places a camera off air past its duration, so a short one would show.
    const media = await editor.evaluate(() =>
      [...document.querySelectorAll<HTMLMediaElement>('figure.camera video, audio')].map((m) => ({
        source: m.dataset['sourceId'] ?? 'audio',
        duration: m.duration,
        width: m instanceof HTMLVideoElement ? m.videoWidth : 0,
      })),
    );
    console.log(`[firefox] editor media: ${JSON.stringify(media)}`);
    for (const camera of cameras) {
      const shown = media.find((m) => m.source === camera.id);
      expect(shown?.width).toBeGreaterThan(0);
      expect(Math.abs(shown!.duration * 1000 - camera.durationMs!), camera.label).toBeLessThan(500);
    }
    await editor.waitForFunction(() => document.getElementById('editor')?.dataset['waveform'] !== undefined, {
      timeout: patient(30_000),
      polling: 250,
    });
    expect(await editor.$eval('#editor', (e) => (e as HTMLElement).dataset['waveform'])).toBe('decoded');
    await editor.waitForFunction(() => Number(document.getElementById('editor')?.dataset['thumbnails'] ?? '0') > 0, {
      timeout: patient(30_000),
      polling: 250,
    });
    // The sound levels read what this browser's render measured.
    expect(await editor.$eval('section.levels .levels-render', (p) => p.textContent)).toMatch(
      /^The last render measures −\d+\.\d LUFS, true peak −?\d+\.\d dBTP\.$/,
    );
    await editorShot('01-loaded');

    // Play and pause with the space bar: the playhead ran, every camera stopped with it.
    await focusPage();
    await editor.keyboard.press(' ');
    await new Promise((r) => setTimeout(r, 1200));
    await editor.keyboard.press(' ');
    await editor.waitForFunction(
      () => [...document.querySelectorAll<HTMLVideoElement>('figure.camera video')].every((v) => v.paused),
      { timeout: patient(5_000), polling: 50 },
    );
    // At least the wait's length, less slack for the key events (a lower bound: a slow machine only adds).
    expect(await playheadMs()).toBeGreaterThan(600);
    // Seek by clicking a shot's start in the list, a frame back with ←, then by clicking the timeline.
    const k = Math.min(2, job.cuts.length - 1);
    const shotStart = job.cuts[k]!.startMs;
    await editor.click(`li.cut[data-index="${k}"] .cut-seek`);
    expect(await playheadWhen('equal', shotStart)).toBe(shotStart);
    await expectCamerasAt(cameras, shotStart);
    await focusPage();
    await editor.keyboard.press('ArrowLeft');
    const stepped = await playheadWhen('below', shotStart);
    expect(stepped).toBeLessThan(shotStart);
    expect(stepped).toBeGreaterThan(shotStart - 100);
    const timeline = (await editor.$('canvas.timeline'))!;
    let box = (await timeline.boundingBox())!;
    const total = Math.max(1000, timelineEndMs(job.sources, job.cuts, job.turns));
    const msPerPx = total / box.width;
    await editor.mouse.click(box.x + box.width / 2, box.y + 5);
    const clicked = await playheadWhen('near', total / 2);
    expect(Math.abs(clicked - total / 2)).toBeLessThan(msPerPx * 3);
    await expectCamerasAt(cameras, clicked);
    await editorShot('02-seeked');

    // A camera picked with its number key from the playhead on (1 s into shot k).
    await editor.click(`li.cut[data-index="${k}"] .cut-seek`);
    await playheadWhen('equal', shotStart);
    await focusPage();
    await editor.keyboard.down('Shift');
    await editor.keyboard.press('ArrowRight');
    await editor.keyboard.up('Shift');
    const at = shotStart + 1000;
    expect(await playheadWhen('equal', at)).toBe(at);
    const pick = cameras.findIndex((c) => c.id !== job.cuts[k]!.sourceId);
    let expected: Cut[] = pickCameraAt(job.cuts, at, cameras[pick]!.id);
    let before = await saves();
    await editor.keyboard.press(String(pick + 1) as KeyInput);
    job = await savedJob(before);
    expect(job.cuts).toEqual(expected);
    // Another shot's camera chosen in the list.
    const j = Math.max(0, expected.length - 2);
    const other = cameras.find((c) => c.id !== expected[j]!.sourceId)!;
    expected = setCutCamera(expected, j, other.id);
    before = await saves();
    await editor.select(`li.cut[data-index="${j}"] select.cut-camera`, other.id);
    job = await savedJob(before);
    expect(job.cuts).toEqual(expected);
    // The first cut's end typed in seconds.
    const moveTo = Math.round((expected[0]!.endMs + expected[1]!.endMs) / 200) * 100;
    expected = moveBoundary(expected, 0, moveTo);
    before = await saves();
    await editor.click('input.cut-end');
    await editor.keyboard.down('Control');
    await editor.keyboard.press('a');
    await editor.keyboard.up('Control');
    await editor.keyboard.type((moveTo / 1000).toFixed(1));
    await editor.keyboard.press('Enter');
    job = await savedJob(before);
    expect(job.cuts).toEqual(expected);
    expect(job.cuts[0]!.endMs).toBe(moveTo);
    // The next boundary dragged 600 ms later on the timeline (in the cuts lane, near its bottom).
    box = (await timeline.boundingBox())!;
    const from = expected[1]!.endMs;
    const y = box.y + box.height - 20;
    before = await saves();
    await editor.mouse.move(box.x + from / msPerPx, y);
    await editor.mouse.down();
    await editor.mouse.move(box.x + (from + 600) / msPerPx, y, { steps: 4 });
    await editor.mouse.up();
    job = await savedJob(before);
    expect(Math.abs(job.cuts[1]!.endMs - (from + 600))).toBeLessThan(msPerPx * 3);
    expected = job.cuts;

    // A source's level 2 dB down: four presses of ← on its slider (0.5 dB each).
    const level = (await editor.$eval('section.levels li.level-row', (li) => (li as HTMLElement).dataset['sourceId']))!;
    const slider = `section.levels li.level-row[data-source-id="${level}"] input.source-gain`;
    before = await saves();
    await editor.focus(slider);
    for (let i = 0; i < 4; i++) await editor.keyboard.press('ArrowLeft');
    expect(
      await editor.$eval(`section.levels li.level-row[data-source-id="${level}"] output`, (o) => o.textContent),
    ).toBe('−2.0 dB');
    await savedJob(before);
    await expect.poll(async () => (await demoJob()).audio.gains, { timeout: patient(15_000) }).toEqual({ [level]: -2 });
    expect(await editor.$eval('.error', (e) => (e as HTMLElement).hidden)).toBe(true);
    await editorShot('03-edited');

    // Reload: the editor shows exactly what was saved.
    const shownCuts = await pageCuts();
    await editor.reload();
    await waitComplete();
    expect(await pageCuts()).toEqual(shownCuts);
    expect(shownCuts.map((c) => c.sourceId)).toEqual(expected.map((c) => c.sourceId));
    expect(await editor.$eval('input.cut-end', (i) => i.value)).toBe((moveTo / 1000).toFixed(1));
    expect(await editor.$eval(slider, (i) => (i as HTMLInputElement).value)).toBe('-2');
    await editorShot('04-reloaded');

    // Approve: the job is final (read over the API), the edit read-only.
    await editor.click('button.approve');
    await editor.waitForSelector('#editor[data-status="approved"]', { timeout: patient(15_000) });
    expect((await demoJob()).status).toBe('approved');
    expect(await editor.$eval('fieldset.edit-controls', (f) => f.disabled)).toBe(true);
    expect(await editor.$eval('.error', (e) => (e as HTMLElement).hidden)).toBe(true);
    await editorShot('05-approved');
    expect(await editor.$eval('li.cut select.cut-camera', (c) => c.matches(':disabled'))).toBe(true);
    await editor.close();
    // Nothing in the editor threw, beyond the media loads Firefox reports when a request the
    // service worker answers is cut short (a player seeking or let go; docs/browsers.md).
    const thrown = consoleLines.filter(
      (l) => l.startsWith('editor pageerror') && !l.includes('A ServiceWorker intercepted the request'),
    );
    expect(thrown).toEqual([]);
    console.log(`[firefox] review editor flows ${Math.round((Date.now() - started) / 1000)} s`);
  },
  patient(300_000),
);
