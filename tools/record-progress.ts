/**
 * `npx tsx tools/record-progress.ts [--out test/fixtures/progress-run.json]`: records what the
 * demo page sees of real jobs, for the estimate's test (test/node/demo/estimate-recorded.test.ts).
 *
 * Runs the demo's built-in sample (`npx tsx scripts/make-sample.ts` makes it) twice, hands-off
 * (autoMap always, review off: Start to a rendered MP4, the render included), in Chromium through
 * the demo page as `multicam edit` drives it, files used in place: once per-mic (its three cameras
 * and two mics) and once as one mix (the three cameras and the sample's mixed reference track, so
 * speaker detection runs on a single mix); then the hands-off evaluation's 3-minute set (tuning
 * split, seed 1: four cameras, no mics) for longer steps. It polls the page's `summary` once a second, as the
 * page itself does, and keeps each poll's time, status and `stageProgress` (what the page's
 * StepTracker feeds its estimator) and whether the service asked a person to map.
 *
 * Launches Chromium and runs a vite build: hold the lock
 * (`flock /tmp/multicam-browser.lock npx tsx tools/record-progress.ts`).
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { launchChromium } from '../src/cli/chromium.ts';
import { serveStatic } from '../src/cli/serve.ts';
import type { JobSummary } from '../src/contract/types.ts';
import { SAMPLE_DIR } from '../demo/sample/manifest.ts';
import { ensureFixtureAt, FIXTURE_CACHE } from './fixtures/cache.ts';

const ROOT = resolve(import.meta.dirname, '..');
const SITE = join(ROOT, '.cache', 'record-progress-site');
const TIMEOUT_MS = 15 * 60_000;

/** One poll: ms since Start, the job's status, its `stageProgress` (3 decimals), asked to map (1) or not (0). */
export type ProgressPoll = [t: number, status: JobSummary['status'], stageProgress: number | null, asked: 0 | 1];

/** One recorded job. */
export interface RecordedRun {
  name: string;
  /** The files and options, in words. */
  set: string;
  polls: ProgressPoll[];
}

/** The recording file. */
export interface ProgressRecording {
  /** Where and when it was recorded. */
  recorded: { date: string; commit: string; machine: string; how: string };
  runs: RecordedRun[];
}

const { values } = parseArgs({
  options: { out: { type: 'string', default: 'test/fixtures/progress-run.json' } },
});

function buildSite(): void {
  execFileSync('node', ['scripts/copy-assets.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, MULTICAM_OUT_DIR: SITE },
  });
}

/** Calls one of the page's `window.multicamDemo` actions by name (the page's CSP forbids eval). */
function demoCall<R>(page: Page, name: string, ...params: unknown[]): Promise<R> {
  return page.evaluate(
    ([n, p]) =>
      (
        (window as unknown as { multicamDemo: Record<string, (...a: unknown[]) => unknown> }).multicamDemo[n] as (
          ...a: unknown[]
        ) => unknown
      )(...p),
    [name, params] as const,
  ) as Promise<R>;
}

async function record(
  origin: string,
  name: string,
  set: string,
  videos: string[],
  audio: string[],
): Promise<RecordedRun> {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
    await page.goto(`${origin}/`);
    await page.waitForSelector('body[data-ready]', { timeout: 60_000 });
    await page.setInputFiles('#video-files', videos);
    if (audio.length > 0) await page.setInputFiles('#audio-files', audio);
    await demoCall(page, 'useInputs');
    const t0 = Date.now();
    await demoCall(page, 'start', { inPlace: true, review: false, autoMap: 'always', silence: 'tighten' });
    const polls: ProgressPoll[] = [];
    let last = '';
    for (;;) {
      const s = await demoCall<JobSummary>(page, 'summary');
      const asked = await demoCall<boolean>(page, 'askedToMap');
      const t = Date.now() - t0;
      const f = s.stageProgress === null ? null : Math.round(s.stageProgress * 1000) / 1000;
      polls.push([t, s.status, f, asked ? 1 : 0]);
      if (s.status !== last) console.log(`${name} ${(t / 1000).toFixed(1)} s: ${s.status}`);
      last = s.status;
      if (s.status === 'failed') throw new Error(`${name}: the job failed at ${s.failedAtStatus}: ${s.error}`);
      if (s.status === 'complete' || s.status === 'approved') break;
      if (t > TIMEOUT_MS) throw new Error(`${name}: gave up in ${s.status}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    return { name, set, polls };
  } finally {
    await browser.close();
  }
}

const sample = (file: string): string => {
  const path = join(ROOT, SAMPLE_DIR, file);
  if (!existsSync(path)) throw new Error(`${path} is missing: run npx tsx scripts/make-sample.ts`);
  return path;
};

buildSite();
const server = await serveStatic(SITE, 0);
try {
  const cameras = ['cam1.mp4', 'cam2.mp4', 'cam3.mp4'].map(sample);
  const sampleVersion = (JSON.parse(readFileSync(sample('manifest.json'), 'utf8')) as { version: string }).version;
  const runs = [
    await record(
      server.origin,
      'per-mic',
      `built-in sample (${sampleVersion}): 3 cameras + 2 close mics, hands-off, in place`,
      cameras,
      [sample('mic-spk1.wav'), sample('mic-spk2.wav')],
    ),
    await record(
      server.origin,
      'mix',
      `built-in sample (${sampleVersion}): 3 cameras + its mixed reference.wav as the one mic, hands-off, in place`,
      cameras,
      [sample('reference.wav')],
    ),
  ];
  // Longer steps: the 3-minute, 3-speaker set of the hands-off evaluation's tuning split (seed 1),
  // a close-up each and a wide, no mics (speaker detection on the cameras' own sound).
  const long = { seed: '1', seconds: 180, speakers: 3, cameras: 'closeup:1,closeup:2,closeup:3,wide:1-2-3' } as const;
  const { dir } = await ensureFixtureAt('tiny', long, FIXTURE_CACHE);
  runs.push(
    await record(
      server.origin,
      'three-minute',
      `fixture tiny ${JSON.stringify(long)}: 4 cameras, no mics, hands-off, in place`,
      ['cam1.mp4', 'cam2.mp4', 'cam3.mp4', 'cam4.mp4'].map((f) => join(dir, f)),
      [],
    ),
  );
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const recording: ProgressRecording = {
    recorded: {
      date: new Date().toISOString().slice(0, 10),
      commit,
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, headless Chromium (software, no GPU)`,
      how: 'npx tsx tools/record-progress.ts: one poll of the demo page’s summary a second',
    },
    runs,
  };
  const out = resolve(ROOT, values.out);
  mkdirSync(dirname(out), { recursive: true });
  // Prettier's JSON: one poll per line, as `npm run check` wants it.
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(out)) ?? {};
  writeFileSync(out, await prettier.format(JSON.stringify(recording, null, 2), { ...options, filepath: out }));
  console.log(`wrote ${out}: ${runs.map((r) => `${r.name} ${r.polls.length} polls`).join(', ')}`);
} finally {
  server.server.closeAllConnections();
  await server.close();
}
