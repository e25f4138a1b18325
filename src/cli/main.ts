/**
 * The multicam command line (Node). `multicam edit <videos…> -o out.mp4` runs a whole job
 * headless: it builds the app if needed, serves it on 127.0.0.1 (src/cli/serve.ts), launches
 * Chromium (src/cli/chromium.ts), and drives the demo page: the files are set on the page's
 * file inputs from disk (disk-backed File objects, never read whole into memory), then
 * createJob → the files used in place (`attachLocalFile`: nothing copied; `--copy` uploads
 * them to the signed URLs instead) → startProcessing, the mapping from the camera map,
 * an optional recut with the preset, startRender, and the output downloaded in 4 MB ranges
 * to `-o`, and with `--export` the edit's exports beside it. Progress lines go to stdout; a
 * failed job exits 1 with the job's error.
 *
 * The mapping comes from `--map`, else the service's camera map; when neither says who is on
 * which camera, the CLI prints the speakers it heard and exits 4: it never renders a guess.
 *
 * Exit codes: 0 done, 1 the job failed or timed out, 2 usage, 3 no browser or no build,
 * 4 a person must say who is on which camera (`--map`).
 *
 * @module
 */
import { existsSync, mkdirSync, openSync, renameSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { GetJobResponse, JobSummary } from '../contract/types.ts';
import type { StageRunRecord } from '../pipeline/runner.ts';
import { HelpRequested, parseEditArgs, USAGE, UsageError, type EditArgs } from './args.ts';
import { runInit } from './init.ts';
import { ensureAppSite } from './site.ts';
import { autoMapToSend, chooseMapping, describeMapping } from './mapping.ts';

const CHUNK = 4 * 1024 * 1024;
/** With `--auto-map off`, how long to wait for the camera map proposal after the service asked. */
const PROPOSAL_WAIT_MS = 120_000;

/** A failure of the run that is not the job's: exit code 3. */
class EnvironmentError extends Error {
  override name = 'EnvironmentError';
}

/** The app build the CLI serves (src/cli/site.ts); a failed build is the environment's failure. */
function ensureSite(rebuild: boolean, say: (line: string) => void): string {
  try {
    return ensureAppSite({ rebuild, say });
  } catch (error) {
    throw new EnvironmentError(`the app build failed: ${(error as Error).message}`);
  }
}

/** MULTICAM_CHROMIUM, else Debian's /usr/bin/chromium, else a Playwright-installed Chromium. */
async function findChromium(): Promise<string> {
  const candidates: string[] = [];
  if (process.env['MULTICAM_CHROMIUM']) candidates.push(process.env['MULTICAM_CHROMIUM']);
  else {
    candidates.push('/usr/bin/chromium', '/usr/bin/chromium-browser');
    try {
      const { chromium } = await import('playwright-core');
      candidates.push(chromium.executablePath());
    } catch {
      // No Playwright-managed browser: the message below lists what was tried.
    }
  }
  const found = candidates.find((p) => p !== '' && existsSync(p));
  if (found === undefined) {
    throw new EnvironmentError(
      `no Chromium found (tried ${candidates.join(', ')}). Install it ("apt-get install chromium"), ` +
        'or set MULTICAM_CHROMIUM to a Chromium or Chrome binary.',
    );
  }
  return found;
}

/** Calls one of the page's `window.multicamDemo` actions by name. */
type DemoCall = <R>(name: string, ...params: unknown[]) => Promise<R>;

/** The page's `window.multicamDemo` actions (the page's CSP forbids eval, so called by name). */
function demoActions(page: Page): DemoCall {
  return <R>(name: string, ...params: unknown[]): Promise<R> =>
    page.evaluate(
      ([n, p]) =>
        (
          (window as unknown as { multicamDemo: Record<string, (...a: unknown[]) => unknown> }).multicamDemo[n] as (
            ...a: unknown[]
          ) => unknown
        )(...p),
      [name, params] as const,
    ) as Promise<R>;
}

/**
 * Follows the job once a second, submitting the mapping, the recut and the render when it is
 * their turn, until it is complete: null then, else the exit code (1: it failed or timed out).
 */
async function followJob(
  args: EditArgs,
  demo: DemoCall,
  say: (line: string) => void,
  out: (line: string) => void,
  analysisOnly = false,
): Promise<number | null> {
  let last = '';
  let mapped = false;
  let recut = false;
  let rendered = false;
  let askedAt: number | undefined;
  const until = Date.now() + args.timeoutMs;
  for (;;) {
    const s = await demo<JobSummary>('summary');
    const pct = s.progress === null ? '' : ` ${Math.floor(s.progress * 20) * 5} %`;
    const line = `${s.status}${pct}`;
    if (line !== last) {
      say(`${line}  (next: ${s.nextAction.type})`);
      last = line;
    }
    if (s.status === 'failed') {
      out(`multicam: the job failed at ${s.failedAtStatus ?? 'an unknown stage'}: ${s.error ?? 'no error message'}`);
      return 1;
    }
    // With autoMap confident/always the job waits in mapping while the cameras are worked out;
    // the `mapping` event says the service now waits for a person (or took no decision at all).
    if (
      s.status === 'mapping' &&
      s.nextAction.type === 'map_speakers' &&
      !mapped &&
      (await demo<boolean>('askedToMap'))
    ) {
      const { job } = await demo<GetJobResponse>('job');
      // With --auto-map off the service asks at once and its camera map follows: wait for it a while.
      askedAt ??= Date.now();
      const proposalDue = args.autoMap === 'off' && job.camera_map === null && Date.now() - askedAt < PROPOSAL_WAIT_MS;
      if (args.map.length > 0 || !proposalDue) {
        mapped = true;
        const names = args.videos.map((v) => basename(v));
        const choice = chooseMapping(job, names, args.map);
        if ('ask' in choice) {
          out(`multicam: ${choice.ask}`);
          return 4;
        }
        await demo('submitMapping', choice.tracks);
        say(
          `mapping from ${choice.from === 'option' ? '--map' : "the service's camera map"}: ${describeMapping(choice.tracks, job, names)}`,
        );
      }
    }
    if (s.status === 'ready' && !mapped) {
      // The service mapped the cameras itself (autoMap): say what it chose.
      mapped = true;
      const { job } = await demo<GetJobResponse>('job');
      const names = args.videos.map((v) => basename(v));
      say(`mapping by the service from its camera map: ${describeMapping(job.tracks, job, names)}`);
    }
    if (s.status === 'ready' && analysisOnly) return null;
    if (s.status === 'ready' && !rendered) {
      if (args.preset !== null && !recut) {
        recut = true;
        await demo('recut', args.preset);
        say(`recut with preset ${args.preset}`);
      }
      rendered = true;
      await demo('render');
    }
    if (s.status === 'complete' || s.status === 'approved') return null;
    if (Date.now() > until) {
      out(`multicam: gave up after ${args.timeoutMs / 1000} s with the job in ${s.status}`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Downloads the output to `output`, 4 MB at a time, to a temporary name renamed at the end; returns its bytes. */
async function downloadOutput(output: string, demo: DemoCall): Promise<number> {
  mkdirSync(dirname(resolve(output)), { recursive: true });
  const partial = `${output}.part`;
  const fd = openSync(partial, 'w');
  let offset = 0;
  try {
    for (;;) {
      const chunk = await demo<{ base64: string; total: number }>('readOutput', offset, CHUNK);
      const bytes = Buffer.from(chunk.base64, 'base64');
      if (bytes.length > 0) writeSync(fd, bytes);
      offset += bytes.length;
      if (bytes.length === 0 || offset >= chunk.total) break;
    }
  } finally {
    closeSync(fd);
  }
  renameSync(partial, output);
  return offset;
}

/** What a program that runs `multicam edit` in-process (the long-set bench) can watch. */
export interface EditHooks {
  /** The browser's profile directory (its storage), once Chromium runs. */
  onBrowser?(userDataDir: string): void;
  /** The finished job (cuts, turns, offsets), before the output is downloaded. */
  onDone?(job: GetJobResponse): void | Promise<void>;
  /** Stop once the job is ready (analysis only: no render, no output written). */
  analysisOnly?: boolean;
  /** The engine's runs of the job's stages with their figures, at the end (benchmarks). */
  onStageRuns?(runs: StageRunRecord[]): void;
}

/** Runs `multicam edit`; returns the exit code. */
export async function runEdit(
  args: EditArgs,
  out: (line: string) => void = (l) => console.log(l),
  hooks: EditHooks = {},
): Promise<number> {
  const t0 = Date.now();
  const say = (line: string): void => out(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}`);
  // src/cli/chromium.ts reads MULTICAM_CHROMIUM when it is first imported.
  process.env['MULTICAM_CHROMIUM'] = await findChromium();
  const site = ensureSite(args.rebuild, say);
  const { serveStatic } = await import('./serve.ts');
  const { launchChromium } = await import('./chromium.ts');
  // The active-speaker model is served beside the app, and the demo page told where.
  const model = args.activeSpeakerModel;
  const modelPath = model === null ? null : `/host-models/${basename(model)}`;
  const server = await serveStatic(site, model === null ? 0 : { files: { [`${modelPath}`]: resolve(model) } });
  const browser = await launchChromium();
  hooks.onBrowser?.(browser.userDataDir);
  try {
    const page = await browser.context.newPage();
    if (args.verbose) page.on('console', (m) => say(`page ${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => say(`page error: ${e.message}`));
    say(`chromium ${process.env['MULTICAM_CHROMIUM']} on ${server.origin}/`);
    await page.goto(
      `${server.origin}/${modelPath === null ? '' : `?activeSpeakerModel=${encodeURIComponent(modelPath)}`}`,
    );
    if (model !== null) say(`active-speaker model ${model}`);
    await page.waitForSelector('body[data-ready]', { timeout: 60_000 });
    if ((await page.getAttribute('body', 'data-ready')) !== '1')
      throw new EnvironmentError(`the app did not start: ${await page.textContent('#status')}`);
    // Playwright hands the browser the paths: the page gets disk-backed File objects.
    await page.setInputFiles('#video-files', args.videos);
    if (args.audio.length > 0) await page.setInputFiles('#audio-files', args.audio);
    const count = await page.evaluate(() =>
      (window as unknown as { multicamDemo: { useInputs(): number } }).multicamDemo.useInputs(),
    );
    say(
      `${args.copy ? 'uploading' : 'using in place'} ${count} files (${args.videos.length} videos, ${args.audio.length} audio)`,
    );
    const demo = demoActions(page);
    const jobId = await demo<string>('start', {
      inPlace: !args.copy,
      review: true,
      autoMap: autoMapToSend(args.autoMap, args.map),
      silence: args.silence,
      ...(args.loudness === null ? {} : { audio: { loudness: args.loudness } }),
      ...(args.title ? { title: args.title } : {}),
    });
    say(`job ${jobId}: processing started`);
    const exit = await followJob(args, demo, say, out, hooks.analysisOnly);
    if (exit !== null) return exit;
    if (hooks.onDone) await hooks.onDone(await demo<GetJobResponse>('job'));
    if (!hooks.analysisOnly) {
      const bytes = await downloadOutput(args.output, demo);
      say(`wrote ${args.output} (${(bytes / 1e6).toFixed(2)} MB)`);
      for (const { format, path } of args.exports) {
        // The export route's defaults: the main camera's probed rate and frame size.
        const options = args.recordStart === null ? {} : { recordStart: args.recordStart };
        writeFileSync(path, await demo<string>('exportEdit', format, options));
        say(`wrote ${path} (${format})`);
      }
    }
    hooks.onStageRuns?.(await demo<StageRunRecord[]>('stageRuns'));
    return 0;
  } finally {
    await browser.close();
    server.server.closeAllConnections();
    await server.close();
  }
}

/** The entry point of bin/multicam.mjs; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === 'init') return runInit(rest);
  if (command !== 'edit') {
    console.error(`multicam: unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  try {
    return await runEdit(parseEditArgs(rest));
  } catch (error) {
    if (error instanceof HelpRequested) {
      console.log(USAGE);
      return 0;
    }
    if (error instanceof UsageError) {
      console.error(`multicam edit: ${error.message}\n${USAGE}`);
      return 2;
    }
    if (error instanceof EnvironmentError) {
      console.error(`multicam: ${error.message}`);
      return 3;
    }
    console.error(`multicam: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    return 1;
  }
}
