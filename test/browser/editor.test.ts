/**
 * The review editor (review/index.html + src/dom/editor) in Chromium, against the real service
 * worker and IndexedDB, with the page-hosted TEST ENGINE completing background stages on
 * command (syncing, diarizing, rendering), and two real fixture videos uploaded so the camera
 * tiles play real media.
 *
 * The editor is built with the test pages into .cache/editor-dist (its own output directory,
 * so this file never empties dist-test/ under other running tests).
 */
import { DOMParser } from '@xmldom/xmldom';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type {
  CameraMap,
  Cut,
  GetJobResponse,
  OutputFormat,
  RecordedLevels,
  TimeRange,
  Turn,
} from '../../src/contract/types.ts';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import {
  HARNESS_PATH,
  makeBrowserHarness,
  type BrowserRun,
  type HarnessPageHandle,
} from '../contract/browser-harness.ts';
import type { ContractHarness } from '../contract/harness.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS } from '../support/fixtures.ts';
import { patient } from '../support/patience.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BUILD_DIR = resolve(ROOT, '.cache/editor-dist');
const SHOTS = resolve(ROOT, 'test-results/editor');
const XSS = '<img src=x onerror=alert(1)>';

/** Newest modification time under the editor's sources (rebuild when they are newer than the build). */
function newestSource(): number {
  let newest = 0;
  const walk = (path: string): void => {
    const st = statSync(path);
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ['src', 'review', 'demo', 'test/browser/pages', 'vite.config.ts']) walk(resolve(ROOT, p));
  return newest;
}

function ensureEditorBuild(): void {
  const marker = resolve(BUILD_DIR, 'review/index.html');
  if (existsSync(marker) && statSync(marker).mtimeMs > newestSource() && process.env['MULTICAM_REBUILD'] !== '1')
    return;
  execFileSync(
    'npx',
    ['vite', 'build', '--mode', 'test', '--outDir', BUILD_DIR, '--emptyOutDir', '--logLevel', 'error'],
    { stdio: 'inherit', cwd: ROOT },
  );
}

/** A BrowserRun over the editor build (the same harness page as the contract tests). */
async function startEditorRun(): Promise<BrowserRun> {
  ensureEditorBuild();
  const server: StaticServer = await serveStatic(BUILD_DIR);
  const chromium: LaunchedChromium = await launchChromium().catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  let counter = 0;
  return {
    chromium,
    server,
    async openHarness(options) {
      const page = await chromium.context.newPage();
      await page.goto(`${server.origin}${HARNESS_PATH}`);
      await page.waitForSelector('body[data-ready="1"]');
      const call = (async (name: string, ...args: unknown[]) =>
        page.evaluate(
          ([n, a]) => {
            const fn = (window as unknown as { harness: Record<string, (...x: unknown[]) => unknown> }).harness[n];
            if (!fn) throw new Error(`window.harness.${String(n)} is missing`);
            return fn(...a);
          },
          [name, args] as const,
        )) as HarnessPageHandle['call'];
      const started = await call('start', {
        basePath: options.basePath ?? '/api',
        dbName: options.dbName ?? `multicam-editor-${process.pid}-${++counter}`,
      });
      return {
        page,
        baseUrl: started.baseUrl,
        call,
        callObserved: () => Promise.reject(new Error('not used by the editor test')),
        close: () => page.close(),
      };
    },
    async close() {
      await chromium.close();
      await server.close();
    },
  };
}

type Json = Record<string, any>;

let run: BrowserRun;
let h: ContractHarness;
let apiKey: string;
let jobId: string;
let reviewUrl: string;
let camA: string;
let camB: string;
let editor: Page;
const dialogs: string[] = [];

async function getJob(): Promise<GetJobResponse> {
  const r = await h.request(`/api/jobs/${jobId}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(r.status, r.text).toBe(200);
  return r.json as GetJobResponse;
}

/** Waits until the editor reports `n` more saves than `before`. */
async function savedAfter(before: number): Promise<number> {
  await editor.waitForFunction((n) => Number(document.getElementById('editor')?.dataset['saved'] ?? '0') > n, before, {
    timeout: patient(15_000),
  });
  return Number(await editor.locator('#editor').getAttribute('data-saved'));
}
async function saves(): Promise<number> {
  return Number((await editor.locator('#editor').getAttribute('data-saved')) ?? '0');
}
async function shot(name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await editor.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}
async function pageCuts(): Promise<Array<{ sourceId: string; start: string }>> {
  return editor.locator('li.cut').evaluateAll((items) =>
    items.map((li) => ({
      sourceId: (li as HTMLElement).dataset['sourceId'] ?? '',
      start: li.querySelector('.cut-seek')?.textContent ?? '',
    })),
  );
}

beforeAll(async () => {
  const { dir, truth } = await ensureFixture('tiny');
  const videos = truth.sources.filter((s) => s.kind === 'video').slice(0, 2);
  expect(videos.length).toBe(2);
  run = await startEditorRun();
  h = await makeBrowserHarness(run);
  ({ apiKey } = await h.createAccount());
  const auth = { authorization: `Bearer ${apiKey}` };
  const files = videos.map((v) => new Uint8Array(readFileSync(join(dir, v.file))));
  const created = await h.request('/api/jobs', {
    method: 'POST',
    headers: auth,
    json: {
      title: `Episode ${XSS}`,
      review: true,
      autoMap: 'off',
      sources: [
        { label: 'Host cam', ext: 'mp4', fileSize: files[0]!.length },
        { label: XSS, ext: 'mp4', fileSize: files[1]!.length },
      ],
    },
  });
  expect(created.status, created.text).toBe(200);
  const body = created.json as Json;
  jobId = body.jobId;
  [camA, camB] = Object.keys(body.uploads) as [string, string];
  for (const [i, id] of [camA, camB].entries()) {
    const put = await h.request(body.uploads[id].url, { method: 'PUT', body: files[i]! });
    expect(put.status, put.text).toBeLessThan(300);
  }
  const started = await h.request(`/api/jobs/${jobId}/process`, { method: 'POST', headers: auth });
  expect(started.status, started.text).toBe(200);
  // The fixture's speakers become diarization's SPEAKER_nn; the video durations are the files'.
  const names = [...new Set(truth.turns.map((t) => t.speaker))];
  const turns: Turn[] = truth.turns.map((t) => ({
    speaker: `SPEAKER_0${names.indexOf(t.speaker)}`,
    startMs: Math.round(t.startMs),
    endMs: Math.round(t.endMs),
  }));
  await h.completeStage(jobId, 'syncing', {
    durationsMs: { [camA]: Math.round(videos[0]!.durationMs), [camB]: Math.round(videos[1]!.durationMs) },
  });
  const speakers = names.map((_, i) => `SPEAKER_0${i}`);
  const cameraMap: CameraMap = {
    version: 1,
    speakers,
    unassignedSpeakers: speakers.slice(2),
    droppedSpeakers: [],
    cameras: [
      {
        sourceId: camA,
        kind: 'closeup',
        confidence: 'high',
        speakers: ['SPEAKER_00'],
        reason: 'mouth motion follows SPEAKER_00',
      },
      { sourceId: camB, kind: 'closeup', confidence: 'low', speakers: ['SPEAKER_01'], reason: `label ${XSS}` },
    ],
  };
  // Speaker detection measured camera A's sound (the page engine passes what the analysis reports).
  const levels: RecordedLevels = {
    speech_target_lufs: -24.5,
    sources: [
      {
        source_id: camA,
        integrated_lufs: -24.2,
        speakers: [{ speaker: 'SPEAKER_00', speech_lufs: -21.5, gain_db: -3, speech_sec: 12.4 }],
      },
    ],
  };
  await h.completeStage(jobId, 'diarizing', { turns, speakers, levels });
  // The camera map is its own stage after diarizing; the proposal the editor prefills.
  expect((await h.pendingStages()).filter((w) => w.jobId === jobId).map((w) => w.stage)).toContain('mapping');
  await h.completeStage(jobId, 'mapping', { cameraMap });
  const events = await h.events(jobId);
  reviewUrl = String(events.find((e) => e.type === 'mapping')?.payload['reviewUrl']);
  expect(reviewUrl).toMatch(/\/review\/\?token=/);
  editor = await run.chromium.context.newPage();
  editor.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  editor.on('pageerror', (e) => console.error('[editor page]', e));
}, FIXTURE_TIMEOUT_MS + 120_000);

afterAll(async () => {
  await editor?.close().catch(() => undefined);
  await h?.dispose().catch(() => undefined);
  await run?.close();
});

describe('review editor', () => {
  test('an unknown, malformed or missing token gets a clear page, not a crash', async () => {
    const page = await run.chromium.context.newPage();
    try {
      const origin = new URL(reviewUrl).origin;
      for (const token of [`${jobId}.9999999999.forged-signature`, 'not-a-token', null]) {
        await page.goto(
          `${origin}/review/${token === null ? '' : `?token=${encodeURIComponent(token)}`}${token === null ? '?' : '&'}engine=off`,
        );
        await expect
          .poll(() => page.locator('h1').textContent(), { timeout: patient(15_000) })
          .toBe('This review link has expired or is not valid');
        expect(await page.locator('.invalid-link').textContent()).toMatch(/72 hours/);
      }
      await page.screenshot({ path: join(SHOTS, 'invalid-link.png') });
    } finally {
      await page.close();
    }
  });

  test('mapping: the proposal is prefilled, user text is escaped, confirming moves the job to ready', async () => {
    await editor.goto(`${reviewUrl}&engine=off`);
    await editor.waitForSelector('#editor[data-status="mapping"]', { timeout: patient(30_000) });
    const box = (source: string, speaker: string) =>
      editor.locator(`fieldset[data-source-id="${source}"] input[data-speaker="${speaker}"]`);
    expect(await box(camA, 'SPEAKER_00').isChecked()).toBe(true);
    expect(await box(camA, 'SPEAKER_01').isChecked()).toBe(false);
    expect(await box(camB, 'SPEAKER_01').isChecked()).toBe(true);
    // Escaping: the label and title show as text; no element was created from them.
    expect(await editor.locator(`fieldset[data-source-id="${camB}"] legend`).textContent()).toContain(XSS);
    expect(await editor.locator('.job-title').textContent()).toBe(`Episode ${XSS}`);
    expect(await editor.locator('img').count()).toBe(0);
    // To decide from: a frame of each camera, and each speaker to listen to.
    const frame = await editor
      .locator(`fieldset[data-source-id="${camA}"] video.camera-frame`)
      .evaluate(async (v: HTMLVideoElement) => {
        if (v.readyState < 2) await new Promise((r) => v.addEventListener('loadeddata', r, { once: true }));
        return { width: v.videoWidth, time: v.currentTime };
      });
    expect(frame.width).toBeGreaterThan(0);
    expect(await editor.locator('.who-speaks li[data-speaker]').count()).toBeGreaterThanOrEqual(2);
    await editor.locator('.who-speaks button[data-speaker="SPEAKER_00"]').click();
    await editor.waitForFunction(
      () => !document.querySelector<HTMLAudioElement>('audio.speaker-audio')!.paused,
      undefined,
      {
        timeout: patient(10_000),
      },
    );
    // A mapping with nobody on any camera: the service's Error message is shown, with its code.
    await box(camA, 'SPEAKER_00').uncheck();
    await box(camB, 'SPEAKER_01').uncheck();
    await editor.getByRole('button', { name: 'Confirm mapping' }).click();
    await editor.waitForSelector('.error:not([hidden])', { timeout: patient(15_000) });
    expect(await editor.locator('.error').textContent()).toMatch(
      /puts nobody on any camera \(EMPTY_MAPPING\) \[HTTP 400\]/,
    );
    expect((await getJob()).job.status).toBe('mapping');
    // Name two speakers (one name is markup, shown as text): saved when the field is left, shown
    // on the camera checkboxes at once.
    const nameField = (speaker: string) =>
      editor.locator(`.who-speaks input.speaker-name-input[data-speaker="${speaker}"]`);
    await nameField('SPEAKER_00').fill('Ana');
    await nameField('SPEAKER_00').press('Tab');
    await nameField('SPEAKER_01').fill(XSS);
    await nameField('SPEAKER_01').press('Tab');
    await expect
      .poll(async () => (await getJob()).job.speaker_names, { timeout: patient(15_000) })
      .toEqual({ SPEAKER_00: 'Ana', SPEAKER_01: XSS });
    await expect
      .poll(() => editor.locator(`fieldset[data-source-id="${camA}"] [data-speaker-name="SPEAKER_00"]`).textContent())
      .toBe('Ana');
    expect(
      await editor.locator(`fieldset[data-source-id="${camB}"] [data-speaker-name="SPEAKER_01"]`).textContent(),
    ).toBe(XSS);
    expect(await editor.locator('img').count()).toBe(0);
    // Change the proposal: camera A also shows the third speaker.
    await box(camA, 'SPEAKER_00').check();
    await box(camB, 'SPEAKER_01').check();
    await box(camA, 'SPEAKER_02').check();
    mkdirSync(SHOTS, { recursive: true });
    await shot('mapping');
    await editor.getByRole('button', { name: 'Confirm mapping' }).click();
    await editor.waitForSelector('#editor[data-status="ready"]', { timeout: patient(15_000) });
    const job = (await getJob()).job;
    expect(job.status).toBe('ready');
    expect(job.tracks).toEqual([
      { sourceId: camA, speakers: ['SPEAKER_00', 'SPEAKER_02'] },
      { sourceId: camB, speakers: ['SPEAKER_01'] },
    ]);
    expect(job.cuts.length).toBeGreaterThan(0);
    expect(await editor.locator('li.cut').count()).toBe(job.cuts.length);
    // The cut list reads the reasons with the names given.
    const reasons = await editor.locator('li.cut .cut-reason').allTextContents();
    expect(reasons.some((r) => r.includes('Ana'))).toBe(true);
    expect(reasons.some((r) => /SPEAKER_0[01]\b/.test(r))).toBe(false);
    expect(await editor.locator('figcaption').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining(XSS)]),
    );
    expect(await editor.locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });

  test('the cameras play real media in sync with the playhead (space plays and pauses)', async () => {
    await editor.waitForFunction(
      () => [...document.querySelectorAll('video')].every((v) => v.readyState >= 2),
      undefined,
      { timeout: patient(20_000) },
    );
    await editor.locator('body').press(' ');
    await editor.waitForTimeout(1200);
    await editor.locator('body').press(' ');
    const playhead = Number(await editor.locator('#editor').getAttribute('data-playhead-ms'));
    // The master clock ran for the wait at least (a lower bound: a slow machine only adds).
    expect(playhead).toBeGreaterThan(600);
    // The mapping form's still frames are not players.
    const cameras = () =>
      editor
        .locator('video:not(.camera-frame)')
        .evaluateAll((vs) =>
          vs.map((v) => ({ ms: (v as HTMLVideoElement).currentTime * 1000, paused: (v as HTMLVideoElement).paused })),
        );
    // Every camera played and stopped with the playhead. How far a playing video trails the
    // master clock depends on the machine's speed (it is seeked back past 250 ms), so while
    // playing only this holds: it moved, and it is not ahead of the playhead by more than that.
    const played = await cameras();
    expect(played.length).toBeGreaterThan(0);
    for (const v of played) {
      expect(v.paused).toBe(true);
      expect(v.ms).toBeGreaterThan(0);
      expect(v.ms).toBeLessThanOrEqual(playhead + 250);
    }
    // A step back one frame seeks every camera to the playhead's time exactly: offsets are 0
    // here (the test engine's syncing), so each shows the playhead itself (a media position,
    // not a speed: the seek sets it).
    await editor.locator('body').press('ArrowLeft');
    const stepped = Number(await editor.locator('#editor').getAttribute('data-playhead-ms'));
    expect(stepped).toBeLessThan(playhead);
    expect(stepped).toBeGreaterThan(playhead - 100);
    for (const v of await cameras()) expect(Math.abs(v.ms - stepped)).toBeLessThanOrEqual(1);
    await editor.waitForFunction(
      () => document.getElementById('editor')?.dataset['waveform'] !== undefined,
      undefined,
      { timeout: patient(20_000) },
    );
    expect(await editor.locator('#editor').getAttribute('data-waveform')).toBe('decoded');
    // Thumbnails: frames grabbed from the cameras for the cuts on the timeline.
    await editor.waitForFunction(
      () => Number(document.getElementById('editor')?.dataset['thumbnails'] ?? '0') > 0,
      undefined,
      { timeout: patient(20_000) },
    );
  });

  test('recut with another preset and silence mode replaces the cuts', async () => {
    await editor.locator('select.preset').selectOption('dynamic');
    await editor.locator('select.silence').selectOption('remove');
    await editor.getByRole('button', { name: 'Recut' }).click();
    await expect
      .poll(() => editor.locator('.status').textContent(), { timeout: patient(15_000) })
      .toMatch(/Recut with dynamic/);
    const job = (await getJob()).job;
    expect((await pageCuts()).map((c) => c.sourceId)).toEqual(job.cuts.map((c) => c.sourceId));
  });

  test('edits: a number key picks a camera at the playhead, a boundary moves, a pause is removed and restored; all survive a reload', async () => {
    // Number key 2 at 1.0 s: the cut there is split and camera B is on from 1.0 s.
    await editor.locator('canvas.timeline').click({ position: { x: 2, y: 5 } });
    for (let i = 0; i < 1; i++) await editor.locator('body').press('Shift+ArrowRight');
    let before = await saves();
    const at = Number(await editor.locator('#editor').getAttribute('data-playhead-ms'));
    const cutsBefore = (await getJob()).job.cuts;
    const target = cutsBefore.find((c) => at >= c.startMs && at < c.endMs)!;
    const key = target.sourceId === camB ? '1' : '2';
    const picked = key === '1' ? camA : camB;
    await editor.locator('body').press(key);
    before = await savedAfter(before);
    let cuts: Cut[] = (await getJob()).job.cuts;
    const now = cuts.find((c) => at >= c.startMs && at < c.endMs)!;
    expect(now.sourceId).toBe(picked);
    expect(Math.abs(now.startMs - at) <= 1 || now.startMs === target.startMs).toBe(true);

    // Move the first boundary numerically to 2.5 s.
    await editor.locator('input.cut-end').first().fill('2.5');
    await editor.locator('input.cut-end').first().press('Enter');
    before = await savedAfter(before);
    cuts = (await getJob()).job.cuts;
    expect(cuts[0]!.endMs).toBe(2500);
    expect(cuts[1]!.startMs).toBe(2500);

    // Remove the first kept pause, check it is saved, restore it, then remove it again.
    const kept = editor.locator('li.pause:not(.removed)').first();
    const range: TimeRange = {
      startMs: Number(await kept.getAttribute('data-start-ms')),
      endMs: Number(await kept.getAttribute('data-end-ms')),
    };
    await kept.getByRole('button', { name: 'Remove' }).click();
    before = await savedAfter(before);
    expect((await getJob()).job.removed_ranges).toEqual(expect.arrayContaining([range]));
    await editor
      .locator(`li.pause.removed[data-start-ms="${range.startMs}"]`)
      .getByRole('button', { name: 'Restore' })
      .click();
    before = await savedAfter(before);
    expect((await getJob()).job.removed_ranges ?? []).not.toEqual(expect.arrayContaining([range]));
    await editor.locator(`li.pause[data-start-ms="${range.startMs}"]`).getByRole('button', { name: 'Remove' }).click();
    await savedAfter(before);
    const saved = (await getJob()).job;
    await shot('ready-edited');

    // Reload: the page shows exactly what was saved.
    const shown = await pageCuts();
    await editor.reload();
    await editor.waitForSelector('#editor[data-status="ready"]', { timeout: patient(30_000) });
    expect(await pageCuts()).toEqual(shown);
    expect(shown.map((c) => c.sourceId)).toEqual(saved.cuts.map((c) => c.sourceId));
    expect(await editor.locator(`li.pause.removed[data-start-ms="${range.startMs}"]`).count()).toBe(1);
    expect(await editor.locator('input.cut-end').first().inputValue()).toBe('2.5');
  });

  test('a boundary can be dragged on the timeline', async () => {
    const canvas = editor.locator('canvas.timeline');
    const cuts = (await getJob()).job.cuts;
    const geometry = await canvas.evaluate((c) => ({ width: c.clientWidth, height: c.clientHeight }));
    const total = Math.max(...cuts.map((c) => c.endMs), ...(await getJob()).job.turns.map((t) => t.endMs));
    const xOf = (ms: number): number => (ms / total) * geometry.width;
    const y = geometry.height - 20; // inside the cuts lane
    const box = (await canvas.boundingBox())!;
    const before = await saves();
    await editor.mouse.move(box.x + xOf(cuts[0]!.endMs), box.y + y);
    await editor.mouse.down();
    await editor.mouse.move(box.x + xOf(cuts[0]!.endMs + 600), box.y + y, { steps: 4 });
    await editor.mouse.up();
    await savedAfter(before);
    const moved = (await getJob()).job.cuts;
    expect(Math.abs(moved[0]!.endMs - (cuts[0]!.endMs + 600))).toBeLessThan((total / geometry.width) * 3);
  });

  test('changing the mapping later is a correction sent with the current cuts', async () => {
    const before = (await getJob()).job;
    await editor.locator('details.mapping-correction summary').click();
    await editor
      .locator(`details.mapping-correction fieldset[data-source-id="${camB}"] input[data-speaker="SPEAKER_02"]`)
      .check();
    await editor.getByRole('button', { name: 'Save mapping' }).click();
    await expect
      .poll(async () => (await getJob()).job.tracks, { timeout: patient(15_000) })
      .toEqual([
        { sourceId: camA, speakers: ['SPEAKER_00', 'SPEAKER_02'] },
        { sourceId: camB, speakers: ['SPEAKER_01', 'SPEAKER_02'] },
      ]);
    const after = (await getJob()).job;
    expect(after.cuts).toEqual(before.cuts);
    expect(after.removed_ranges).toEqual(before.removed_ranges);
    expect(await editor.locator('.error').isHidden()).toBe(true);
  });

  test("sound levels: a person nudges a source's gain with the slider and mutes another; both are saved and survive a reload", async () => {
    const row = (source: string) => editor.locator(`section.levels li.level-row[data-source-id="${source}"]`);
    const slider = (source: string) => row(source).locator('input.source-gain');
    // The job has no mics: the cameras' own sound is the mix. Before any render, camera A shows
    // what speaker detection measured (the Job's audio.levels); camera B, which it did not, waits.
    expect(await editor.locator('section.levels li.level-row').count()).toBe(2);
    expect(await row(camA).locator('.level-before').textContent()).toBe('Recorded −24.2 LUFS');
    expect(await row(camA).locator('.level-speaker').textContent()).toBe(
      ' · Ana: speech −21.5 LUFS, planned levelling −3.0 dB',
    );
    expect(await row(camB).locator('.level-measured').textContent()).toBe('Measured when the edit renders.');
    expect(await row(camB).locator('.level-label').textContent()).toBe(XSS);
    // Camera B 6 dB down: twelve presses of ← on its slider (0.5 dB each), as with the keyboard.
    let before = await saves();
    await slider(camB).focus();
    for (let i = 0; i < 12; i++) await slider(camB).press('ArrowLeft');
    expect(await row(camB).locator('output.gain-value').textContent()).toBe('−6.0 dB');
    await savedAfter(before);
    await expect
      .poll(async () => (await getJob()).job.audio.gains, { timeout: patient(15_000) })
      .toEqual({ [camB]: -6 });
    // Camera A muted with its checkbox: its slider is off, the value says so.
    before = await saves();
    await row(camA).getByRole('checkbox', { name: 'Mute' }).check();
    await savedAfter(before);
    await expect
      .poll(async () => (await getJob()).job.audio.gains, { timeout: patient(15_000) })
      .toEqual({ [camB]: -6, [camA]: 'mute' });
    expect(await slider(camA).isDisabled()).toBe(true);
    expect(await editor.locator('img').count()).toBe(0);
    await editor.reload();
    await editor.waitForSelector('#editor[data-status="ready"]', { timeout: patient(30_000) });
    expect(await slider(camB).inputValue()).toBe('-6');
    expect(await row(camB).locator('output.gain-value').textContent()).toBe('−6.0 dB');
    expect(await row(camA).getByRole('checkbox', { name: 'Mute' }).isChecked()).toBe(true);
    expect(await slider(camA).isDisabled()).toBe(true);
    // Unmuted again: camera A back at 0 dB, which the job stores as no gain at all.
    before = await saves();
    await row(camA).getByRole('checkbox', { name: 'Mute' }).uncheck();
    await savedAfter(before);
    await expect
      .poll(async () => (await getJob()).job.audio.gains, { timeout: patient(15_000) })
      .toEqual({ [camB]: -6 });
    expect(await editor.locator('.error').isHidden()).toBe(true);
  });

  test('the export menu downloads the edit for editing software (FCPXML and EDL)', async () => {
    const job = (await getJob()).job;
    const videoLabels = job.sources.filter((s) => s.kind === 'video').map((s) => s.label);
    const fetchExport = async (format: string): Promise<string> => {
      await editor.locator('select.export-format').selectOption(format);
      const [download] = await Promise.all([
        editor.waitForEvent('download'),
        editor.getByRole('button', { name: 'Export edit' }).click(),
      ]);
      const path = await download.path();
      return readFileSync(path, 'utf8');
    };
    const fcpxml = new DOMParser().parseFromString(await fetchExport('fcpxml'), 'text/xml');
    expect(fcpxml.documentElement?.nodeName).toBe('fcpxml');
    // One angle per camera, named by the camera's label, so the cuts stay angle switches.
    const angles = Array.from(fcpxml.getElementsByTagName('mc-angle')).map((a) => a.getAttribute('name'));
    expect(angles.sort()).toEqual([...videoLabels].sort());
    expect(fcpxml.getElementsByTagName('mc-clip').length).toBeGreaterThan(0);
    // The clip gains: camera A's planned levelling (−3 dB), camera B's gain set above (−6 dB).
    const volumes = new Map(
      Array.from(fcpxml.getElementsByTagName('mc-angle')).map((a) => [
        a.getAttribute('name'),
        Array.from(a.getElementsByTagName('adjust-volume')).map((v) => v.getAttribute('amount')),
      ]),
    );
    const labelOf = (id: string): string => job.sources.find((s) => s.id === id)!.label;
    expect(new Set(volumes.get(labelOf(camA)))).toEqual(new Set(['-3dB']));
    expect(new Set(volumes.get(labelOf(camB)))).toEqual(new Set(['-6dB']));
    const edl = await fetchExport('edl');
    expect(edl).toMatch(/^TITLE: /m);
    // Every video event says why, with the speakers' names.
    expect(edl).toMatch(/^\* COMMENT: .*Ana/m);
    expect(edl.split('\n').filter((line) => /^\d{3}\s/.test(line)).length).toBeGreaterThan(0);
    expect(await editor.locator('.error').isHidden()).toBe(true);
  });

  test('render (driven by the test engine) → complete shows the download link; approve makes the edit read-only', async () => {
    await editor.getByRole('button', { name: 'Render' }).click();
    await editor.waitForSelector('#editor[data-status="rendering"]', { timeout: patient(15_000) });
    // What a render of two cameras reports (the shape src/pipeline/stages/rendering.ts writes).
    const format: OutputFormat = {
      container: 'mp4',
      video_codec: 'h264',
      audio_codec: 'aac',
      audio_encoder: 'aac-wasm',
      note: null,
      loudness: {
        integrated_lufs: -16.3,
        loudness_range_lu: 4.1,
        max_short_term_lufs: -12.9,
        true_peak_dbtp: -2,
        sample_peak_dbfs: -2.4,
      },
      levels: {
        target_lufs: -16,
        true_peak_ceiling_dbtp: -1,
        master_gain_db: 9.5,
        limiter_max_reduction_db: 1.2,
        sources: [
          {
            source_id: camA,
            source_gain_db: 0,
            integrated_lufs_before: -24.2,
            integrated_lufs_after: -17.1,
            speakers: [
              {
                speaker: 'SPEAKER_00',
                speech_lufs_before: -23.8,
                speech_lufs_after: -16.4,
                gain_db: -2.5,
                ride_db: [-1, 1],
                speech_sec: 20,
              },
            ],
          },
          {
            source_id: camB,
            source_gain_db: -6,
            integrated_lufs_before: -31.6,
            integrated_lufs_after: -22.8,
            speakers: [
              {
                speaker: 'SPEAKER_01',
                speech_lufs_before: -31.1,
                speech_lufs_after: -22.3,
                gain_db: 4.9,
                ride_db: [-0.5, 0.5],
                speech_sec: 18,
              },
            ],
          },
        ],
      },
    };
    await h.completeStage(jobId, 'rendering', { format });
    await editor.waitForSelector('#editor[data-status="complete"]', { timeout: patient(15_000) });
    // The levels now read what the render measured, with the names given, and the gain set.
    const levelsB = editor.locator(`section.levels li.level-row[data-source-id="${camB}"]`);
    expect(await levelsB.locator('.level-before').textContent()).toBe('Recorded −31.6 LUFS');
    expect(await levelsB.locator('.level-after').textContent()).toBe('in the render −22.8 LUFS');
    expect(await levelsB.locator('.level-speaker').textContent()).toBe(
      ` · ${XSS}: speech −31.1 LUFS, levelling +4.9 dB`,
    );
    expect(await editor.locator('section.levels .levels-render').textContent()).toBe(
      'The last render measures −16.3 LUFS, true peak −2.0 dBTP.',
    );
    expect(await levelsB.locator('input.source-gain').inputValue()).toBe('-6');
    await editor.locator('section.levels').scrollIntoViewIfNeeded();
    await editor.locator('section.levels').screenshot({ path: join(SHOTS, 'levels.png') });
    await shot('levels-page');
    const link = editor.locator('a.download');
    const job = (await getJob()).job;
    // output_url is signed afresh on every read: the same file, a later expiry.
    const href = (await link.getAttribute('href'))!;
    expect(new URL(href).pathname).toBe(new URL(job.output_url!).pathname);
    // A click saves the file under the job's title (the service worker answers with Content-Disposition).
    const [saved] = await Promise.all([editor.waitForEvent('download'), link.click()]);
    // (The browser replaces the title's < and > in the saved name.)
    expect(saved.suggestedFilename()).toMatch(/^Episode .+\.mp4$/);
    expect(readFileSync(await saved.path()).length).toBe(4096);
    await shot('complete');
    const wide = editor.viewportSize();
    await editor.setViewportSize({ width: 390, height: 844 });
    await shot('complete-narrow');
    await editor.locator('section.levels').screenshot({ path: join(SHOTS, 'levels-narrow.png') });
    if (wide) await editor.setViewportSize(wide);
    await editor.getByRole('button', { name: 'Approve' }).click();
    await editor.waitForSelector('#editor[data-status="approved"]', { timeout: patient(15_000) });
    expect((await getJob()).job.status).toBe('approved');
    // An approved job is final: the edit controls are read-only and number keys change nothing.
    expect(await editor.locator('li.pause button').first().isDisabled()).toBe(true);
    expect(await editor.locator('select.cut-camera').first().isDisabled()).toBe(true);
    const cutsApproved = (await getJob()).job.cuts;
    await editor.locator('body').press('2');
    await editor.locator('body').press('1');
    await editor.waitForTimeout(300);
    expect((await getJob()).job.cuts).toEqual(cutsApproved);
    expect(await editor.locator('a.download').count()).toBe(1);
    await shot('approved');
    expect(dialogs).toEqual([]);
  });
});
