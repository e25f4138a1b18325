/**
 * The active-speaker slot's wiring without the model: which decoded frame stands for each
 * 25 fps slot (30 fps runs resampled by time), the crops a run collects, how the probe hands
 * them and the camera's sound to a scorer and puts the logits on its faces, and which series
 * (model or mouth motion) a camera's faces are judged by, with the fallbacks.
 */
import { describe, expect, it } from 'vitest';
import {
  ASD_CROP_SIZE,
  asdAudioSamples,
  asdMfccFrameCount,
  asdSlotAt,
  asdSlotRange,
} from '../../../src/analysis/faces/asd-features.ts';
import type { FaceDetection } from '../../../src/analysis/faces/blazeface-decode.ts';
import { speakingActivity, trackFaces, type FaceRun } from '../../../src/analysis/faces/face-tracks.ts';
import { AsdRunCrops } from '../../../src/vision/asd-crops.ts';
import { FaceProbe, type ActiveSpeakerScorer, type LumaPlane, type RunSound } from '../../../src/vision/face-probe.ts';

const CROP = ASD_CROP_SIZE * ASD_CROP_SIZE;
const SIDE = 200;

/** A square frame of one grey level (video range), so a crop says which frame it came from. */
function plane(level: number): LumaPlane {
  return { data: new Uint8Array(SIDE * SIDE).fill(level), offset: 0, stride: SIDE, width: SIDE, height: SIDE };
}
/** Frame i's level, and what a crop of it holds (video range stretched to 0..255). */
const level = (i: number): number => 16 + 10 * i;
const cropValue = (i: number): number => ((level(i) - 16) * 255) / 219;
/** Which frame a crop value came from. */
const frameOf = (v: number): number => Math.round((v * 219) / 255 / 10);

/** 30 fps frame times (ms) as a 30000/1001 or 30/1 track rounds them. */
const at30 = (i: number, ntsc = false): number => (ntsc ? (i * 1001) / 30 : (i * 1000) / 30);

/** One face in the middle of the (single-tile) frame. */
const detector = async (): Promise<FaceDetection[]> => [
  {
    score: 0.9,
    cx: 0.5,
    cy: 0.4,
    w: 0.3,
    h: 0.3,
    keypoints: [
      [0.45, 0.35],
      [0.55, 0.35],
      [0.5, 0.42],
      [0.5, 0.5],
      [0.36, 0.37],
      [0.64, 0.37],
    ],
  },
];

describe('25 fps slots of a decoded run', () => {
  it('resamples a 30 fps run by time: five frames of six stand for a slot, the sixth is skipped', () => {
    const t0 = 1000;
    const used = Array.from({ length: 15 }, (_, i) => {
      const from = t0 + at30(i);
      const until = t0 + (i < 14 ? at30(i + 1) : at30(15));
      const { first, end } = asdSlotRange(t0, from, until);
      return end - first;
    });
    expect(used).toEqual([1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1]);
    // 15 frames of 30 fps last 500 ms: 13 slots (0 to 480 ms).
    expect(used.reduce((a, b) => a + b, 0)).toBe(13);
  });

  it('takes a 25 fps run frame for frame, and rounded 29.97 fps timestamps as 30 fps', () => {
    for (let i = 0; i < 25; i++) expect(asdSlotRange(0, 40 * i, 40 * (i + 1))).toEqual({ first: i, end: i + 1 });
    const ntsc = Array.from({ length: 7 }, (_, i) =>
      asdSlotRange(0, Math.round(at30(i, true)), Math.round(at30(i + 1, true))),
    );
    expect(ntsc.map((r) => r.end - r.first)).toEqual([1, 1, 1, 1, 1, 0, 1]);
  });

  it('finds the slot on screen at a frame time, and the sound that gives each slot four MFCC frames', () => {
    expect([0, 33.3, 39.5, 40, 166.7, 200].map((t) => asdSlotAt(0, t))).toEqual([0, 0, 1, 1, 4, 5]);
    for (const slots of [1, 13, 21, 25]) expect(asdMfccFrameCount(asdAudioSamples(slots))).toBe(4 * slots);
    expect(asdAudioSamples(0)).toBe(0);
  });
});

describe('AsdRunCrops', () => {
  it('puts the frame on screen at each slot in it: 15 frames at 30 fps give 13 crops, frames 5 and 11 unused', () => {
    const crops = new AsdRunCrops(500, [{ mx: 100, my: 80, bs: 30 }]);
    for (let i = 0; i < 15; i++) crops.frame(plane(level(i)), 500 + at30(i));
    const { slots, crops: perFace } = crops.finish();
    expect(slots).toBe(13);
    expect(perFace[0]!.length).toBe(13 * CROP);
    const frames = Array.from({ length: slots }, (_, k) => frameOf(perFace[0]![k * CROP + 57 * ASD_CROP_SIZE + 40]!));
    expect(frames).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 12, 13, 14]);
    // The whole crop is that frame's picture (the window lies inside the frame).
    expect(perFace[0]!.subarray(5 * CROP, 6 * CROP).every((v) => Math.abs(v - cropValue(6)) < 1e-4)).toBe(true);
  });

  it('lets a frame stand for every slot until the next one (a gap in the decoded frames), and keeps faces apart', () => {
    const crops = new AsdRunCrops(0, [
      { mx: 50, my: 60, bs: 20 },
      { mx: 150, my: 60, bs: 20 },
    ]);
    const times = [0, 40, 160, 200]; // 80 and 120 ms missing
    const halves = (i: number): LumaPlane => {
      const p = plane(level(i));
      for (let y = 0; y < SIDE; y++) p.data.fill(level(i + 10), y * SIDE + 100, y * SIDE + SIDE);
      return p;
    };
    times.forEach((t, i) => crops.frame(halves(i), t));
    const { slots, crops: perFace } = crops.finish();
    expect(slots).toBe(6);
    const frames = (face: number): number[] =>
      Array.from({ length: slots }, (_, k) => frameOf(perFace[face]![k * CROP + 56 * ASD_CROP_SIZE + 56]!));
    expect(frames(0)).toEqual([0, 1, 1, 1, 2, 3]);
    expect(frames(1)).toEqual([10, 11, 11, 11, 12, 13]);
  });
});

/** Runs of `frames` 30 fps frames every 2 s through a probe. */
async function probeRuns(probe: FaceProbe, sound: RunSound | string, runs = 3, frames = 15): Promise<FaceRun[]> {
  for (let r = 0; r < runs; r++) {
    for (let i = 0; i < frames; i++) {
      const first = i === 0;
      if (first) await probe.endRun(sound);
      await probe.frame(plane(level(i)), 2000 * r + at30(i), first);
    }
  }
  await probe.endRun(sound);
  return probe.runs;
}

describe('FaceProbe with an active-speaker model', () => {
  it('hands each run’s crops and the camera’s sound over the same time to the model, and puts its logit at each frame time', async () => {
    const calls: Array<{ slots: number; sound: number; from: number }> = [];
    const asked: Array<{ fromMs: number; samples: number }> = [];
    const sound: RunSound = async (fromMs, samples) => {
      asked.push({ fromMs, samples });
      return new Float32Array(samples).fill(fromMs);
    };
    // The logit of a slot: the frame its crop came from.
    const scorer: ActiveSpeakerScorer = async (crops, audio, slots) => {
      calls.push({ slots, sound: audio.length, from: audio[0]! });
      return Float32Array.from({ length: slots }, (_, k) => frameOf(crops[k * CROP + 57 * ASD_CROP_SIZE + 56]!));
    };
    const probe = new FaceProbe(detector, { activeSpeaker: scorer });
    expect(probe.wantsSound).toBe(true);
    const runs = await probeRuns(probe, sound);
    expect(asked).toEqual([0, 2000, 4000].map((fromMs) => ({ fromMs, samples: asdAudioSamples(13) })));
    expect(calls).toEqual([0, 2000, 4000].map((from) => ({ slots: 13, sound: asdAudioSamples(13), from })));
    expect(probe.asdRuns).toBe(3);
    expect(probe.asdFallback).toBeUndefined();
    const face = runs[1]!.faces[0]!;
    expect(face.t.length).toBe(14);
    expect(face.asd?.length).toBe(14);
    // Frame i (from 1) at i·33.3 ms gets the logit of the slot on screen then, ⌊(t + 1) / 40⌋,
    // whose crop is the frame on screen at the slot's time.
    expect(face.asd).toEqual([0, 1, 2, 3, 4, 6, 6, 7, 8, 9, 10, 12, 12, 13]);
    expect(trackFaces(runs).activity).toBe('asd');
    expect(Array.from(trackFaces(runs).tracks[0]!.activity.subarray(0, 14))).toEqual(face.asd);
  });

  it('falls back to mouth motion, saying why, when the camera has no sound or the model fails', async () => {
    const scorer: ActiveSpeakerScorer = async (_c, _a, slots) => new Float32Array(slots).fill(1);
    const silent = new FaceProbe(detector, { activeSpeaker: scorer });
    const runs = await probeRuns(silent, 'the camera has no audio track');
    expect(silent.asdFallback).toBe('the camera has no audio track');
    expect(runs.every((r) => r.faces.every((f) => f.asd === undefined))).toBe(true);
    expect(trackFaces(runs).activity).toBe('mouth');

    let n = 0;
    const failing: ActiveSpeakerScorer = async (_c, _a, slots) => {
      if (++n === 2) throw new Error('session run failed');
      return new Float32Array(slots).fill(1);
    };
    const broken = new FaceProbe(detector, { activeSpeaker: failing });
    const some = await probeRuns(broken, async (_f, samples) => new Float32Array(samples));
    expect(broken.asdFallback).toMatch(/failed on the run at 2\.0 s: session run failed/);
    expect(n).toBe(2); // not asked again after the failure
    expect(some.map((r) => r.faces[0]!.asd !== undefined)).toEqual([true, false, false]);
    const tracked = trackFaces(some);
    expect(tracked.activity).toBe('mouth');
    expect(tracked.activityNote).toBe('the active-speaker model scored 1 of 3 faces');
    // Mouth motion of a uniform picture: each frame differs from the last by 10 levels.
    expect(tracked.tracks[0]!.activity[0]).toBeCloseTo(10);
  });

  it('lets a cancellation through', async () => {
    const scorer: ActiveSpeakerScorer = async () => {
      throw new DOMException('cancelled', 'AbortError');
    };
    const probe = new FaceProbe(detector, { activeSpeaker: scorer });
    await expect(probeRuns(probe, async (_f, samples) => new Float32Array(samples))).rejects.toThrow('cancelled');
  });

  it('asks for no sound and scores nothing without a model', async () => {
    const probe = new FaceProbe(detector);
    expect(probe.wantsSound).toBe(false);
    const runs = await probeRuns(probe, 'no active-speaker model');
    expect(probe.asdFallback).toBeUndefined();
    expect(trackFaces(runs)).toMatchObject({ activity: 'mouth' });
    expect(trackFaces(runs).activityNote).toBeUndefined();
  });
});

describe('speakingActivity', () => {
  const face = (t: number[], asd?: number[]): FaceRun['faces'][number] => ({
    score: 1,
    cx: 0.5,
    cy: 0.5,
    w: 0.2,
    h: 0.2,
    mx: 0.5,
    my: 0.6,
    t,
    mouth: t.map(() => 3),
    ...(asd ? { asd } : {}),
  });

  it('uses the model only when it scored every face with samples; a run face without samples does not count', () => {
    expect(speakingActivity([{ t: 0, faces: [face([1, 2], [0.5, 0.7]), face([], undefined)] }])).toEqual({
      activity: 'asd',
    });
    expect(speakingActivity([{ t: 0, faces: [face([1, 2], [0.5, 0.7]), face([1, 2])] }])).toEqual({
      activity: 'mouth',
      activityNote: 'the active-speaker model scored 1 of 2 faces',
    });
    // Logits that do not cover the samples are not trusted.
    expect(speakingActivity([{ t: 0, faces: [face([1, 2], [0.5])] }]).activity).toBe('mouth');
    expect(speakingActivity([])).toEqual({ activity: 'mouth' });
  });

  it('gives the tracks the logits as activity, on one scale for the whole camera', () => {
    const runs: FaceRun[] = [0, 2000].map((t) => ({
      t,
      faces: [
        { ...face([t + 40, t + 80], [2, 3]), cx: 0.3 },
        { ...face([t + 40, t + 80], [-1, -2]), cx: 0.7 },
      ],
    }));
    const { tracks, activity } = trackFaces(runs);
    expect(activity).toBe('asd');
    expect(Array.from(tracks[0]!.activity)).toEqual([2, 3, 2, 3]);
    expect(Array.from(tracks[1]!.activity)).toEqual([-1, -2, -1, -2]);
  });
});
