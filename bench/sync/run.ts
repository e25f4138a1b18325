/**
 * Sync-stage benchmark: probe + audio decode (16 kHz mono) + alignSources for 3 sources in
 * Chromium through the media worker, beside native ffmpeg extracting the same audio
 * (`ffmpeg -i X -ac 1 -ar 16000 -f f32le -`). Prints × real time (seconds of media handled per
 * second of wall clock) and the offsets against the fixture's truth.
 *
 *   npx tsx bench/sync/run.ts [--seconds 180]
 *
 * Uses engineer D's fixture generator (3 cameras, 320×180, `--seconds` long; cached in
 * .cache/fixtures after the first run).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { launchChromium } from '../../src/cli/chromium.ts';
import { serveStatic } from '../../src/cli/serve.ts';
import { siteLinks } from '../../test/support/build-site.ts';
import { buildMediaPage, MEDIA_PAGE, MEDIA_SITE } from '../../test/browser/media-page.ts';
import { ensureFixture } from '../../test/support/fixtures.ts';

const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 180;

const { dir, truth } = await ensureFixture('tiny', {
  seconds,
  width: 320,
  height: 180,
  cameras: 'closeup:1,closeup:2,wide:1-2-3',
});
const sources = truth.sources.slice(0, 3);
const mediaSec = sources.reduce((s, x) => s + x.durationMs / 1000, 0);

// Native ffmpeg, one file after another.
const n0 = performance.now();
for (const s of sources) {
  const r = spawnSync(
    'ffmpeg',
    ['-v', 'error', '-i', join(dir, s.file), '-ac', '1', '-ar', '16000', '-f', 'f32le', '-'],
    { maxBuffer: 1 << 30 },
  );
  if (r.status !== 0) throw new Error(`ffmpeg failed on ${s.file}: ${r.stderr.toString()}`);
}
const nativeMs = performance.now() - n0;

await buildMediaPage(MEDIA_SITE, { fixture: dir });
const server = await serveStatic(MEDIA_SITE, { allow: siteLinks(MEDIA_SITE) });
const chromium = await launchChromium();
try {
  const page = await chromium.context.newPage();
  await page.goto(`${server.origin}${MEDIA_PAGE}`);
  await page.waitForSelector('body[data-ready="1"]');
  const r = await page.evaluate(
    (urls) => window.mediaTest.syncBench(urls),
    sources.map((s) => `/fixture/${s.file}`),
  );
  const browserMs = r.probeMs + r.decodeMs + r.syncMs;
  const x = (ms: number) => (mediaSec / (ms / 1000)).toFixed(1);
  const ref = sources.find((s) => s.label === sources[0]!.label)!;
  console.log(
    `sync bench: 3 sources, ${mediaSec.toFixed(1)} s of media (${seconds} s conversation), ${sources[0]!.audio.codec} ${sources[0]!.audio.sampleRate} Hz in ${truth.sources[0]!.video?.container ?? 'mp4'}`,
  );
  console.log(
    `  chromium worker  probe ${r.probeMs.toFixed(0)} ms, decode ${r.decodeMs.toFixed(0)} ms (${r.engines.join(', ')}), sync ${r.syncMs.toFixed(0)} ms`,
  );
  console.log(
    `                   total ${browserMs.toFixed(0)} ms = ${x(browserMs)}× real time (decode alone ${x(r.decodeMs)}×)`,
  );
  console.log(`  native ffmpeg    extract ${nativeMs.toFixed(0)} ms = ${x(nativeMs)}× real time`);
  // Truth on the first source's clock, earliest at 0 (see test/node/sync/fixture.test.ts).
  const dr = ref.driftPpm * 1e-6;
  const exp = sources.map((s) => ({
    label: s.file,
    off: (s.offsetMs - ref.offsetMs) * (1 + dr),
    drift: ((1 + s.driftPpm * 1e-6) / (1 + dr) - 1) * 1e6,
  }));
  const shift = Math.min(...exp.map((e) => e.off));
  for (const e of exp) {
    const got = r.aligned.find((a) => a.id === e.label)!;
    console.log(
      `  ${e.label}: offset ${got.offsetMs.toFixed(2)} ms (truth ${(e.off - shift).toFixed(2)}), drift ${got.driftPpm.toFixed(1)} ppm (truth ${e.drift.toFixed(1)}), confidence ${got.confidence.toFixed(2)}`,
    );
  }
} finally {
  await chromium.close();
  await server.close();
}
