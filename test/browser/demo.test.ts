/**
 * The demo page as a person uses it, in a real Chromium with the real engine: pick the
 * built-in sample, choose options, start, watch the stages (syncing → diarizing → mapping),
 * accept the camera proposal, render, see the events outbox and download the video.
 * Screenshots go to test-results/demo/*.png.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeSample } from '../../scripts/make-sample.ts';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { patient } from '../support/patience.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SITE = join(ROOT, '.cache/demo-site');
const SHOTS = join(ROOT, 'test-results/demo');

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

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  makeSample({ root: ROOT });
  // Its own build output (vite.config copies the sample into it), so dist-app/ is left alone.
  execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, MULTICAM_OUT_DIR: SITE },
  });
  server = await serveStatic(SITE, 0);
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

test(
  'sample → options → start → stages → accept proposal → render → download',
  async () => {
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(`${server.origin}/`);
    await page.waitForSelector('body[data-ready]');
    expect(await page.getAttribute('body', 'data-ready'), (await page.textContent('#status')) ?? '').toBe('1');
    expect(await page.textContent('#sample-title')).toContain('Built-in sample');
    await page.click('#use-sample');
    await page.waitForSelector('#chosen:not([hidden])');
    const chosen = await rows('#chosen tbody tr td:nth-child(3)');
    expect(chosen).toEqual(['video', 'video', 'video', 'audio', 'audio']);
    // Options: review on, no automatic mapping (so the page's proposal button is used), tighten pauses.
    await page.selectOption('#opt-automap', 'off');
    await page.selectOption('#opt-silence', 'tighten');
    await page.fill('#opt-callback', receiver.url);
    await shot('01-chosen');
    await page.click('#start');

    await waitForStatus('mapping', 240_000);
    expect(await page.textContent('#job-error')).toBe('');
    expect(await page.textContent('#job-status')).toBe('mapping');
    const stages = await page.$$eval('#stages li', (items) => items.map((li) => li.getAttribute('data-status')));
    expect(stages).toContain('mapping');
    expect(stages.some((s) => s === 'syncing' || s === 'diarizing')).toBe(true);
    expect(await page.textContent('#job-next')).toContain('map_speakers');
    // The review editor is linked (reviewUrl from nextAction / the mapping event).
    const reviewHref = await page.getAttribute('#review-link', 'href');
    expect(reviewHref).toMatch(/\/review\/\?token=/);
    // The link opens the review editor page (the editor itself is tested on its own).
    const review = await chromium.context.newPage();
    const opened = await review.goto(new URL(reviewHref!, server.origin).href);
    expect(opened?.status()).toBe(200);
    await review.waitForLoadState('load');
    await review.waitForTimeout(1500);
    await review.screenshot({ path: join(SHOTS, '02b-review-editor.png') });
    await review.close();
    // The mapping webhook reaches the receiver and the outbox table shows it delivered.
    const [mappingPost] = await receiver.waitForPosts(1, 30_000);
    expect(JSON.parse(mappingPost!.body)).toMatchObject({ status: 'mapping' });
    await page.waitForSelector('#events tbody tr[data-type="mapping"]', { timeout: patient(10_000) });
    await page.waitForFunction(
      () =>
        document
          .querySelector('#events tbody tr[data-type="mapping"] td:nth-child(4)')
          ?.textContent?.startsWith('delivered'),
      undefined,
      { timeout: patient(15_000) },
    );
    expect((await rows('#events tbody tr[data-type="mapping"] td:nth-child(5)'))[0]).toMatch(/^1: #1 200 \d+ ms/);
    await shot('02-mapping');

    await page.click('#accept-proposal');
    await waitForStatus('ready', 120_000);
    expect(await page.textContent('#job-status')).toBe('ready');
    await page.waitForSelector('#events tbody tr[data-type="ready"]', { timeout: patient(10_000) });
    await shot('03-ready');

    await page.click('#render');
    await waitForStatus('complete', 240_000);
    expect(await page.textContent('#job-error')).toBe('');
    await page.waitForSelector('#download:not([hidden])');
    await page.waitForSelector('#events tbody tr[data-type="complete"]', { timeout: patient(10_000) });
    const posts = await receiver.waitForPosts(3, 30_000);
    expect(posts.map((p) => (JSON.parse(p.body) as { status: string }).status)).toEqual([
      'mapping',
      'ready',
      'complete',
    ]);
    await page.waitForFunction(
      () =>
        document
          .querySelector('#events tbody tr[data-type="complete"] td:nth-child(4)')
          ?.textContent?.startsWith('delivered'),
      undefined,
      { timeout: patient(15_000) },
    );
    // The jobs table follows the job.
    expect(await rows('#jobs tbody tr td:nth-child(3)')).toContain('complete');
    await shot('04-complete');
    // Download what the link points to: an MP4 (ftyp box) of real size.
    const href = (await page.getAttribute('#download', 'href')) ?? '';
    const download = await page.evaluate(async (url) => {
      const response = await fetch(url);
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, size: bytes.length, box: String.fromCharCode(...bytes.subarray(4, 8)) };
    }, href);
    expect(download.status).toBe(200);
    expect(download.box).toBe('ftyp');
    expect(download.size).toBeGreaterThan(100_000);
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
    expect(await rows('#chosen tbody tr td:nth-child(1)')).toEqual(['cam1.mp4', 'cam2.mp4', 'mic-spk1.wav']);
    expect(await page.isDisabled('#start')).toBe(false);
  },
  patient(60_000),
);
