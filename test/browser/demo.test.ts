/**
 * The demo page as a person uses it, in a real Chromium with the real engine: pick the
 * built-in sample, choose options, start, watch the stages (syncing → diarizing → mapping →
 * ready: the service maps the cameras itself, rightly), render, see the events outbox and
 * click to download the video; hands-off (review off) from Start to a render with no click.
 * Screenshots go to test-results/demo/*.png.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page, Response as PlaywrightResponse } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SAMPLE_DIR, type SampleManifest } from '../../demo/sample/manifest.ts';
import type { GetJobResponse } from '../../src/contract/types.ts';
import type { Truth } from '../../tools/fixtures/truth.ts';
import { ownCloseupShare } from '../support/own-closeup.ts';
import { ensureFixture } from '../support/fixtures.ts';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { demoAppSite } from '../support/app-site.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { patient } from '../support/patience.ts';
import { ensureFacesFixture } from '../../tools/fixtures/faces-set.ts';
import { requireFacesData } from '../support/shared-data.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SHOTS = join(ROOT, 'test-results/demo');
const SAMPLE = join(ROOT, SAMPLE_DIR);

let chromium: LaunchedChromium;
let server: StaticServer;
let page: Page;
let receiver: WebhookReceiver;

const shot = (name: string): Promise<Buffer> => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
/** Waits for the job's status on the page; on a timeout, says what the page showed. */
async function waitForStatus(status: string, timeout: number): Promise<void> {
  try {
    await page.waitForFunction(
      (s) => document.body.dataset['jobStatus'] === s || document.body.dataset['jobStatus'] === 'failed',
      status,
      { timeout: patient(timeout), polling: 250 },
    );
  } catch (error) {
    await shot(`timeout-${status}`);
    const shown = await page.evaluate(() =>
      ['status', 'job-status', 'job-next', 'job-error']
        .map((id) => `${id}: ${document.getElementById(id)?.textContent}`)
        .join(' | '),
    );
    throw new Error(`waiting for ${status}: ${(error as Error).message}; the page showed ${shown}`, {
      cause: error,
    });
  }
}
const rows = (selector: string): Promise<string[]> =>
  page.$$eval(selector, (cells) => cells.map((c) => c.textContent ?? ''));

/** What the running step's row showed, once a second: its bar (null: no fraction) and its time text. */
interface ShownStep {
  t: number;
  step: string;
  value: number | null;
  shown: string;
}
/** Starts recording the running step's row in the page (read back with {@link shownSteps}). */
const recordSteps = (): Promise<void> =>
  page.evaluate(() => {
    const w = window as unknown as { shownSteps: ShownStep[] };
    w.shownSteps = [];
    setInterval(() => {
      const li = document.querySelector<HTMLLIElement>('#steps li.active');
      const bar = li?.querySelector('progress');
      if (!li || !bar) return;
      w.shownSteps.push({
        t: Date.now(),
        step: li.dataset['step'] ?? '',
        value: bar.hasAttribute('value') ? bar.value : null,
        shown: li.querySelector('.time')?.textContent ?? '',
      });
    }, 1000);
  });
const shownSteps = (): Promise<ShownStep[]> =>
  page.evaluate(() => (window as unknown as { shownSteps: ShownStep[] }).shownSteps);
/** The seconds of "about N s left" / "about M min N s left", else null. */
function secondsLeft(shown: string): number | null {
  const m = /about (?:(\d+) min )?(\d+) s left/.exec(shown);
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2]) : null;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // The shared app build (vite.config copies the sample into it); rebuilt only when stale.
  server = await serveStatic(demoAppSite(), 0);
  receiver = await startWebhookReceiver({ allowOrigin: server.origin });
  chromium = await launchChromium();
  page = await chromium.context.newPage();
}, patient(240_000));

afterAll(async () => {
  await chromium?.close();
  await receiver?.close();
  server?.server.closeAllConnections();
  await server?.close();
});

/** The finished (or ready) job's edit against the sample's truth: who is on each close-up and the own-close-up share. */
async function sampleEdit(): Promise<ReturnType<typeof ownCloseupShare>> {
  const job = await page.evaluate(
    async () =>
      (await (window as unknown as { multicamDemo: { job(): Promise<GetJobResponse> } }).multicamDemo.job()).job,
  );
  const truth = JSON.parse(readFileSync(join(SAMPLE, 'truth.json'), 'utf8')) as Truth;
  const manifest = JSON.parse(readFileSync(join(SAMPLE, 'manifest.json'), 'utf8')) as SampleManifest;
  return ownCloseupShare(truth, job, (label) => manifest.files.find((f) => f.label === label)?.file);
}

/**
 * Proxies (issue 56): once the job is ready the engine builds each camera's proxy in the
 * background; every camera gets one, native ffprobe reads it as H.264 at the camera's size
 * (360p or less) and frame rate with a keyframe at least every second and no sound, and the
 * editor's tiles switch to it (same stored file as the Job's proxy URL) and show frames.
 */
async function checkProxies(review: Page): Promise<void> {
  const started = Date.now();
  const cameras = async (): Promise<GetJobResponse['job']['sources']> =>
    (
      await page.evaluate(
        async () =>
          (await (window as unknown as { multicamDemo: { job(): Promise<GetJobResponse> } }).multicamDemo.job()).job,
      )
    ).sources.filter((s) => s.kind === 'video');
  let sources = await cameras();
  while (sources.some((s) => s.proxy?.status === 'pending') && Date.now() - started < patient(180_000)) {
    await new Promise((r) => setTimeout(r, 1000));
    sources = await cameras();
  }
  expect(sources.map((s) => [s.label, s.proxy?.status, s.proxy?.reason])).toEqual(
    sources.map((s) => [s.label, 'ready', undefined]),
  );
  console.log(`[demo] ${sources.length} proxies ready ${Math.round((Date.now() - started) / 1000)} s after ready`);
  const dir = join(SHOTS, 'proxies');
  mkdirSync(dir, { recursive: true });
  for (const source of sources) {
    const base64 = await page.evaluate(async (url) => {
      const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
      let text = '';
      for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(text);
    }, source.proxy!.url!);
    const file = join(dir, `${source.id}.mp4`);
    writeFileSync(file, Buffer.from(base64, 'base64'));
    const probe = JSON.parse(
      spawnSync('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file], {
        encoding: 'utf8',
      }).stdout,
    ) as { streams: Array<Record<string, string | number>>; format: { duration: string } };
    expect(probe.streams.map((st) => st['codec_type'])).toEqual(['video']);
    const video = probe.streams[0]!;
    expect([video['codec_name'], video['width'], video['height']]).toEqual([
      'h264',
      source.proxy!.width,
      source.proxy!.height,
    ]);
    expect(Math.min(Number(video['width']), Number(video['height']))).toBeLessThanOrEqual(360);
    // The camera's own rate (the sample's cameras are 30 fps) and length.
    expect(video['r_frame_rate']).toBe(`${source.frameRateExact!.num}/${source.frameRateExact!.den}`);
    expect(Math.abs(Number(probe.format.duration) * 1000 - source.durationMs!)).toBeLessThan(200);
    const keyframes = spawnSync(
      'ffprobe',
      [
        '-v',
        'error',
        '-select_streams',
        'v',
        '-skip_frame',
        'nokey',
        '-show_entries',
        'frame=pts_time',
        '-of',
        'csv=p=0',
        file,
      ],
      { encoding: 'utf8' },
    )
      .stdout.trim()
      .split('\n')
      .map(Number);
    const gaps = keyframes.slice(1).map((t, i) => t - keyframes[i]!);
    expect(Math.max(...gaps), keyframes.join(' ')).toBeLessThanOrEqual(1.05);
  }
  // The tiles play the proxies: each switched to its camera's stored proxy and shows a frame.
  await review.waitForFunction(
    (n) => {
      const videos = [...document.querySelectorAll<HTMLVideoElement>('figure.camera video')];
      return videos.length === n && videos.every((v) => v.dataset['media'] === 'proxy' && v.readyState >= 2);
    },
    sources.length,
    { timeout: patient(30_000), polling: 250 },
  );
  const tiles = await review.$$eval('figure.camera video', (videos) =>
    (videos as HTMLVideoElement[]).map((v) => ({
      id: v.dataset['sourceId'],
      path: new URL(v.currentSrc).pathname,
      width: v.videoWidth,
    })),
  );
  expect(tiles).toEqual(
    sources.map((s) => ({ id: s.id, path: new URL(s.proxy!.url!).pathname, width: s.proxy!.width })),
  );
}

/** One GET answered by the server (not by the service worker): what it was and the bytes it carried. */
interface Downloaded {
  path: string;
  status: number;
  bytes: number;
}

/**
 * Records every GET the page and its workers send to the server (the service worker's answers
 * left out); the server sends no validators and `no-cache`, so each is a download.
 */
function recordDownloads(on: Page): { list: Downloaded[]; stop(): void } {
  const list: Downloaded[] = [];
  const onResponse = (response: PlaywrightResponse): void => {
    if (response.request().method() !== 'GET' || response.fromServiceWorker()) return;
    if (!response.url().startsWith(`${server.origin}/`)) return;
    list.push({
      path: new URL(response.url()).pathname,
      status: response.status(),
      bytes: Number(response.headers()['content-length'] ?? 0),
    });
  };
  on.on('response', onResponse);
  return { list, stop: () => void on.off('response', onResponse) };
}

test(
  'sample → options → start → the service maps the cameras itself → ready → render → click to download',
  async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    // What one job downloads from a server without caching headers (issue 53): each wasm and model once.
    const downloads = recordDownloads(page);
    await page.goto(`${server.origin}/`);
    await page.waitForSelector('body[data-ready]');
    expect(await page.getAttribute('body', 'data-ready'), (await page.textContent('#status')) ?? '').toBe('1');
    expect(await page.textContent('#sample-title')).toContain('Built-in sample');
    await page.click('#use-sample');
    await page.waitForSelector('#chosen:not([hidden])');
    const chosen = await rows('#chosen tbody tr td:nth-child(3)');
    expect(chosen).toEqual(['video', 'video', 'video', 'audio', 'audio']);
    // Options: review on, automatic mapping from the evidence (the default: never a guess), tighten pauses.
    expect(await page.inputValue('#opt-automap')).toBe('always');
    await page.selectOption('#opt-silence', 'tighten');
    await page.fill('#opt-callback', receiver.url);
    await shot('01-chosen');
    await page.click('#start');
    await recordSteps();

    // No click: the 60 s sample is long enough for the camera map to be sure of both close-ups.
    await waitForStatus('ready', 240_000);
    expect(await page.textContent('#job-error')).toBe('');
    const stages = await page.$$eval('#stages li', (items) => items.map((li) => li.getAttribute('data-status')));
    expect(stages).toContain('ready');
    expect(stages.some((s) => s === 'syncing' || s === 'diarizing')).toBe(true);
    expect(await page.isHidden('#accept-proposal')).toBe(true);
    const edit = await sampleEdit();
    expect(edit.closeups['cam1.mp4']).toHaveLength(1);
    expect(edit.closeups['cam2.mp4']).toHaveLength(1);
    expect(edit.closeups['cam1.mp4']).not.toEqual(edit.closeups['cam2.mp4']);
    expect(edit.share, JSON.stringify(edit)).toBeGreaterThanOrEqual(0.9);
    // The page itself shows who is on which camera: a still of each and the speakers the edit uses.
    await page.waitForSelector('#camera-strip:not([hidden]) #camera-cards li', { timeout: patient(10_000) });
    const strip = await page.$$eval('#camera-cards li', (items) =>
      items.map((li) => ({
        state: li.className,
        label: li.querySelector('.label')?.textContent,
        who: li.querySelector('.who')?.textContent,
        still: li.querySelector('video')?.getAttribute('src') ?? null,
      })),
    );
    expect(strip.map((c) => c.label)).toEqual(['Cam 1 (close-up)', 'Cam 2 (close-up)', 'Cam 3 (two-shot)']);
    expect(strip.every((c) => c.state === 'mapped' && c.still !== null)).toBe(true);
    expect(strip[0]!.who).toBe(`close-up: ${edit.closeups['cam1.mp4']![0]}`);
    expect(strip[1]!.who).toBe(`close-up: ${edit.closeups['cam2.mp4']![0]}`);
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLVideoElement>('#camera-cards video')].every((v) => v.readyState >= 2),
    );
    await shot('02a-camera-strip');
    // The review editor is linked (reviewUrl from nextAction / the ready event).
    const reviewHref = await page.getAttribute('#review-link', 'href');
    expect(reviewHref).toMatch(/\/review\/\?token=/);
    // Click the link as a person does (it opens a new tab): the editor shows this job, its title
    // and one row per speaker (the editor itself is tested on its own).
    const job = await page.evaluate(
      async () =>
        (await (window as unknown as { multicamDemo: { job(): Promise<GetJobResponse> } }).multicamDemo.job()).job,
    );
    const [review] = await Promise.all([chromium.context.waitForEvent('page'), page.click('#review-link')]);
    await review.waitForSelector('#editor[data-status="ready"]', { timeout: patient(30_000) });
    // This job's review link (the page signs a fresh token at each poll, so the link clicked may be
    // newer than the one read above: same job, same origin and path).
    const opened = new URL(review.url());
    expect(`${opened.origin}${opened.pathname}`).toBe(new URL('/review/', server.origin).href);
    expect(opened.searchParams.get('token')).toMatch(new RegExp(`^${job.id}\\.`));
    expect(await review.locator('.job-title').textContent()).toBe(job.title ?? 'Untitled job');
    // The demo gives no title: the tab names the job by its id, so it is this job, not any the token could open.
    expect(await review.title()).toBe(`Review · ${job.title ?? job.id}`);
    const speakers = [...new Set(job.turns.map((t) => t.speaker))].sort();
    expect(speakers.length).toBeGreaterThanOrEqual(2);
    const shown = await review.$$eval('.who-speaks li[data-speaker]', (items) =>
      items.map((li) => li.getAttribute('data-speaker') ?? ''),
    );
    expect(shown.sort()).toEqual(speakers);
    await checkProxies(review);
    await review.screenshot({ path: join(SHOTS, '02b-review-editor.png') });
    await review.close();
    // The ready webhook reaches the receiver and the outbox table shows it delivered.
    const [readyPost] = await receiver.waitForPosts(1, 30_000);
    expect(JSON.parse(readyPost!.body)).toMatchObject({ status: 'ready' });
    // The events table is in the developer panel (closed): attached, not visible.
    await page.waitForSelector('#events tbody tr[data-type="ready"]', { state: 'attached', timeout: patient(10_000) });
    await page.waitForFunction(
      () =>
        document
          .querySelector('#events tbody tr[data-type="ready"] td:nth-child(4)')
          ?.textContent?.startsWith('delivered'),
      undefined,
      { timeout: patient(15_000) },
    );
    expect((await rows('#events tbody tr[data-type="ready"] td:nth-child(5)'))[0]).toMatch(/^1: #1 200 \d+ ms/);
    await shot('03-ready');

    await page.click('#render');
    await waitForStatus('complete', 240_000);
    expect(await page.textContent('#job-error')).toBe('');
    await page.waitForSelector('#download:not([hidden])');
    downloads.stop();
    const byPath = new Map<string, Downloaded[]>();
    for (const d of downloads.list) byPath.set(d.path, [...(byPath.get(d.path) ?? []), d]);
    const sum = (list: readonly Downloaded[]): number => list.reduce((s, d) => s + d.bytes, 0);
    const sample = downloads.list.filter((d) => d.path.startsWith('/sample/'));
    writeFileSync(
      join(SHOTS, 'downloads.json'),
      JSON.stringify(
        {
          total: sum(downloads.list),
          runtime: sum(downloads.list) - sum(sample),
          sample: sum(sample),
          byPath: Object.fromEntries(
            [...byPath].map(([path, list]) => [path, { times: list.length, bytes: sum(list) }]),
          ),
        },
        null,
        1,
      ),
    );
    // onnxruntime's wasm was downloaded, by one worker for all (src/models/asset-cache.ts) ...
    expect(byPath.get('/wasm/ort/ort-wasm-simd-threaded.wasm')?.length).toBe(1);
    // ... and no wasm or model twice (the wasm was once per worker). A worker's own script is
    // fetched by each worker started (this server sends `no-cache` and no validators): under load
    // the engine started a second vision worker in CI (its 0.9 MB script ×2) and onnxruntime's
    // 24 kB `.mjs` glue comes once per worker that imports it; those are reported, not asserted.
    const twice = [...byPath].filter(([path, list]) => /\.(wasm|onnx)$/.test(path) && list.length > 1);
    expect(twice.map(([path, list]) => `${path} ×${list.length}`)).toEqual([]);
    const scriptsTwice = [...byPath].filter(([path, list]) => /\.(m?js|css)$/.test(path) && list.length > 1);
    console.log(
      `[demo] scripts fetched more than once: ${scriptsTwice.map(([p, l]) => `${p} ×${l.length}`).join(', ')}`,
    );
    // The time left each step showed (issue 49): from the rate its bar moved at, never "0 s" while it
    // ran, and never growing while the bar stood still (the old elapsed × left ÷ done did).
    const seen = await shownSteps();
    writeFileSync(join(SHOTS, 'shown-steps.json'), JSON.stringify(seen, null, 1));
    expect(seen.filter((r) => r.value !== null && r.value > 0).length).toBeGreaterThan(5);
    for (const r of seen) expect(r.shown).not.toMatch(/about 0 s left/);
    for (let i = 1; i < seen.length; i++) {
      const [before, after] = [seen[i - 1]!, seen[i]!];
      if (before.step !== after.step || before.value !== after.value) continue;
      const [a, b] = [secondsLeft(before.shown), secondsLeft(after.shown)];
      if (a !== null && b !== null) expect(b, `${after.step}: ${before.shown} → ${after.shown}`).toBeLessThanOrEqual(a);
    }
    await page.waitForSelector('#events tbody tr[data-type="complete"]', {
      state: 'attached',
      timeout: patient(10_000),
    });
    // The jobs table follows the job.
    expect(await rows('#jobs tbody tr td:nth-child(3)')).toContain('complete');
    // In plain words, every step done with its time, and the edit plays on the page.
    expect(await page.textContent('#job-plain')).toContain('Done');
    expect(await rows('#steps li.done .name')).toEqual([
      'Add the files',
      'Line up the cameras and mics',
      'Find who speaks when',
      'Work out who is on which camera',
      'Your review',
      'Render the edit',
      'Done',
    ]);
    const played = await page.evaluate(async () => {
      const video = document.querySelector<HTMLVideoElement>('#player')!;
      if (video.readyState < 1) await new Promise((r) => video.addEventListener('loadedmetadata', r, { once: true }));
      return { duration: video.duration, width: video.videoWidth };
    });
    expect(played.duration).toBeGreaterThan(30);
    expect(played.width).toBe(640);
    await shot('04-complete');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('04-complete-narrow');
    // The finished page fits a phone too (the options' auto-map menu once made it 505 px wide).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.click('#developer > summary');
    await shot('06-developer-panel');
    await page.click('#developer > summary');
    // Click the link as a person does: the browser saves an MP4 (ftyp box) of real size, named.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    expect(download.suggestedFilename()).toMatch(/^multicam-[0-9a-f]{8}\.mp4$/);
    const savedPath = await download.path();
    const saved = readFileSync(savedPath);
    expect(saved.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(saved.length).toBeGreaterThan(100_000);
    // The sample's render is mastered (createJob's default audio: −16 LUFS, −1 dBTP): native
    // ffmpeg's ebur128 reads the downloaded file at the target and under the ceiling (issue 55).
    const loud = spawnSync('ffmpeg', [
      '-nostats',
      '-hide_banner',
      '-i',
      savedPath,
      '-af',
      'ebur128=peak=true',
      '-f',
      'null',
      '-',
    ]);
    const summary = loud.stderr.toString().slice(loud.stderr.toString().lastIndexOf('Summary:'));
    const reading = (label: string): number => Number(new RegExp(`${label}:\\s+(-?[\\d.]+)`).exec(summary)?.[1]);
    const levels = (
      await page.evaluate(
        async () =>
          (await (window as unknown as { multicamDemo: { job(): Promise<GetJobResponse> } }).multicamDemo.job()).job,
      )
    ).output_format?.levels;
    console.log(
      `sample render: I ${reading('I')} LUFS, true peak ${reading('Peak')} dBTP (native ffmpeg ebur128); levelling ${JSON.stringify(levels?.sources.map((x) => x.speakers.map((k) => [k.speaker, k.gain_db, k.speech_lufs_after])))}`,
    );
    expect(Math.abs(reading('I') + 16)).toBeLessThanOrEqual(1);
    expect(reading('Peak')).toBeLessThanOrEqual(-1);
    // The page stays where it was (the click saved a file; it did not navigate away).
    expect(await page.isVisible('#download')).toBe(true);
  },
  patient(600_000),
);

test(
  'hands-off: review off and automatic mapping go from Start to a downloadable render with no other click',
  async () => {
    await page.goto(`${server.origin}/`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.click('#use-sample');
    await page.waitForSelector('#chosen:not([hidden])');
    await page.uncheck('#opt-review');
    await page.selectOption('#opt-automap', 'always');
    await page.click('#start');
    await waitForStatus('complete', 480_000);
    expect(await page.textContent('#job-error')).toBe('');
    const edit = await sampleEdit();
    expect(edit.share, JSON.stringify(edit)).toBeGreaterThanOrEqual(0.9);
    await shot('05-hands-off-complete');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    expect(
      readFileSync(await download.path())
        .subarray(4, 8)
        .toString('latin1'),
    ).toBe('ftyp');
  },
  patient(600_000),
);

/** The camera files of the tiny fixture (too short for the service to judge who is on which). */
// Absent here: skipped; absent where CI=true: the file fails naming the missing clips.
const facesPresent = requireFacesData();

test.skipIf(!facesPresent)(
  'real faces: a person picks three cameras, asks to map them themselves, and finds the proposal made from the faces',
  async () => {
    // Two real people (GRID clips), their close-ups and a two-shot; no mics: the camera audio is one mix.
    const { dir, truth } = await ensureFacesFixture({ people: 2, seconds: 75, width: 640, height: 360, seed: '3' });
    const cams = truth.sources.filter((x) => x.kind === 'video').map((x) => join(dir, x.file));
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.origin}/`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.setInputFiles('#video-files', cams);
    await page.waitForSelector('#chosen:not([hidden])');
    await page.selectOption('#opt-automap', 'off');
    await page.click('#start');
    await waitForStatus('mapping', 300_000);
    await page.waitForSelector('#accept-proposal:not([hidden])', { timeout: patient(60_000) });
    // The map is done; the job waits for the person: the progress says so.
    await page.waitForSelector('#steps li[data-step="ready"].active', { timeout: patient(10_000) });
    expect(await page.getAttribute('#steps li[data-step="mapping"]', 'class')).toBe('done');
    expect(await page.textContent('#steps li[data-step="ready"] .time')).toBe('waiting for you');
    // Before anyone confirms, the page shows the proposal as a proposal.
    await page.waitForSelector('#camera-strip:not([hidden]) #camera-cards li.proposed', { timeout: patient(10_000) });
    expect(await page.textContent('#camera-cards li:first-child .who')).toMatch(/\(proposed, confidence high\)$/);
    await shot('09-real-faces-mapping');
    const { job } = await demoJob();
    const map = job.camera_map!;
    const byFile = (file: string) => map.cameras[truth.sources.findIndex((x) => x.file === file)]!;
    for (const e of truth.expectedCameraMap.cameras) {
      const c = byFile(e.file);
      expect(c, e.file).toMatchObject({ kind: e.kind, evidence: 'faces', faces: e.speakers.length });
      if (e.kind === 'closeup') expect(c.confidence, e.file).toBe('high');
    }
    expect(byFile('cam1.mp4').speakers).not.toEqual(byFile('cam2.mp4').speakers);
    expect(byFile('cam3.mp4').positions).toEqual({
      left: byFile('cam1.mp4').speakers[0],
      right: byFile('cam2.mp4').speakers[0],
    });
    // The review editor's mapping screen says what each proposal rests on.
    const reviewHref = await page.getAttribute('#review-link', 'href');
    const review = await chromium.context.newPage();
    await review.setViewportSize({ width: 1280, height: 900 });
    await review.goto(new URL(reviewHref!, server.origin).href);
    await review.waitForSelector('.camera-mapping .proposal');
    const proposals = await review.$$eval('.camera-mapping .proposal', (ps) => ps.map((p) => p.textContent ?? ''));
    expect(proposals).toEqual([
      expect.stringMatching(
        /^Proposed: closeup, confidence high · 1 face seen, matched to the voices by their mouths$/,
      ),
      expect.stringMatching(/^Proposed: closeup, confidence high · 1 face seen/),
      expect.stringMatching(/^Proposed: twoshot, confidence high · left SPEAKER_0\d, right SPEAKER_0\d · 2 faces seen/),
    ]);
    await review.waitForTimeout(1000);
    await review.screenshot({ path: join(SHOTS, '09b-real-faces-editor.png'), fullPage: true });
    await review.close();
    // Accepting the proposal takes the job on to ready with those tracks.
    await page.click('#accept-proposal');
    await waitForStatus('ready', 120_000);
    const ready = (await demoJob()).job;
    for (const c of map.cameras)
      expect(ready.tracks.find((t) => t.sourceId === c.sourceId)?.speakers, c.sourceId).toEqual(c.speakers);
  },
  patient(420_000),
);

async function tinyCameras(): Promise<string[]> {
  const tiny = await ensureFixture('tiny');
  return readdirSync(tiny.dir)
    .filter((f) => /^cam\d+\.mp4$/.test(f))
    .sort()
    .map((f) => join(tiny.dir, f));
}

/** In the page: each source of a job with its file record (segments stored, in-place name). */
function sourceFiles(jobId: string): Promise<Array<{ label: string; segments: number; local: string | null }>> {
  return page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((ok, fail) => {
      const open = indexedDB.open('multicam');
      open.onsuccess = () => ok(open.result);
      open.onerror = () => fail(new Error(String(open.error)));
    });
    const get = <T>(store: string, key: IDBValidKey): Promise<T> =>
      new Promise((ok, fail) => {
        const r = db.transaction(store).objectStore(store).get(key);
        r.onsuccess = () => ok(r.result as T);
        r.onerror = () => fail(new Error(String(r.error)));
      });
    const job = await get<{ sources: Array<{ label: string; fileId: string }> }>('jobs', id);
    const out = [];
    for (const source of job.sources) {
      const file = await get<{ segments: unknown[]; local?: { name: string } }>('files', source.fileId);
      out.push({ label: source.label, segments: file.segments.length, local: file.local?.name ?? null });
    }
    db.close();
    return out;
  }, jobId);
}

/** In the page: GET a URL, with the status, size, first bytes and the error body. */
function fetchFile(
  url: string,
): Promise<{ status: number; size: number; head: string; body: Record<string, unknown> | null }> {
  return page.evaluate(async (u) => {
    const r = await fetch(u);
    if (!r.ok) return { status: r.status, size: 0, head: '', body: (await r.json()) as Record<string, unknown> };
    const bytes = new Uint8Array(await r.arrayBuffer());
    return { status: r.status, size: bytes.length, head: [...bytes.subarray(0, 16)].join(','), body: null };
  }, url);
}

const demoJob = (): Promise<GetJobResponse> =>
  page.evaluate(() => (window as unknown as { multicamDemo: { job(): Promise<GetJobResponse> } }).multicamDemo.job());

test(
  'a clip too short to judge is asked about, not guessed; picked files are used in place: nothing copied, the editor reads them; after a reload they are asked for again, unless picked with the file picker',
  async () => {
    const cams = await tinyCameras();
    const onDisk = readFileSync(cams[0]!);
    const diskHead = [...onDisk.subarray(0, 16)].join(',');
    await page.goto(`${server.origin}/`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.setInputFiles('#video-files', cams);
    expect(await page.isChecked('#opt-in-place')).toBe(true);
    await page.click('#start');
    await waitForStatus('mapping', 240_000);
    // A clip too short to judge: the service asks a person to say who is on which camera (the
    // mapping event), offers the editor instead of a proposal to accept, and renders nothing.
    await page.waitForSelector('#map-hint:not([hidden])', { timeout: patient(60_000) });
    expect(await page.isHidden('#accept-proposal')).toBe(true);
    expect(await page.textContent('#job-plain')).toContain('say it in the review editor');
    expect(await page.isVisible('#review-link')).toBe(true);
    await page.waitForTimeout(2000);
    expect(await page.textContent('#job-status')).toBe('mapping');
    await shot('07-too-short-asks');
    expect(await page.textContent('#upload-progress')).toMatch(/^Using .* where it is, nothing copied/);
    const { job, sourceUrls } = await demoJob();
    expect(job.tracks).toEqual([]);
    expect(job.output_url).toBeNull();
    expect(job.sources.every((s) => s.local === true)).toBe(true);
    // Nothing of the files is in storage: their records name them and hold no chunk.
    const files = await sourceFiles(job.id);
    expect(files.map((f) => [f.segments, f.local])).toEqual(cams.map((c) => [0, c.slice(c.lastIndexOf('/') + 1)]));
    // The service worker reads a source for the editor from this page (it holds the File).
    const url = sourceUrls[job.sources[0]!.id]!;
    expect(await fetchFile(url)).toMatchObject({ status: 200, size: onDisk.length, head: diskHead });
    await shot('08-in-place-mapping');

    // A reload: no page holds the files now, and the service says what to do.
    await page.reload();
    await page.waitForSelector('body[data-ready="1"]');
    const lost = await fetchFile(url);
    expect(lost.status).toBe(409);
    expect(lost.body?.['code']).toBe('LOCAL_FILE_UNAVAILABLE');
    expect(String(lost.body?.['error'])).toMatch(/"cam1\.mp4" .* used in place .*pick it again/);
    await page.setInputFiles('#video-files', cams);
    const given = await page.evaluate(
      (id) =>
        (window as unknown as { multicamDemo: { useAgain(id: string): Promise<number> } }).multicamDemo.useAgain(id),
      job.id,
    );
    expect(given).toBe(cams.length);
    expect(await fetchFile(url)).toMatchObject({ status: 200, size: onDisk.length, head: diskHead });

    // Picked with the file picker (a test double of showOpenFilePicker handing out real
    // FileSystemFileHandles, of files in this origin's private file system): the handles are
    // kept, so after a reload the files are read without picking them again.
    await page.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      const input = document.getElementById('video-files') as HTMLInputElement;
      for (const file of input.files ?? []) {
        const handle = await root.getFileHandle(`picked-${file.name}`, { create: true });
        const writable = await handle.createWritable();
        await writable.write(file);
        await writable.close();
      }
    });
    await page.goto(`${server.origin}/`);
    await page.waitForSelector('body[data-ready="1"]');
    await page.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      const handles: FileSystemFileHandle[] = [];
      for await (const [name, handle] of root as unknown as AsyncIterable<[string, FileSystemHandle]>)
        if (name.startsWith('picked-') && handle.kind === 'file') handles.push(handle as FileSystemFileHandle);
      handles.sort((a, b) => a.name.localeCompare(b.name));
      (window as unknown as { showOpenFilePicker: () => Promise<FileSystemFileHandle[]> }).showOpenFilePicker =
        async () => handles;
    });
    expect(await page.isVisible('#pick-files')).toBe(true);
    await page.click('#pick-files');
    await page.waitForSelector('#chosen:not([hidden])');
    await page.click('#start');
    await waitForStatus('mapping', 240_000);
    const picked = await demoJob();
    const pickedUrl = picked.sourceUrls[picked.job.sources[0]!.id]!;
    await page.reload();
    await page.waitForSelector('body[data-ready="1"]');
    expect(await fetchFile(pickedUrl)).toMatchObject({ status: 200, size: onDisk.length, head: diskHead });
  },
  patient(600_000),
);

test(
  'dropped files are listed with their kinds; Start needs two videos',
  async () => {
    await page.goto(`${server.origin}/`);
    await page.waitForSelector('body[data-ready="1"]');
    expect(await page.isHidden('#given-row')).toBe(true); // nothing was given on a command line
    // A drop as the browser delivers it: a DataTransfer of File objects on the drop zone.
    const drop = (names: string[]): Promise<void> =>
      page.evaluate(async (files) => {
        const transfer = new DataTransfer();
        for (const name of files) {
          const blob = await (await fetch(`/sample/${name}`)).blob();
          transfer.items.add(new File([blob], name, { type: name.endsWith('.wav') ? 'audio/wav' : 'video/mp4' }));
        }
        document
          .getElementById('drop')!
          .dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }, names);
    await drop(['mic-spk1.wav', 'cam1.mp4']);
    await page.waitForSelector('#chosen:not([hidden])');
    expect(await rows('#chosen tbody tr td:nth-child(1)')).toEqual(['cam1.mp4', 'mic-spk1.wav']);
    expect(await rows('#chosen tbody tr td:nth-child(3)')).toEqual(['video', 'audio']);
    expect(await page.isDisabled('#start')).toBe(true);
    await drop(['cam2.mp4']);
    // Dropped files are checked (read and probed) before they are listed.
    await page.waitForFunction(() => document.querySelectorAll('#chosen tbody tr').length === 3);
    expect(await rows('#chosen tbody tr td:nth-child(1)')).toEqual(['cam1.mp4', 'cam2.mp4', 'mic-spk1.wav']);
    expect(await page.isDisabled('#start')).toBe(false);
  },
  patient(60_000),
);

test(
  'on a 390 px wide phone the page fits the screen (options, progress, developer details), shown in a screenshot',
  async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.origin}/`);
      await page.waitForSelector('body[data-ready="1"]');
      await page.waitForSelector('#use-sample:not([disabled])');
      await page.click('#use-sample');
      await page.waitForSelector('#chosen:not([hidden])');
      await page.evaluate(() => {
        (document.getElementById('developer') as HTMLDetailsElement).open = true;
      });
      const widths = await page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        // What is wider than the screen, to say what overflows when it does.
        wide: [...document.querySelectorAll<HTMLElement>('body *')]
          .filter((e) => e.getBoundingClientRect().right > 390.5)
          .map((e) => `${e.tagName.toLowerCase()}#${e.id}`)
          .slice(0, 8),
      }));
      await shot('09-phone-390px');
      expect(widths.page, `wider than the screen: ${widths.wide.join(', ')}`).toBeLessThanOrEqual(390);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  },
  patient(60_000),
);

test(
  'a browser without WebCodecs audio decoding is told so at once, with the browsers that work, not left starting',
  async () => {
    const bare = await chromium.context.newPage();
    try {
      // As a browser without the API would be: AudioDecoder gone before the page's scripts run.
      await bare.addInitScript(() => {
        delete (globalThis as { AudioDecoder?: unknown }).AudioDecoder;
      });
      await bare.goto(`${server.origin}/`);
      await bare.waitForSelector('body[data-ready="error"]', { timeout: patient(30_000) });
      const shown = (await bare.textContent('#status')) ?? '';
      expect(shown).toContain('BrowserSupportError');
      expect(shown).toContain('it lacks WebCodecs AudioDecoder');
      for (const browser of ['Chrome', 'Firefox', 'Safari']) expect(shown).toContain(browser);
    } finally {
      await bare.close();
    }
  },
  patient(60_000),
);
