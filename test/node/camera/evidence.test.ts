/**
 * Issue 51: the camera map says how much evidence each answer rests on (`support`), and under
 * autoMap a close-up whose answer rests on thin evidence is not used for its speaker: the job asks,
 * or shows them on the wide and says so (`camera_unused`).
 */
import { describe, expect, test } from 'vitest';
import { decideAutoMap, MIN_SAMPLED_TURNS, thinCloseups } from '../../../src/analysis/camera/automap.ts';
import { cameraSupport, computeCameraMap } from '../../../src/analysis/camera/camera-map.ts';
import type { MotionSamples } from '../../../src/analysis/camera/features.ts';
import type { CameraMap, CameraMapCamera, Turn } from '../../../src/contract/types.ts';
import { unusedCameraWarnings } from '../../../src/contract/warnings.ts';
import { conversation, syntheticSamples } from './synthetic.ts';

const [A, B, C] = ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02'] as const;

/** Runs of `frames` samples 40 ms apart starting at each of `startsMs`. */
function runsAt(startsMs: readonly number[], frames = 15): MotionSamples {
  const t = startsMs.flatMap((s) => Array.from({ length: frames }, (_, k) => s + 40 * (k + 1)));
  const n = t.length;
  return {
    t: Float64Array.from(t),
    whole: new Float32Array(n),
    left: new Float32Array(n),
    middle: new Float32Array(n),
    right: new Float32Array(n),
    sceneCut: new Uint8Array(n),
  };
}

describe('cameraSupport', () => {
  const turns: Turn[] = [
    { speaker: A, startMs: 0, endMs: 3_000 },
    { speaker: B, startMs: 3_500, endMs: 9_000 },
    { speaker: A, startMs: 10_000, endMs: 12_000 },
    { speaker: A, startMs: 20_000, endMs: 25_000 },
  ];

  test('counts the runs, and per speaker the turns the samples fall in and the speech they cover', () => {
    // Runs at 1 s (A's first turn), 5 s (B), 8.8 s (B's turn ends at 9 s: 4 of its 15 samples in
    // it) and 15 s (nobody).
    const s = cameraSupport(runsAt([1_000, 5_000, 8_800, 15_000]), turns, [A, B]);
    expect(s.runs).toBe(4);
    expect(s.samples).toBe(60);
    expect(s.turns).toEqual({ [A]: 1, [B]: 1 });
    // 15 samples of 40 ms in A's turn; 15 + 4 in B's.
    expect(s.seconds).toEqual({ [A]: 0.6, [B]: 0.8 });
  });

  test('a speaker the samples never fall on has no support, however much they talk', () => {
    const s = cameraSupport(runsAt([5_000, 15_000]), turns, [A, B]);
    expect(s.turns[A]).toBe(0);
    expect(s.seconds[A]).toBe(0);
  });

  test('every frame decoded: each turn is sampled', () => {
    const every = runsAt([0], 25_000 / 40);
    expect(cameraSupport(every, turns, [A, B]).turns).toEqual({ [A]: 3, [B]: 1 });
  });
});

describe('computeCameraMap states the evidence of each answer', () => {
  const speakers = [A, B, C];
  const duration = 10 * 60_000;
  const turns = conversation(speakers, duration, 3);

  test('every camera with samples has its support; one without has none', () => {
    const map = computeCameraMap({
      cameras: [
        { sourceId: 'a', samples: syntheticSamples({ kind: 'closeup', speaker: A }, turns, { durationMs: duration }) },
        { sourceId: 'gone', samples: null },
      ],
      turns,
    });
    const [a, gone] = map.cameras;
    expect(a!.support!.runs).toBe(300);
    for (const s of speakers) {
      expect(a!.support!.turns[s]).toBeGreaterThan(10);
      expect(a!.support!.seconds[s]).toBeGreaterThan(10);
    }
    expect(gone!.support).toBeUndefined();
  });

  test('the same footage sampled sparsely rests on fewer of each speaker’s turns', () => {
    const dense = syntheticSamples({ kind: 'closeup', speaker: A }, turns, { durationMs: duration, everyMs: 2_000 });
    const sparse = syntheticSamples({ kind: 'closeup', speaker: A }, turns, { durationMs: duration, everyMs: 60_000 });
    const turnsOf = (samples: MotionSamples): number =>
      computeCameraMap({ cameras: [{ sourceId: 'a', samples }], turns }).cameras[0]!.support!.turns[A]!;
    expect(turnsOf(sparse)).toBeLessThan(MIN_SAMPLED_TURNS);
    expect(turnsOf(dense)).toBeGreaterThan(4 * turnsOf(sparse));
  });
});

function cam(
  sourceId: string,
  kind: CameraMapCamera['kind'],
  confidence: CameraMapCamera['confidence'],
  speakers: string[],
  sampledTurns?: Record<string, number>,
): CameraMapCamera {
  return {
    sourceId,
    kind,
    confidence,
    speakers,
    ...(sampledTurns ? { support: { runs: 160, samples: 2240, turns: sampledTurns, seconds: {} } } : {}),
  };
}

function mapOf(cameras: CameraMapCamera[]): CameraMap {
  return { version: 1, speakers: [A, B, C], unassignedSpeakers: [], droppedSpeakers: [], cameras };
}

const talk = [
  { speaker: A, talkMs: 600_000 },
  { speaker: B, talkMs: 500_000 },
  { speaker: C, talkMs: 400_000 },
];
const plenty = { [A]: 40, [B]: 40, [C]: 40 };
const thinC = { [A]: 40, [B]: 40, [C]: MIN_SAMPLED_TURNS - 1 };

describe('autoMap always: a close-up on thin evidence is not shown for its speaker', () => {
  test('close-ups with plenty of sampled turns are used, low or high', () => {
    const map = mapOf([
      cam('a', 'closeup', 'high', [A], plenty),
      cam('b', 'closeup', 'low', [B], plenty),
      cam('c', 'closeup', 'low', [C], plenty),
    ]);
    expect(thinCloseups(map).size).toBe(0);
    expect(decideAutoMap({ mode: 'always', cameraMap: map, speakers: talk })).toEqual({
      action: 'map',
      tracks: [
        { sourceId: 'a', speakers: [A] },
        { sourceId: 'b', speakers: [B] },
        { sourceId: 'c', speakers: [C] },
      ],
    });
  });

  test('a thin close-up whose speaker is on no other camera: the job asks', () => {
    const map = mapOf([
      cam('a', 'closeup', 'high', [A], plenty),
      cam('b', 'closeup', 'high', [B], plenty),
      cam('c', 'closeup', 'low', [C], thinC),
    ]);
    expect([...thinCloseups(map)].map((c) => c.sourceId)).toEqual(['c']);
    expect(decideAutoMap({ mode: 'always', cameraMap: map, speakers: talk }).action).toBe('ask');
  });

  test('thin even when sure: a `high` answer on a handful of sampled turns is not used either', () => {
    const map = mapOf([
      cam('a', 'closeup', 'high', [A], plenty),
      cam('b', 'closeup', 'high', [B], plenty),
      cam('c', 'closeup', 'high', [C], thinC),
    ]);
    expect(decideAutoMap({ mode: 'always', cameraMap: map, speakers: talk }).action).toBe('ask');
    expect(decideAutoMap({ mode: 'confident', cameraMap: map, speakers: talk }).action).toBe('ask');
  });

  test('a thin close-up whose speaker the wide shows: mapped without it, and the Job says why', () => {
    const map = mapOf([
      cam('a', 'closeup', 'high', [A], plenty),
      cam('b', 'closeup', 'high', [B], plenty),
      cam('c', 'closeup', 'low', [C], thinC),
      cam('w', 'wide', 'low', [A, B, C], plenty),
    ]);
    const d = decideAutoMap({ mode: 'always', cameraMap: map, speakers: talk });
    expect(d).toEqual({
      action: 'map',
      tracks: [
        { sourceId: 'a', speakers: [A] },
        { sourceId: 'b', speakers: [B] },
        { sourceId: 'w', speakers: [A, B, C] },
      ],
    });
    const warnings = unusedCameraWarnings({
      sources: ['a', 'b', 'c', 'w'].map((id) => ({ id, kind: 'video', label: id })),
      tracks: d.action === 'map' ? d.tracks : [],
      speakers: [A, B, C],
      cameraMap: map,
    });
    expect(warnings.map((w) => [w.code, w.sourceId])).toEqual([['camera_unused', 'c']]);
    expect(warnings[0]!.message).toContain('not sure enough');
  });

  test('a map without support (no samples counted) is judged as before', () => {
    const map = mapOf([
      cam('a', 'closeup', 'high', [A]),
      cam('b', 'closeup', 'low', [B]),
      cam('c', 'closeup', 'low', [C]),
    ]);
    expect(decideAutoMap({ mode: 'always', cameraMap: map, speakers: talk }).action).toBe('map');
  });
});

describe('autoMap always: a likely switched feed is used only for speakers no camera shows better', () => {
  const feed = (sourceId: string, speakers: string[], z: Record<string, number>): CameraMapCamera => ({
    ...cam(sourceId, 'multi', 'low', speakers, plenty),
    z,
  });

  test('level meters read as feeds: each goes to the speaker it follows most, never to one with a close-up', () => {
    // The 30-minute tuning set's pictures sampled as the vision worker does (eval/long.ts, oracle):
    // a scrolling waveform and a lying meter read as switched feeds, the meter with its mic's bleed.
    const map = mapOf([
      cam('m1', 'closeup', 'high', [A], plenty),
      feed('m2', [B], { [A]: 0.51, [B]: 8.27, [C]: 0 }),
      feed('m3', [C, B, A], { [A]: 3.18, [B]: 5.63, [C]: 12.83 }),
      cam('w', 'wide', 'high', [C, A, B], plenty),
    ]);
    expect(decideAutoMap({ mode: 'always', cameraMap: map, speakers: talk })).toEqual({
      action: 'map',
      tracks: [
        { sourceId: 'm1', speakers: [A] },
        { sourceId: 'm2', speakers: [B] },
        { sourceId: 'm3', speakers: [C] },
        { sourceId: 'w', speakers: [C, A, B] },
      ],
    });
  });

  test('a real switched feed beside close-ups still shows the speaker who has no camera of their own', () => {
    const map = mapOf([
      cam('a', 'closeup', 'high', [A], plenty),
      cam('b', 'closeup', 'low', [B], plenty),
      feed('f', [A, B, C], { [A]: 4, [B]: 4, [C]: 4 }),
    ]);
    expect(decideAutoMap({ mode: 'always', cameraMap: map, speakers: talk })).toEqual({
      action: 'map',
      tracks: [
        { sourceId: 'a', speakers: [A] },
        { sourceId: 'b', speakers: [B] },
        { sourceId: 'f', speakers: [C] },
      ],
    });
  });

  test('a feed sampled in too few of a speaker’s turns is not used for them', () => {
    const map = mapOf([
      cam('a', 'closeup', 'high', [A], plenty),
      cam('b', 'closeup', 'high', [B], plenty),
      { ...feed('f', [C], { [C]: 6 }), support: { runs: 20, samples: 280, turns: { [C]: 3 }, seconds: {} } },
    ]);
    expect(decideAutoMap({ mode: 'always', cameraMap: map, speakers: talk }).action).toBe('ask');
  });
});
