/**
 * Camera-map frame sampling speed: 3 cameras of 1080p30 H.264, sampled the way the service
 * samples them (GOP-aligned runs of `--run` consecutive frames every `--every` seconds, scaled
 * to 160×90 gray), through the vision worker (WebCodecs via mediabunny in Debian's Chromium),
 * beside native ffmpeg decoding the same runs. Prints × real time (media seconds of all
 * cameras per wall second).
 *
 *   npx tsx bench/camera/run.ts [--seconds 60] [--every 6] [--run 15] [--full] [--real]
 *
 * `--real` samples the real-face set of the faces eval (3 people, 3 close-ups and a wide,
 * 1080p25, 150 s) instead of the drawn one.
 *
 * `--full` also decodes every frame of one camera both ways (decode throughput in fps).
 *
 * Faces: every camera is sampled a second time in the same run with BlazeFace on (faces found
 * at each run's first frame, mouth patches on every frame), and the two paths' frames per second
 * are printed side by side, with the detector's time per tile and what an hour of three 1080p
 * cameras would take at the sampler's cap (160 runs of 15 frames per camera).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { computeCameraMap } from '../../src/analysis/camera/camera-map.ts';
import { motionFeatures, samplesToReference, type MotionSamples } from '../../src/analysis/camera/features.ts';
import { ensureFixture } from '../../test/support/fixtures.ts';
import { ensureFacesFixture } from '../../tools/fixtures/faces-set.ts';
import { ffmpegLumaFrames, keyframeRunStarts } from '../../test/node/camera/ffmpeg-frames.ts';
import { buildCameraPage, openCameraPage, pageMotion } from './camera-page.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    every: { type: 'string', default: '6' },
    run: { type: 'string', default: '15' },
    full: { type: 'boolean', default: false },
    real: { type: 'boolean', default: false },
  },
});
const everyS = Number(values.every);
const perRun = Number(values.run);

const t0 = performance.now();
// --real: the real-face set of the faces eval (3 people, close-ups and a wide, 1080p, 150 s).
const { dir, truth } = values.real
  ? await ensureFacesFixture({ people: 3, seconds: 150, width: 1920, height: 1080, seed: '1' })
  : await ensureFixture('tiny', {
      seconds: Number(values.seconds),
      width: 1920,
      height: 1080,
      cameras: 'closeup:1,closeup:2,wide:1-2-3',
    });
console.log(`fixture ${dir} ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const cams = truth.sources.filter((s) => s.kind === 'video');

await buildCameraPage();
const session = await openCameraPage();
try {
  const rows: string[] = [];
  let mediaS = 0;
  let webMs = 0;
  let ffMs = 0;
  const webSamples: Array<{ sourceId: string; samples: MotionSamples }> = [];
  const faceRows: string[] = [];
  let motionFrames = 0;
  let faceFrames = 0;
  let faceMs = 0;
  let tiles = 0;
  let tileMs = 0;
  for (const cam of cams) {
    const durS = cam.durationMs / 1000;
    mediaS += durS;
    const url = session.addMedia(join(dir, cam.file));
    const w0 = performance.now();
    const web = await pageMotion(session.page, url, { everyS, framesPerRun: perRun });
    const wMs = performance.now() - w0;
    webMs += wMs;
    motionFrames += web.frames;
    const g0 = performance.now();
    const withFaces = await pageMotion(session.page, url, { everyS, framesPerRun: perRun, withFaces: true });
    const gMs = performance.now() - g0;
    if (withFaces.facesError) throw new Error(`faces: ${withFaces.facesError}`);
    faceMs += gMs;
    faceFrames += withFaces.frames;
    tiles += withFaces.faceDetections;
    tileMs += withFaces.faceDetectMs;
    faceRows.push(
      `${cam.file} ${cam.shot}: motion only ${(web.frames / (wMs / 1000)).toFixed(0)} fps; with faces ${(withFaces.frames / (gMs / 1000)).toFixed(0)} fps, ` +
        `${withFaces.faceDetections} tiles in ${(withFaces.faceDetectMs / 1000).toFixed(2)} s; people ${withFaces.faces?.tracks.length ?? 0} at x ` +
        `${withFaces.faces?.tracks.map((t) => t.cx.toFixed(2)).join(', ') ?? '–'}`,
    );
    const starts = keyframeRunStarts(join(dir, cam.file), everyS, durS);
    const f0 = performance.now();
    const frames = ffmpegLumaFrames(join(dir, cam.file), {
      fps: cam.video?.fps ?? 30,
      runStartsS: starts,
      framesPerRun: perRun,
      threads: 0,
    });
    motionFeatures(frames);
    const fMs = performance.now() - f0;
    ffMs += fMs;
    webSamples.push({
      sourceId: cam.file,
      samples: samplesToReference(
        {
          t: Float64Array.from(web.t),
          whole: Float32Array.from(web.whole),
          left: Float32Array.from(web.left),
          middle: Float32Array.from(web.middle),
          right: Float32Array.from(web.right),
          sceneCut: Uint8Array.from(web.sceneCut),
        },
        cam.offsetMs,
        cam.driftPpm,
      ),
    });
    rows.push(
      `${cam.file} ${cam.shot} ${durS.toFixed(1)} s: browser (${web.lumaPath}) ${web.runs} runs / ${web.frames} frames in ${(wMs / 1000).toFixed(2)} s (${(durS / (wMs / 1000)).toFixed(1)}× real time); ` +
        `ffmpeg ${starts.length} runs / ${frames.length} frames in ${(fMs / 1000).toFixed(2)} s (${(durS / (fMs / 1000)).toFixed(1)}×)`,
    );
  }
  console.log(
    `sampling: runs of ${perRun} frames from the keyframe at or before every ${everyS} s, scaled to 160×90 gray`,
  );
  for (const r of rows) console.log('  ' + r);
  console.log(
    `${cams.length} cameras, ${mediaS.toFixed(0)} s of 1080p media: browser vision worker ${(mediaS / (webMs / 1000)).toFixed(1)}× real time, ` +
      `native ffmpeg ${(mediaS / (ffMs / 1000)).toFixed(1)}× real time (sum of per-camera media time over wall time, cameras one after another)`,
  );
  console.log('faces (the same runs sampled again with BlazeFace on):');
  for (const r of faceRows) console.log('  ' + r);
  const motionFps = motionFrames / (webMs / 1000);
  const faceFps = faceFrames / (faceMs / 1000);
  const hourS = (3 * 160 * perRun) / faceFps; // three cameras, each at the sampler's cap
  console.log(
    `sampled frames per second: motion thirds ${motionFps.toFixed(0)}, with faces ${faceFps.toFixed(0)} (${(faceFps / motionFps).toFixed(2)}×); ` +
      `BlazeFace ${(tileMs / Math.max(1, tiles)).toFixed(1)} ms per 128×128 tile (${tiles} tiles); ` +
      `an hour of 3 cameras at the cap (3 × 160 runs × ${perRun} frames) with faces: about ${hourS.toFixed(0)} s`,
  );
  const map = computeCameraMap({ cameras: webSamples, turns: truth.turns, minSpeechMs: 1000 });
  console.log(
    'map from the sampled browser features (motion alone): ' +
      map.cameras.map((c) => `${c.sourceId}=${c.kind}/${c.confidence}[${c.speakers.join(',')}]`).join(' '),
  );

  if (values.full) {
    const cam = cams[0]!;
    const url = session.addMedia(join(dir, cam.file));
    const w0 = performance.now();
    const web = await pageMotion(session.page, url, { everyS: 0 });
    const wS = (performance.now() - w0) / 1000;
    const f0 = performance.now();
    const n = ffmpegLumaFrames(join(dir, cam.file), { fps: cam.video?.fps ?? 30, threads: 0 }).length;
    const fS = (performance.now() - f0) / 1000;
    console.log(
      `every frame of ${cam.file}: browser ${web.frames} frames in ${wS.toFixed(1)} s (${(web.frames / wS).toFixed(0)} fps); ffmpeg ${n} frames in ${fS.toFixed(1)} s (${(n / fS).toFixed(0)} fps)`,
    );
  }
} finally {
  await session.close();
}
