/**
 * The demo page as a person uses it in Firefox: Debian's stock firefox-esr, driven over
 * WebDriver BiDi through src/cli/firefox.ts. Pick the built-in sample, untick review, start,
 * wait for the render, check what it made and click to download it. Firefox has WebCodecs
 * H.264 but no AAC encoder, so the WebAssembly AAC encoder bundled in the render worker
 * (`@mediabunny/aac-encoder`, MPL-2.0) makes the AAC-LC, not the GPL core; its service worker's fetch
 * event has no request body stream (src/routes/http.ts `requestBody` reads the blob), and it
 * asks the person before keeping the site's storage (a prompt start-up must not wait on).
 * Screenshots go to test-results/firefox/*.png.
 *
 * Not part of any tier yet: run it with
 * `flock /tmp/multicam-browser.lock npx vitest run --project firefox`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SAMPLE_DIR, type SampleManifest } from '../../demo/sample/manifest.ts';
import type { GetJobResponse, Job } from '../../src/contract/types.ts';
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

    // The edit plays on the page, its whole length. Firefox reads a fragmented MP4's duration from
    // the fragments it has loaded (it ignores the mfra index Chromium uses), so the player's length
    // grows while it loads: log the first figure, wait for the whole edit.
    const atMetadata = await page.evaluate(async () => {
      const video = document.querySelector<HTMLVideoElement>('#player')!;
      if (video.readyState < 1) await new Promise((r) => video.addEventListener('loadedmetadata', r, { once: true }));
      return { duration: video.duration, width: video.videoWidth };
    });
    console.log(`[firefox] player at loadedmetadata: ${JSON.stringify(atMetadata)}`);
    expect(atMetadata.width).toBe(640);
    const whole = await page
      .waitForFunction(() => document.querySelector<HTMLVideoElement>('#player')!.duration > 30, {
        timeout: patient(30_000),
        polling: 500,
      })
      .then(() => true)
      .catch(() => false);
    const duration = await page.$eval('#player', (v) => (v as HTMLVideoElement).duration);
    console.log(`[firefox] player duration after loading: ${duration}`);
    // Known limitation (issue 53, open): the render writes a fragmented MP4 with no `mehd`, and
    // Firefox's player shows only the fragments it has loaded (2–22 s of a 63 s edit here); the
    // downloaded file below is whole. Reported, not asserted, until the render writes its length.
    if (!whole) console.warn(`[firefox] KNOWN LIMITATION: the player shows ${duration} s of a 60 s edit`);
    expect(duration).toBeGreaterThan(0);

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
        'stream=codec_type,codec_name,profile',
        '-of',
        'json',
        saved,
      ]).toString(),
    ) as { streams: Array<{ codec_type: string; codec_name: string; profile?: string }> };
    console.log(`[firefox] ffprobe: ${JSON.stringify(probe.streams)}`);
    expect(probe.streams.find((x) => x.codec_type === 'video')).toMatchObject({ codec_name: 'h264' });
    expect(probe.streams.find((x) => x.codec_type === 'audio')).toMatchObject({ codec_name: 'aac', profile: 'LC' });
    // The page stays where it was (the click saved a file; it did not navigate away).
    expect(await page.$eval('#download', (a) => (a as HTMLElement).hidden)).toBe(false);
    console.log(`[firefox] whole run (page open → download) ${Math.round((Date.now() - started) / 1000)} s`);
  },
  patient(1_000_000),
);
