/**
 * `npx tsx bench/render/run.ts [--fixture DIR] [--seconds N] [--video-encoder auto|webcodecs|ffmpeg.wasm]`:
 * renders one edit of a 1080p
 * multicam fixture (three cameras, ~1 minute) twice, in one run: in Chromium through the render
 * worker (WebCodecs H.264 + AAC, MP4), and with Debian's native ffmpeg (libx264
 * veryfast + aac, a filter_complex of trim/concat per segment). Prints fps, × real time and peak
 * memory of both: the Chromium process tree's RSS/PSS sampled from /proc (with the curve over
 * the render, to show it stays flat), and ffmpeg's maximum RSS from `/usr/bin/time -v`.
 *
 * Without --fixture it uses (and if needed generates, ~3 min) D's fixture
 * `short --seconds 60 --speakers 3 --cameras closeup:1,closeup:2,wide:1-2-3 --no-mics --max-start-gap 2`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { toSourceTime } from '../../src/analysis/sync/sync.ts';
import type { Cut, TimeRange } from '../../src/contract/types.ts';
import { planRender } from '../../src/render/plan.ts';
import { ensureFixture, type Truth } from '../../test/support/fixtures.ts';
import { launchChromium } from '../../src/cli/chromium.ts';
import { serveStatic } from '../../src/cli/serve.ts';
import { siteLinks } from '../../test/support/build-site.ts';
import { chromiumTree, treeMemory } from '../upload/proc-memory.ts';
import { buildRenderSite, RENDER_PAGE, ROOT, type PageRenderOptions } from './render-site.ts';

const { values } = parseArgs({
  options: { fixture: { type: 'string' }, seconds: { type: 'string' }, 'video-encoder': { type: 'string' } },
});
const videoEncoder = (values['video-encoder'] ?? 'auto') as 'auto' | 'webcodecs' | 'ffmpeg.wasm';
const { dir, truth } = values.fixture
  ? { dir: values.fixture, truth: JSON.parse(readFileSync(join(values.fixture, 'truth.json'), 'utf8')) as Truth }
  : await ensureFixture('short', {
      seconds: 60,
      speakers: 3,
      cameras: 'closeup:1,closeup:2,wide:1-2-3',
      mics: false,
      maxStartGapSec: 2,
    });
const cams = truth.sources.filter((s) => s.kind === 'video').slice(0, 3);
const OUT = join(ROOT, '.cache/render-bench');
mkdirSync(OUT, { recursive: true });

// The edit: a cut every 4 s cycling through the cameras over the span all of them recorded,
// and a 1 s removed range every 10 s.
const start = Math.ceil(Math.max(...cams.map((c) => c.offsetMs)) / 100) * 100;
const limit = values.seconds ? start + Number(values.seconds) * 1000 : Infinity;
const end = Math.min(limit, Math.floor(Math.min(...cams.map((c) => c.endRefMs)) / 100) * 100);
const cuts: Cut[] = [];
for (let t = start, k = 0; t < end; t += 4000, k++)
  cuts.push({ sourceId: cams[k % 3]!.label, startMs: t, endMs: Math.min(end, t + 4000) });
const removedRanges: TimeRange[] = [];
for (let t = start + 5000; t + 1000 < end; t += 10_000) removedRanges.push({ startMs: t, endMs: t + 1000 });
const clocks = new Map(cams.map((c) => [c.label, { offsetMs: c.offsetMs, driftPpm: c.driftPpm }]));
const fps = cams[0]!.video?.fps ?? 30;
const plan = planRender(cuts, removedRanges, { fps, clocks });
const { width, height } = cams[0]!.video ?? { width: 1920, height: 1080 };
console.log(
  `fixture ${dir}: ${cams.length} cameras ${width}×${height}@${fps}; edit ${cuts.length} cuts, ${removedRanges.length} removed ranges → ${(plan.keptMs / 1000).toFixed(1)} s, ${plan.frameCount} frames`,
);

// 1. In the browser.
const site = await buildRenderSite(dir, join(ROOT, '.cache/render-bench-site'));
const server = await serveStatic(site, { index: RENDER_PAGE.slice(1), allow: siteLinks(site) });
const chromium = await launchChromium();
let browser: {
  encoder: string;
  wallMs: number;
  frames: number;
  bytes: number;
  peakRss: number;
  peakPss: number;
  curve: number[];
  heapMax: number | null;
  heapFirst: number | null;
  baselinePss: number;
};
try {
  const page = await chromium.context.newPage();
  await page.goto(`${server.origin}${RENDER_PAGE}`);
  await page.waitForSelector('body[data-ready="1"]');
  const baseline = treeMemory(chromiumTree(chromium.userDataDir));
  const curve: number[] = [];
  let peakRss = 0;
  let peakPss = 0;
  const timer = setInterval(() => {
    const m = treeMemory(chromiumTree(chromium.userDataDir));
    peakRss = Math.max(peakRss, m.rssBytes);
    peakPss = Math.max(peakPss, m.pssBytes);
    curve.push(m.pssBytes);
  }, 500);
  const options: PageRenderOptions = {
    cuts,
    removedRanges,
    sources: cams.map((s) => ({
      id: s.label,
      kind: 'video',
      url: `/fixture/${s.file}`,
      offsetMs: s.offsetMs,
      driftPpm: s.driftPpm,
      durationMs: s.durationMs,
    })),
    output: { fps, videoEncoder },
    returnFile: false,
    heapEveryMs: 1000,
  };
  const s = await page.evaluate((o) => window.renderTest.render(o), options);
  clearInterval(timer);
  if (s.error || !s.result) throw new Error(`browser render failed: ${s.error?.name}: ${s.error?.message}`);
  browser = {
    encoder: `${s.result.videoEncoder} ${s.result.videoCodecString} + ${s.result.audioEncoder} ${s.result.audioCodec}`,
    wallMs: s.result.elapsedMs,
    frames: s.result.frames,
    bytes: s.result.bytes,
    peakRss,
    peakPss,
    curve,
    heapMax: s.heap.length ? Math.max(...s.heap) : null,
    heapFirst: s.heap[0] ?? null,
    baselinePss: baseline.pssBytes,
  };
} finally {
  await chromium.close();
  await server.close();
}

// 2. Native ffmpeg, the same edit: video segments trimmed at the synced source times and
// concatenated; audio ranges as the mean of the three cameras, trimmed likewise.
const inputs = cams.flatMap((c) => ['-i', join(dir, c.file)]);
const index = new Map(cams.map((c, i) => [c.label, i]));
const filters: string[] = [];
plan.segments.forEach((seg, k) => {
  const i = index.get(seg.sourceId)!;
  filters.push(
    `[${i}:v]trim=start=${(seg.srcStartMs / 1000).toFixed(6)}:end=${(seg.srcEndMs / 1000).toFixed(6)},setpts=PTS-STARTPTS,fps=${fps},scale=${width}:${height}[v${k}]`,
  );
});
filters.push(`${plan.segments.map((_, k) => `[v${k}]`).join('')}concat=n=${plan.segments.length}:v=1:a=0[vout]`);
plan.audio.forEach((r, k) => {
  cams.forEach((c, i) => {
    const clock = clocks.get(c.label)!;
    const a = toSourceTime(r.refStartMs, clock) / 1000;
    const b = toSourceTime(r.refEndMs, clock) / 1000;
    filters.push(`[${i}:a]atrim=start=${a.toFixed(6)}:end=${b.toFixed(6)},asetpts=PTS-STARTPTS[a${k}_${i}]`);
  });
  filters.push(`${cams.map((_, i) => `[a${k}_${i}]`).join('')}amix=inputs=${cams.length}:normalize=1[a${k}]`);
});
filters.push(`${plan.audio.map((_, k) => `[a${k}]`).join('')}concat=n=${plan.audio.length}:v=0:a=1[aout]`);
const nativeOut = join(OUT, 'native.mp4');
const t0 = performance.now();
const ff = spawnSync(
  '/usr/bin/time',
  [
    '-v',
    'ffmpeg',
    '-v',
    'error',
    '-y',
    ...inputs,
    '-filter_complex',
    filters.join(';'),
    '-map',
    '[vout]',
    '-map',
    '[aout]',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    nativeOut,
  ],
  { maxBuffer: 1 << 26 },
);
const nativeMs = performance.now() - t0;
const stderr = ff.stderr.toString();
if (ff.status !== 0) throw new Error(`native ffmpeg failed: ${stderr.slice(-2000)}`);
const nativeRssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? NaN);

const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
const outSec = plan.durationMs / 1000;
const third = Math.max(1, Math.floor(browser.curve.length / 3));
const early = Math.max(...browser.curve.slice(0, third));
const late = Math.max(...browser.curve.slice(-third));
console.log('');
console.log(`output ${outSec.toFixed(1)} s, ${plan.frameCount} frames, ${width}×${height}`);
console.log(
  `browser (worker, ${browser.encoder}): ${(browser.wallMs / 1000).toFixed(1)} s, ${((browser.frames / browser.wallMs) * 1000).toFixed(1)} fps, ${(outSec / (browser.wallMs / 1000)).toFixed(2)}× real time, ${mb(browser.bytes)} file`,
);
console.log(
  `  Chromium tree peak RSS ${mb(browser.peakRss)}, peak PSS ${mb(browser.peakPss)} (idle page PSS ${mb(browser.baselinePss)}); PSS peak in first third ${mb(early)}, last third ${mb(late)}`,
);
if (browser.heapMax !== null)
  console.log(`  render worker JS heap: first sample ${mb(browser.heapFirst ?? 0)}, max ${mb(browser.heapMax)}`);
console.log(
  `native ffmpeg (libx264 veryfast + aac): ${(nativeMs / 1000).toFixed(1)} s, ${((plan.frameCount / nativeMs) * 1000).toFixed(1)} fps, ${(outSec / (nativeMs / 1000)).toFixed(2)}× real time, ${mb(statSync(nativeOut).size)} file, peak RSS ${mb(nativeRssKb * 1024)}`,
);
