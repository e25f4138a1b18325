/**
 * The frame sampler's runs at every frame rate and keyframe spacing (issue 52, "every stage at
 * every rate"): a test double stands for the decoder (frame timestamps and keyframes as devices
 * write them: 29.97 fps with 250-frame GOPs, 23.976 fps in MKV with a non-zero first timestamp,
 * 25 fps, a variable rate with dropped frames), and the same planned runs must come out of each,
 * decoded no more than once.
 */
import { describe, expect, test } from 'vitest';
import { computeCameraMap } from '../../../src/analysis/camera/camera-map.ts';
import { motionFeatures, type LumaFrame } from '../../../src/analysis/camera/features.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';
import { runStart, sampleRuns, type RunFrame, type RunSource } from '../../../src/vision/run-plan.ts';
import { conversation } from './synthetic.ts';

/** A video as the sampler sees it: frame timestamps (s, ascending) and which are keyframes. */
interface Track {
  name: string;
  times: number[];
  keys: Set<number>;
}

/** A constant-rate track: `num/den` fps, a keyframe every `gop` frames, from `firstS`. */
function cfr(name: string, num: number, den: number, seconds: number, gop: number, firstS = 0): Track {
  const n = Math.floor((seconds * num) / den);
  const times = Array.from({ length: n }, (_, i) => firstS + (i * den) / num);
  return { name, times, keys: new Set(times.filter((_, i) => i % gop === 0)) };
}

/** A phone-like variable rate: 30 fps with a few ms of jitter and every 9th frame dropped, keyframes every ~8 s. */
function vfr(seconds: number): Track {
  const times: number[] = [];
  for (let i = 1; i < seconds * 30; i++) if (i % 9 !== 0) times.push(i / 30 + 0.004 * Math.sin(i));
  return { name: 'VFR ~27 fps, GOP 250', times, keys: new Set(times.filter((_, i) => i % 250 === 0)) };
}

interface TestFrame extends RunFrame {
  index: number;
}

/**
 * Test double of mediabunny's sinks over a {@link Track}: `framesFrom(t)` decodes from the
 * keyframe at or before `t` and hands out frames from the one shown at `t`; `decodedTotal` counts
 * every frame it decoded, handed out or not (a seek decodes from its keyframe again).
 */
class FakeDecoder implements RunSource<TestFrame> {
  decodedTotal = 0;
  open = 0;
  constructor(private readonly track: Track) {}

  keyAt(t: number): Promise<number | null> {
    const keys = this.track.times.filter((x) => this.track.keys.has(x) && x <= t);
    return Promise.resolve(keys.length ? keys[keys.length - 1]! : null);
  }

  framesFrom(t: number): AsyncIterator<TestFrame> {
    const { times, keys } = this.track;
    let i = times.findLastIndex((x) => keys.has(x) && x <= t);
    if (i < 0) i = 0;
    const shown = Math.max(
      i,
      times.findLastIndex((x) => x <= t),
    );
    this.open++;
    let closed = false;
    return {
      next: () => {
        while (!closed && i < times.length) {
          this.decodedTotal++;
          const index = i++;
          if (index >= shown)
            return Promise.resolve({ done: false, value: { index, timestamp: times[index]!, close() {} } });
        }
        return Promise.resolve({ done: true, value: undefined });
      },
      return: () => {
        if (!closed) this.open--;
        closed = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}

/** The sampler's plan: runs of 15 frames every 2 s, frames at least 24 ms apart (src/vision/frame-sampler.ts). */
async function sample(track: Track, spacingS = 2, perRun = 15, endS = track.times.at(-1)! + 0.05) {
  const decoder = new FakeDecoder(track);
  const taken: Array<{ t: number; index: number; first: boolean }> = [];
  const plan = { firstS: track.times[0]!, endS, spacingS, perRun, minStepS: 0.024 };
  const runs = await sampleRuns(decoder, plan, (frame, first) => {
    taken.push({ t: frame.timestamp, index: frame.index, first });
    return Promise.resolve();
  });
  return { runs, taken, decoder, starts: taken.filter((f) => f.first).map((f) => f.t) };
}

const SECONDS = 75;
const DEVICE_TRACKS: Track[] = [
  cfr('25 fps, keyframe every 2 s (the fixtures)', 25, 1, SECONDS, 50),
  cfr('29.97 fps MP4, GOP 250', 30000, 1001, SECONDS, 250),
  cfr('23.976 fps MKV, GOP 250, first frame at 7 ms', 24000, 1001, SECONDS, 250, 0.007),
  cfr('25 fps MOV, GOP 250', 25, 1, SECONDS, 250),
  cfr('30 fps, GOP 300', 30, 1, SECONDS, 300),
  vfr(SECONDS),
];

describe('runStart', () => {
  test('a keyframe the decoder has not reached and at most half a spacing early is where the run starts', () => {
    expect(runStart(4, 4, 2.5, 2)).toEqual({ startS: 4, seek: true });
    expect(runStart(4, 3.2, 2.5, 2)).toEqual({ startS: 3.2, seek: true });
  });
  test('a keyframe further back: seek there and decode to the planned time', () => {
    expect(runStart(10, 8.34, 6.5, 2)).toEqual({ startS: 10, seek: true });
  });
  test('a keyframe behind the decoder: decode on to the planned time', () => {
    expect(runStart(4, 0, 2.5, 2)).toEqual({ startS: 4, seek: false });
    expect(runStart(4, 2.5, 2.5, 2)).toEqual({ startS: 4, seek: false });
  });
});

describe('sampleRuns: the same runs at every frame rate and keyframe spacing', () => {
  test.each(DEVICE_TRACKS.map((t) => [t.name, t] as const))(
    '%s: a run every 2 s, each within a frame of its planned time',
    async (_, track) => {
      const { runs, starts, taken } = await sample(track);
      const first = track.times[0]!;
      const planned = Array.from(
        { length: Math.ceil((track.times.at(-1)! + 0.05 - first) / 2) },
        (_, k) => first + 2 * k,
      );
      // Before issue 52's fix: one run per keyframe (9 at 29.97 fps, 8 at 23.976 fps).
      expect(runs).toBe(planned.length);
      expect(starts).toHaveLength(planned.length);
      starts.forEach((s, k) => {
        expect(s, `run ${k}`).toBeGreaterThanOrEqual(planned[k]! - 1 - 1e-9);
        expect(s - planned[k]!, `run ${k}`).toBeLessThan(0.07);
      });
      // Runs of consecutive frames, no frame twice.
      const indices = taken.map((f) => f.index);
      expect(new Set(indices).size).toBe(indices.length);
      for (let i = 1; i < taken.length; i++) if (!taken[i]!.first) expect(indices[i]).toBe(indices[i - 1]! + 1);
      // (The VFR track's dropped frames are 67 ms steps, its jitter ±8 ms: no frame is passed over.)
      expect(taken.filter((f) => !f.first).length).toBe(planned.length * 14);
    },
  );

  test.each([
    ['60 fps phone, GOP 60', cfr('60', 60, 1, SECONDS, 60), 1000 / 30],
    ['50 fps, GOP 100', cfr('50', 50, 1, SECONDS, 100), 1000 / 25],
    ['59.94 fps, GOP 250', cfr('59.94', 60000, 1001, SECONDS, 250), 1001 / 30],
  ] as const)('%s: every other frame, so frame steps are those of 30 or 25 fps', async (_, track, stepMs) => {
    const { runs, taken } = await sample(track);
    expect(runs).toBe(38);
    expect(taken).toHaveLength(38 * 15);
    for (let i = 1; i < taken.length; i++)
      if (!taken[i]!.first) expect((taken[i]!.t - taken[i - 1]!.t) * 1000).toBeCloseTo(stepMs, 3);
  });

  test('keyframes at the planned times: runs start at them and nothing is decoded beyond the runs (as before)', async () => {
    const { starts, decoder, taken } = await sample(cfr('25 fps, GOP 50', 25, 1, SECONDS, 50));
    expect(starts).toEqual(Array.from({ length: 38 }, (_, k) => 2 * k));
    expect(decoder.decodedTotal).toBe(taken.length);
  });

  test('a long GOP: frames between runs are decoded on the way, none twice', async () => {
    const track = cfr('29.97 fps, GOP 250', 30000, 1001, SECONDS, 250);
    const { decoder } = await sample(track);
    expect(decoder.decodedTotal).toBeLessThanOrEqual(track.times.length);
    expect(decoder.open).toBe(0);
  });

  test('keyframes 2.9 s apart: runs at keyframes up to a second early, else at the planned time', async () => {
    const track = cfr('30 fps, GOP 87', 30, 1, 20, 87);
    const { starts, decoder } = await sample(track);
    expect(starts.map((s) => Math.round(s * 100) / 100)).toEqual([0, 2, 4, 5.8, 8, 10, 11.6, 14, 16, 17.4]);
    expect(decoder.decodedTotal).toBeLessThanOrEqual(track.times.length);
  });

  test('every frame (spacing 0): one run, a detection every perRun frames', async () => {
    const track = cfr('23.976', 24000, 1001, 3, 250, 0.007);
    const { runs, taken } = await sample(track, 0, 15);
    expect(runs).toBe(1);
    expect(taken).toHaveLength(track.times.length);
    expect(taken.filter((f) => f.first).map((f) => f.index)).toEqual([0, 15, 30, 45, 60]);
  });

  test('a cancelled signal stops it, and the decode is closed', async () => {
    const decoder = new FakeDecoder(cfr('30', 30, 1, 20, 300));
    const abort = new AbortController();
    const done = sampleRuns(
      decoder,
      { firstS: 0, endS: 20, spacingS: 2, perRun: 15, minStepS: 0.024 },
      () => {
        abort.abort(new Error('stop'));
        return Promise.resolve();
      },
      { signal: abort.signal },
    );
    await expect(done).rejects.toThrow('stop');
    expect(decoder.open).toBe(0);
  });
});

describe('the camera map of a close-up does not depend on its frame rate or keyframes', () => {
  const W = 48;
  const H = 27;
  const turns = conversation(['A', 'B'], SECONDS * 1000, 5);
  /** The picture at time `s`: still noise, with the middle third flickering while A speaks. */
  function picture(s: number): Uint8Array {
    const rnd = seededRandom(Math.round(s * 1e6));
    const speaking = turns.some((x) => x.speaker === 'A' && s * 1000 >= x.startMs && s * 1000 < x.endMs);
    const luma = new Uint8Array(W * H);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const middle = x >= 16 && x < 32 && y >= 9 && y < 18;
        luma[y * W + x] = 100 + (x % 7) * 3 + Math.round(rnd() * (middle && speaking ? 24 : 2));
      }
    return luma;
  }

  test.each(DEVICE_TRACKS.map((t) => [t.name, t] as const))("%s: A's close-up, sure", async (_, track) => {
    const { taken } = await sample(track);
    const frames: LumaFrame[] = taken.map((f) => ({ t: f.t * 1000, luma: picture(f.t), width: W, height: H }));
    const map = computeCameraMap({ cameras: [{ sourceId: 'cam', samples: motionFeatures(frames) }], turns });
    expect(map.cameras[0]).toMatchObject({ kind: 'closeup', speakers: ['A'], confidence: 'high' });
  });
});
