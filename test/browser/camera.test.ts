/**
 * The camera map's browser path: the vision worker decodes a fixture camera with WebCodecs
 * (mediabunny) in Debian's Chromium and returns motion features that match the Node path
 * (ffmpeg decoding the same file), its sampled runs start at keyframes, and a camera written
 * as devices write it (29.97 or 23.976 fps, MP4 with timecode or MKV, a keyframe every 250
 * frames) is sampled at the same times as the original (issue 52).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  buildCameraPage,
  openCameraPage,
  pageMotion,
  type CameraPageApi,
  type CameraPageSession,
} from '../../bench/camera/camera-page.ts';
import { computeCameraMap } from '../../src/analysis/camera/camera-map.ts';
import { motionFeatures, samplesToReference, type MotionSamples } from '../../src/analysis/camera/features.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS, type Truth } from '../support/fixtures.ts';
import { ffmpegLumaFrames, keyframeTimesS } from '../node/camera/ffmpeg-frames.ts';
import type { CameraMotionArrays, VisionSamplingOptions } from '../../src/vision/protocol.ts';

let session: CameraPageSession;
let dir: string;
let truth: Truth;

beforeAll(async () => {
  ({ dir, truth } = await ensureFixture('tiny'));
  await buildCameraPage();
  session = await openCameraPage();
}, FIXTURE_TIMEOUT_MS);
afterAll(async () => {
  await session?.close();
});

function source(shot: string) {
  const s = truth.sources.find((x) => x.shot === shot);
  if (!s) throw new Error(`the tiny fixture has no ${shot} camera`);
  return s;
}

function browserMotion(file: string, options: VisionSamplingOptions): Promise<CameraMotionArrays> {
  return pageMotion(session.page, session.addMedia(join(dir, file)), options);
}

function asSamples(m: CameraMotionArrays): MotionSamples {
  return {
    t: Float64Array.from(m.t),
    whole: Float32Array.from(m.whole),
    left: Float32Array.from(m.left),
    middle: Float32Array.from(m.middle),
    right: Float32Array.from(m.right),
    sceneCut: Uint8Array.from(m.sceneCut),
  };
}

function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

describe('vision worker (WebCodecs) against ffmpeg', () => {
  test('every frame of a close-up: the same motion series as the Node path, and the same answer', async () => {
    const cam = source('closeup');
    const web = await browserMotion(cam.file, { everyS: 0 });
    const node = motionFeatures(ffmpegLumaFrames(join(dir, cam.file), { fps: cam.video!.fps }));
    expect(web.frames).toBe(cam.video!.frames);
    // Chromium's software H.264 decoder gives I420: luma comes straight from the Y plane.
    expect(web.lumaPath).toBe('y-plane');
    expect(web.t.length).toBe(node.t.length);
    for (let i = 0; i < node.t.length; i += 50) expect(web.t[i]!).toBeCloseTo(node.t[i]!, 0);
    // The face is in the middle: there the series must agree closely. The side thirds of a
    // close-up hold little but coding noise, which the two scalers (ffmpeg bicubic, canvas
    // bilinear) render differently.
    expect(pearson(web.whole, node.whole)).toBeGreaterThan(0.95);
    expect(pearson(web.middle, node.middle)).toBeGreaterThan(0.95);
    expect(pearson(web.left, node.left)).toBeGreaterThan(0.3);
    expect(pearson(web.right, node.right)).toBeGreaterThan(0.3);
    const level = web.whole.reduce((s, x) => s + x, 0) / node.whole.reduce((s, x) => s + x, 0);
    expect(level).toBeGreaterThan(0.7);
    expect(level).toBeLessThan(1.4);
    const map = computeCameraMap({
      cameras: [{ sourceId: cam.file, samples: samplesToReference(asSamples(web), cam.offsetMs, cam.driftPpm) }],
      turns: truth.turns,
      minSpeechMs: 1000,
    });
    expect(map.cameras[0]).toMatchObject({ kind: 'closeup', speakers: cam.shows });
  });

  test("sampled runs start at keyframes, and the switched feed's cuts are found between and inside runs", async () => {
    const cam = source('switched');
    const web = await browserMotion(cam.file, { everyS: 3, framesPerRun: 10 });
    const keys = keyframeTimesS(join(dir, cam.file)).map((x) => x * 1000);
    expect(web.runs).toBeGreaterThan(1);
    expect(web.frames).toBeLessThanOrEqual(web.runs * 10);
    expect(web.progressCalls).toBe(web.runs);
    // The first frame of each run is a keyframe: a run's first sample follows it by one frame.
    const frameMs = 1000 / cam.video!.fps;
    const runFirst = web.t.filter((t, i) => i === 0 || t - web.t[i - 1]! > 2 * frameMs);
    for (const t of runFirst) {
      if (web.sceneCut[web.t.indexOf(t)]) continue; // a cut sample across the gap
      expect(
        keys.some((k) => Math.abs(k + frameMs - t) < 2),
        `run at ${t} ms`,
      ).toBe(true);
    }
    expect(web.sceneCut.reduce((s, x) => s + x, 0)).toBeGreaterThanOrEqual(2);
  });

  test('a close-up written as devices write it is sampled at the same times and mapped alike', async () => {
    const cam = source('closeup');
    const original = await browserMotion(cam.file, { everyS: 2 });
    const work = mkdtempSync(join(tmpdir(), 'multicam-camera-rates-'));
    try {
      // x264's default GOP (250 frames: 8.3 s at 29.97 fps, 10.4 s at 23.976 fps) with B-frames,
      // as a camera file re-encoded with ffmpeg's defaults; the runs used to start only there.
      const copies = [
        { name: 'cam-2997.mp4', args: ['-r', '30000/1001', '-c:a', 'aac', '-timecode', '01:00:00;00'] },
        { name: 'cam-23976.mkv', args: ['-r', '24000/1001', '-c:a', 'libopus'] },
      ];
      for (const copy of copies) {
        const out = join(work, copy.name);
        const res = spawnSync('ffmpeg', [
          ...['-v', 'error', '-i', join(dir, cam.file), '-c:v', 'libx264', '-preset', 'ultrafast'],
          ...['-g', '250', '-bf', '2', '-threads', '1', ...copy.args, out],
        ]);
        expect(res.status, res.stderr.toString()).toBe(0);
        const web = await pageMotion(session.page, session.addMedia(out), { everyS: 2 });
        expect(web.runs, copy.name).toBe(original.runs);
        // Each run's first sample (its second frame) falls within two frames of the original's.
        const firstOfRun = (m: CameraMotionArrays): number[] => m.t.filter((t, i) => i === 0 || t - m.t[i - 1]! > 250);
        const ours = firstOfRun(web);
        const theirs = firstOfRun(original);
        expect(ours).toHaveLength(theirs.length);
        ours.forEach((t, k) => expect(Math.abs(t - theirs[k]!), `${copy.name} run ${k}`).toBeLessThan(90));
        const map = computeCameraMap({
          cameras: [{ sourceId: cam.file, samples: samplesToReference(asSamples(web), cam.offsetMs, cam.driftPpm) }],
          turns: truth.turns,
          minSpeechMs: 1000,
        });
        expect(map.cameras[0], copy.name).toMatchObject({ kind: 'closeup', speakers: cam.shows });
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('the whole map in the worker: every camera of the 20 s set sampled with WebCodecs', async () => {
    const cameras = truth.sources
      .filter((s) => s.kind === 'video')
      .map((s) => ({
        sourceId: s.file,
        url: session.addMedia(join(dir, s.file)),
        offsetMs: s.offsetMs,
        driftPpm: s.driftPpm,
      }));
    const map = await session.page.evaluate(
      ([c, t]) => (window as unknown as { camera: CameraPageApi }).camera.map(c, t, { everyS: 0, minSpeechMs: 1000 }),
      [cameras, truth.turns] as const,
    );
    expect(map.version).toBe(1);
    for (const e of truth.expectedCameraMap.cameras) {
      const c = map.cameras.find((x) => x.sourceId === e.file)!;
      if (e.kind === 'closeup') expect(c, e.file).toMatchObject({ kind: 'closeup', speakers: e.speakers });
      if (e.reason === 'no_motion') expect(c.reason, e.file).toBe('no_motion');
      if (e.kind === 'multi') expect(c.kind, e.file).toBe('multi');
      // Never sure of a wrong answer.
      if (c.confidence === 'high') expect([c.kind, c.speakers], e.file).toEqual([e.kind, e.speakers]);
    }
  });

  test('a run can be cancelled', async () => {
    const cam = source('wide');
    const url = session.addMedia(join(dir, cam.file));
    const message = await session.page.evaluate(async (u) => {
      const camera = (window as unknown as { camera: CameraPageApi }).camera;
      const p = camera.motion(u, { everyS: 0, jobKey: 'k1' });
      await camera.cancel('k1');
      return p.then(
        () => 'finished',
        (e: unknown) => String(e),
      );
    }, url);
    expect(message).toMatch(/cancelled|abort/i);
  });
});
