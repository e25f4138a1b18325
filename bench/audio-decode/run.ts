/**
 * Audio-decode bench: where the time goes when the media worker decodes a long source's audio
 * (src/media/mediabunny-decoder.ts), phase by phase, in Chromium on a picked (disk-backed)
 * file, beside native ffmpeg decoding the same audio to mono at the same rate in the same run.
 *
 *   npx tsx bench/audio-decode/run.ts [--minutes 10] [--rate 8000] [--file cam1.mp4]
 *
 * Uses the long-set fixture (tools/fixtures/long-set.ts; built once into .cache/fixtures).
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium } from '../../src/cli/chromium.ts';
import { serveStatic } from '../../src/cli/serve.ts';
import { buildSite, ROOT } from '../../test/support/build-site.ts';
import { FIXTURE_CACHE } from '../../tools/fixtures/cache.ts';
import { ensureLongSet } from '../../tools/fixtures/long-set.ts';
import type { PhaseTimes } from './worker.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '8000' },
    file: { type: 'string', default: 'cam1.mp4' },
  },
});
const rate = Number(values.rate);
const { dir } = await ensureLongSet({ minutes: Number(values.minutes) }, FIXTURE_CACHE, (l) => console.log(l));
const path = join(dir, values.file);

const n0 = performance.now();
const native = spawnSync(
  'ffmpeg',
  ['-v', 'error', '-y', '-i', path, '-vn', '-ac', '1', '-ar', String(rate), '-f', 'f32le', '/dev/null'],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
if (native.status !== 0) throw new Error(`ffmpeg: ${native.stderr.toString()}`);
const nativeMs = performance.now() - n0;

const site = join(ROOT, '.cache/audio-decode-site');
await buildSite({ pages: { page: 'bench/audio-decode/page.html' }, outDir: site });
const server = await serveStatic(site, 0);
const chromium = await launchChromium();
try {
  const page = await chromium.context.newPage();
  await page.goto(`${server.origin}/bench/audio-decode/page.html`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.setInputFiles('#file', path);
  const t = await page.evaluate(
    (r) => (window as unknown as { benchPhases: (rate: number) => Promise<PhaseTimes> }).benchPhases(r),
    rate,
  );
  const x = (ms: number): string => `${(t.durationSec / (ms / 1000)).toFixed(0).padStart(5)}×`;
  const row = (name: string, ms: number, extra = ''): void =>
    console.log(`  ${name.padEnd(28)} ${(ms / 1000).toFixed(1).padStart(6)} s ${x(ms)} ${extra}`);
  console.log(
    `${values.file} of the ${values.minutes}-minute set: ${(t.durationSec / 60).toFixed(1)} min of audio → mono ${rate} Hz`,
  );
  row('demux (packets only)', t.demuxMs);
  row('+ AudioDecoder', t.decodeMs, `(decode ${((t.decodeMs - t.demuxMs) / 1000).toFixed(1)} s)`);
  row('+ copyTo and downmix', t.copyMs, `(copy ${((t.copyMs - t.decodeMs) / 1000).toFixed(1)} s)`);
  row('+ resample', t.resampleMs, `(resample ${((t.resampleMs - t.copyMs) / 1000).toFixed(1)} s)`);
  row('media worker decodeAudio', t.decoderMs);
  row('native ffmpeg (same output)', nativeMs, `(ours / native: ${(t.decoderMs / nativeMs).toFixed(1)})`);
} finally {
  await chromium.close();
  server.server.closeAllConnections();
  await server.close();
}
