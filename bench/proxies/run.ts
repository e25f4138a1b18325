/**
 * Proxies bench (issue 56): four generated cameras (1080p by default, `--height 2160` for 4K),
 * played in Chromium through the review editor's player from the originals and from their
 * proxies, in one run:
 *
 * - each proxy's build time in the media worker (`buildProxy`, one after another as the engine
 *   builds them) as × real time, beside native ffmpeg decoding the same file (`-f null`);
 * - frames dropped by the four tiles while playing (`getVideoPlaybackQuality`);
 * - the time from a seek (a click on the timeline: `SyncedPlayer.seek`) to every tile presenting
 *   the new moment (`requestVideoFrameCallback`).
 *
 *   npx tsx bench/proxies/run.ts [--height 1080] [--seconds 30] [--play 10] [--seeks 8] [--generate-only]
 *
 * Originals and proxies are served by the same local static server (Range requests), so the
 * difference is the decoding. Not CI. See docs/proxies.md for figures.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium } from '../../src/cli/chromium.ts';
import { serveStatic } from '../../src/cli/serve.ts';
import { buildSite, ROOT, siteLinks } from '../../test/support/build-site.ts';
import type { BenchBuild, BenchPlayback, BenchSeek } from './page.ts';

const { values } = parseArgs({
  options: {
    height: { type: 'string', default: '1080' },
    seconds: { type: 'string', default: '30' },
    play: { type: 'string', default: '10' },
    seeks: { type: 'string', default: '8' },
    'generate-only': { type: 'boolean', default: false },
  },
});
const height = Number(values.height);
const width = Math.round((height * 16) / 9);
const seconds = Number(values.seconds);
const CAMERAS = 4;
/** A camera's bitrate: about what a 1080p camera records, five times that at 4K. */
const bitrate = height >= 2000 ? '40M' : '8M';
const dir = join(ROOT, `.cache/proxies-bench/${height}p-${seconds}s`);
mkdirSync(dir, { recursive: true });

/** Generates camera `i`: a moving test pattern with sensor-like noise (hard to compress, as real footage), H.264 with a 2 s GOP, AAC sound. */
function ensureCamera(i: number): string {
  const file = join(dir, `cam${i}.mp4`);
  if (existsSync(file)) return file;
  console.log(`generating ${file} (${width}×${height}, ${seconds} s, ${bitrate}b/s)…`);
  const run = spawnSync(
    'ffmpeg',
    [
      ...['-v', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=30,hue=h=${i * 90},noise=alls=12:allf=t`],
      ...['-f', 'lavfi', '-i', `sine=frequency=${220 * i}:sample_rate=48000`],
      ...['-t', String(seconds), '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', bitrate, '-maxrate', bitrate],
      ...['-bufsize', bitrate, '-g', '60', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', '-shortest', file],
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (run.status !== 0) throw new Error(`ffmpeg could not generate ${file}`);
  return file;
}

const cams = Array.from({ length: CAMERAS }, (_, i) => ensureCamera(i + 1));
const names = cams.map((_, i) => `cam${i + 1}.mp4`);
// The cameras only (no browser: run it outside the browser lock).
if (values['generate-only']) process.exit(0);

// Native ffmpeg decoding the same files, one after another (its default threads).
const native: number[] = [];
for (const file of cams) {
  const t0 = performance.now();
  const run = spawnSync('ffmpeg', ['-v', 'error', '-i', file, '-an', '-f', 'null', '-'], { stdio: 'ignore' });
  if (run.status !== 0) throw new Error(`ffmpeg could not decode ${file}`);
  native.push(performance.now() - t0);
}

const site = await buildSite({
  pages: { page: 'bench/proxies/page.html' },
  outDir: join(ROOT, '.cache/proxies-bench-site'),
  links: { fixture: dir },
});
const server = await serveStatic(site, { index: 'bench/proxies/page.html', allow: siteLinks(site) });
const chromium = await launchChromium();
type Api = {
  decodeOnly(name: string): Promise<{ ms: number; frames: number }>;
  build(names: string[]): Promise<BenchBuild[]>;
  load(urls: string[]): Promise<number>;
  play(fromS: number, seconds: number): Promise<BenchPlayback>;
  seeks(targets: number[]): Promise<BenchSeek[]>;
};
try {
  const page = await chromium.context.newPage();
  await page.setViewportSize({ width: 1300, height: 760 });
  await page.goto(`${server.origin}/bench/proxies/page.html`);
  await page.waitForSelector('body[data-ready="1"]', { state: 'attached' });
  const builds = await page.evaluate((n) => (window as unknown as { proxyBench: Api }).proxyBench.build(n), names);
  for (const b of builds) writeFileSync(join(dir, `proxy-${b.name}`), Buffer.from(b.base64, 'base64'));
  // The floor of a build: WebCodecs decoding the first camera's every frame, nothing else (on the page's thread).
  const decode = await page.evaluate(
    (n) => (window as unknown as { proxyBench: Api }).proxyBench.decodeOnly(n),
    names[0]!,
  );

  const playS = Number(values.play);
  const count = Number(values.seeks);
  // Seeks spread over the footage, in an order that jumps back and forth (as scrubbing does).
  const targets = Array.from({ length: count }, (_, k) => ((k * 7) % count) / count).map(
    (f) => Math.round((1 + f * (seconds - 3)) * 10) / 10,
  );
  const results: Record<string, { playback: BenchPlayback; seeks: BenchSeek[] }> = {};
  for (const mode of ['original', 'proxy'] as const) {
    const urls = names.map((n) => `/fixture/${mode === 'proxy' ? `proxy-${n}` : n}`);
    await page.evaluate((u) => (window as unknown as { proxyBench: Api }).proxyBench.load(u), urls);
    const playback = await page.evaluate(
      ([from, s]) => (window as unknown as { proxyBench: Api }).proxyBench.play(from!, s!),
      [1, Math.min(playS, seconds - 2)],
    );
    const seeks = await page.evaluate((t) => (window as unknown as { proxyBench: Api }).proxyBench.seeks(t), targets);
    results[mode] = { playback, seeks };
  }

  const totalDurationS = builds.reduce((a, b) => a + b.durationS, 0);
  const totalBuildMs = builds.reduce((a, b) => a + b.buildMs, 0);
  const totalNativeMs = native.reduce((a, b) => a + b, 0);
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\nfour cameras ${width}×${height} 30 fps, ${seconds} s each, H.264 ${bitrate}b/s, GOP 2 s`);
  for (const [i, b] of builds.entries())
    console.log(
      `  ${b.name}: proxy ${b.width}×${b.height} ${b.codec}, ${(b.bytes / 1e6).toFixed(1)} MB ` +
        `(${((b.bytes * 8) / b.durationS / 1e6).toFixed(2)} Mb/s), built in ${(b.buildMs / 1000).toFixed(1)} s ` +
        `= ${(b.durationS / (b.buildMs / 1000)).toFixed(1)}× real time; native ffmpeg decode ${(native[i]! / 1000).toFixed(1)} s ` +
        `= ${(b.durationS / (native[i]! / 1000)).toFixed(1)}×`,
    );
  console.log(
    `  all four: proxies ${(totalDurationS / (totalBuildMs / 1000)).toFixed(1)}× real time per camera-second ` +
      `(${(totalBuildMs / 1000).toFixed(1)} s), native decode ${(totalDurationS / (totalNativeMs / 1000)).toFixed(1)}× ` +
      `(${(totalNativeMs / 1000).toFixed(1)} s)`,
  );
  console.log(
    `  WebCodecs decode only (${names[0]}, ${decode.frames} frames): ${(decode.ms / 1000).toFixed(1)} s = ` +
      `${(builds[0]!.durationS / (decode.ms / 1000)).toFixed(1)}× real time`,
  );
  for (const [mode, r] of Object.entries(results)) {
    const ms = r.seeks.map((s) => s.ms);
    console.log(
      `  ${mode.padEnd(8)}: dropped ${r.playback.dropped}/${r.playback.total} frames ` +
        `(${((100 * r.playback.dropped) / Math.max(1, r.playback.total)).toFixed(1)} %) over ${r.playback.seconds} s of four tiles; ` +
        `seek → all four tiles shown: median ${median(ms).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms ` +
        `(${r.seeks.every((s) => s.how === 'frame') ? 'presented frames' : 'some by seeked'})`,
    );
  }
  const out = join(ROOT, `.cache/proxies-bench/results-${height}p.json`);
  writeFileSync(
    out,
    JSON.stringify(
      {
        width,
        height,
        seconds,
        bitrate,
        builds: builds.map(({ base64: _, ...b }) => b),
        nativeMs: native,
        decodeOnly: decode,
        results,
      },
      null,
      1,
    ),
  );
  console.log(`  (${out})`);
} finally {
  await chromium.close();
  server.server.closeAllConnections();
  await server.close();
}
