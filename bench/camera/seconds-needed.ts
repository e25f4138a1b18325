/**
 * How many seconds of conversation the camera map needs to be sure: decode a fixture's
 * cameras once (ffmpeg, 160×90 gray), then run the map on growing prefixes of the timeline and
 * report, per prefix, which cameras are answered right and how surely.
 *
 *   npx tsx bench/camera/seconds-needed.ts [--seconds 90] [--every 0|S --run 15]
 *
 * `--every S --run N` keeps only runs of N consecutive frames every S seconds, as the browser
 * sampler does, to see what sampling costs in certainty.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { computeCameraMap } from '../../src/analysis/camera/camera-map.ts';
import { motionFeatures, samplesToReference } from '../../src/analysis/camera/features.ts';
import { ensureFixture } from '../../test/support/fixtures.ts';
import { ffmpegLumaFrames } from '../../test/node/camera/ffmpeg-frames.ts';
import { samplesBefore, turnsBefore } from '../../test/node/camera/prefixes.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '90' },
    every: { type: 'string', default: '0' },
    run: { type: 'string', default: '15' },
  },
});
const seconds = Number(values.seconds);
const everyS = Number(values.every);
const runLen = Number(values.run);
const { dir, truth } = await ensureFixture('tiny', seconds === 20 ? {} : { seconds });

const cams = truth.sources
  .filter((s) => s.kind === 'video')
  .map((s) => {
    const fps = s.video?.fps ?? 30;
    // Sampled: decode only the runs (as the browser sampler would), not every frame.
    const runStartsS =
      everyS > 0 ? Array.from({ length: Math.ceil(s.durationMs / 1000 / everyS) }, (_, i) => i * everyS) : undefined;
    const frames = ffmpegLumaFrames(join(dir, s.file), {
      fps,
      ...(runStartsS ? { runStartsS, framesPerRun: runLen } : {}),
    });
    return {
      sourceId: s.file,
      samples: samplesToReference(motionFeatures(frames), s.offsetMs, s.driftPpm),
      decoded: frames.length,
    };
  });

console.log(
  `fixture ${dir} (${seconds} s), ${everyS > 0 ? `runs of ${runLen} frames every ${everyS} s` : 'every frame'}; frames decoded: ${cams.map((c) => c.decoded).join(', ')}`,
);
console.log('prefix_s  ' + truth.expectedCameraMap.cameras.map((c) => `${c.file}(${c.kind})`).join('  '));
let firstAllSure: number | null = null;
let stableFrom: number | null = null;
const start = truth.conversation.startMs;
const step = seconds > 120 ? 15 : 5;
for (let s = 10; s <= seconds + step; s += step) {
  const end = start + s * 1000;
  const turns = turnsBefore(truth.turns, end);
  const map = computeCameraMap({
    cameras: cams.map((c) => ({ sourceId: c.sourceId, samples: samplesBefore(c.samples, end) })),
    turns,
    minSpeechMs: 1000,
  });
  const cells = truth.expectedCameraMap.cameras.map((e) => {
    const c = map.cameras.find((x) => x.sourceId === e.file)!;
    const right =
      c.kind === e.kind && JSON.stringify(c.speakers) === JSON.stringify(e.kind === 'multi' ? c.speakers : e.speakers);
    return `${right ? 'ok' : 'NO'}:${c.kind}/${c.confidence}`;
  });
  const closeupsSure = truth.expectedCameraMap.cameras
    .filter((e) => e.kind === 'closeup')
    .every((e) => {
      const c = map.cameras.find((x) => x.sourceId === e.file)!;
      return c.kind === 'closeup' && c.confidence === 'high' && c.speakers[0] === e.speakers[0];
    });
  const wrongSure = map.cameras.some((c) => {
    const e = truth.expectedCameraMap.cameras.find((x) => x.file === c.sourceId)!;
    return c.confidence === 'high' && (c.kind !== e.kind || JSON.stringify(c.speakers) !== JSON.stringify(e.speakers));
  });
  if (closeupsSure && !wrongSure && firstAllSure === null) firstAllSure = s;
  if (closeupsSure && !wrongSure) stableFrom ??= s;
  else stableFrom = null;
  console.log(`${String(s).padStart(8)}  ${cells.join('  ')}${wrongSure ? '  WRONG-SURE' : ''}`);
}
console.log(
  `every close-up sure and right (and no wrong sure answer): first at ${firstAllSure ?? 'never'} s, at every longer prefix from ${stableFrom ?? 'never'} s of conversation`,
);
