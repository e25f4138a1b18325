/**
 * The demo page against a new user's mistakes (issue #48), in a real Chromium: an empty file, a
 * text file named `.mp4` and a 2-second clip are refused when picked, each with a plain message
 * naming the file; a double click on Start makes one job; a browser that refuses to keep the
 * site's storage gets a visible warning; a job's warnings show on the page and as a banner in the
 * review editor.
 * Screenshots go to test-results/hostile/.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { launchChromium, type LaunchedChromium } from '../../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../../src/cli/serve.ts';
import { demoAppSite } from '../../support/app-site.ts';
import { patient } from '../../support/patience.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const SHOTS = join(ROOT, 'test-results/hostile');

let chromium: LaunchedChromium;
let server: StaticServer;
let page: Page;

/** A mono 16-bit WAV of `seconds` of a quiet tone: a real recording, only too short. */
function wav(seconds: number, rate = 16_000): Buffer {
  const samples = Math.round(seconds * rate);
  const out = Buffer.alloc(44 + samples * 2);
  out.write('RIFF', 0);
  out.writeUInt32LE(36 + samples * 2, 4);
  out.write('WAVEfmt ', 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36);
  out.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++)
    out.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return out;
}

/** The demo account's jobs, counted through the page (GET /api/jobs via the service worker). */
const jobCount = (): Promise<number> =>
  page.evaluate(async () => {
    const session = (window as unknown as { multicam: { listJobs(): Promise<Response> } }).multicam;
    return ((await (await session.listJobs()).json()) as { jobs: unknown[] }).jobs.length;
  });

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // The shared app build (test/support/app-site.ts).
  server = await serveStatic(demoAppSite(), 0);
  chromium = await launchChromium();
  // TEST DOUBLE of a browser that refuses to keep the site's storage (Chromium decides by
  // engagement; a fresh headless profile may go either way).
  await chromium.context.addInitScript(() => {
    const storage = navigator.storage;
    storage.persist = () => Promise.resolve(false);
    storage.persisted = () => Promise.resolve(false);
  });
  page = await chromium.context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
}, patient(240_000));

afterAll(async () => {
  await chromium?.close();
  server?.server.closeAllConnections();
  await server?.close();
});

test(
  'bad files are refused when picked, by name and in plain words; storage that may be deleted is said',
  async () => {
    await page.goto(`${server.origin}/`);
    await page.waitForSelector('body[data-ready="1"]');
    expect(await page.textContent('#warnings')).toContain('This browser may delete your jobs and files');

    await page.setInputFiles('#video-files', [
      { name: 'empty.mp4', mimeType: 'video/mp4', buffer: Buffer.alloc(0) },
      { name: 'notes.mp4', mimeType: 'video/mp4', buffer: Buffer.from('Meeting notes: ask about the budget.\n') },
    ]);
    await page.setInputFiles('#audio-files', [{ name: 'short-mic.wav', mimeType: 'audio/wav', buffer: wav(2) }]);
    await page.waitForFunction(() => document.querySelectorAll('#file-problems li').length === 3);
    const problems = await page.$$eval('#file-problems li', (items) => items.map((li) => li.textContent ?? ''));
    expect(problems).toEqual([
      expect.stringMatching(/^“empty\.mp4” is empty \(0 bytes\)/),
      expect.stringMatching(/^“notes\.mp4” is not a video or audio file \(it starts with “Meeting notes/),
      expect.stringMatching(/^“short-mic\.wav” is only 2\.0 s long: lining up the recordings needs at least 5 s/),
    ]);
    expect(await page.isHidden('#chosen')).toBe(true);
    expect(await page.isDisabled('#start')).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'demo-bad-files.png'), fullPage: true });
  },
  patient(60_000),
);

test(
  'a double click on Start makes one job; the review editor shows the job’s warnings as a banner',
  async () => {
    await page.goto(`${server.origin}/`);
    await page.waitForSelector('body[data-ready="1"]');
    const before = await jobCount();
    // Two 8-second recordings given as cameras: valid media, long enough (the sample needs ffmpeg to be made).
    await page.setInputFiles('#video-files', [
      { name: 'cam-a.wav', mimeType: 'audio/wav', buffer: wav(8) },
      { name: 'cam-b.wav', mimeType: 'audio/wav', buffer: wav(8) },
    ]);
    await page.waitForSelector('#chosen:not([hidden])');
    await page.uncheck('#opt-in-place');
    await page.dblclick('#start');
    await page.waitForFunction(() => (document.getElementById('job-id')?.textContent ?? '') !== '', undefined, {
      timeout: patient(60_000),
    });
    expect(await jobCount()).toBe(before + 1);
    // Start stays off after its job was made: one job per Start.
    expect(await page.isDisabled('#start')).toBe(true);
    expect(await page.isVisible('#warnings')).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'demo-warning.png'), fullPage: true });

    // The editor: the job's record is given a warning (as the engine's reporter writes one when
    // the face model fails to load) and put in mapping, where the summary offers the review link.
    const jobId = (await page.textContent('#job-id'))!;
    await page.evaluate(async (id) => {
      const db = await new Promise<IDBDatabase>((ok, fail) => {
        const open = indexedDB.open('multicam');
        open.onsuccess = () => ok(open.result);
        open.onerror = () => fail(new Error(String(open.error)));
      });
      const store = db.transaction('jobs', 'readwrite').objectStore('jobs');
      await new Promise<void>((ok, fail) => {
        const get = store.get(id);
        get.onsuccess = () => {
          const job = get.result as { status: string; warnings?: unknown[] };
          job.status = 'mapping';
          job.warnings = [
            {
              code: 'face_model_unavailable',
              message:
                'the face model could not be loaded (HTTP 404), so cameras were matched to speakers by movement in the picture only: check who is on which camera in the review editor',
              stage: 'mapping',
              at: Date.now(),
            },
          ];
          const put = store.put(job);
          put.onsuccess = () => ok();
          put.onerror = () => fail(new Error(String(put.error)));
        };
      });
      db.close();
    }, jobId);
    const summary = await page.evaluate(() =>
      (
        window as unknown as { multicamDemo: { summary(): Promise<{ nextAction: { url: string | null } }> } }
      ).multicamDemo.summary(),
    );
    expect(await page.textContent('#warnings')).toContain('The face model could not be loaded');
    await page.screenshot({ path: join(SHOTS, 'demo-job-warning.png'), fullPage: true });
    const editor = await chromium.context.newPage();
    await editor.setViewportSize({ width: 1280, height: 900 });
    await editor.goto(summary.nextAction.url!);
    await editor
      .waitForSelector('ul.warnings:not([hidden]) li', { timeout: patient(30_000) })
      .catch(async (error: unknown) => {
        await editor.screenshot({ path: join(SHOTS, 'editor-timeout.png') });
        throw error;
      });
    expect(await editor.textContent('ul.warnings')).toContain('The face model could not be loaded (HTTP 404)');
    await editor.screenshot({ path: join(SHOTS, 'editor-warning-banner.png') });
    await editor.close();
  },
  patient(180_000),
);
