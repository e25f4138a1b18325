import { describe, expect, test } from 'vitest';
import { computeCameraMap, MIN_SPEECH_MS } from '../../../src/analysis/camera/camera-map.ts';
import { conversation, syntheticSamples, type Layout } from './synthetic.ts';

const SPEAKERS = ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02'];
const DURATION = 10 * 60_000;
const turns = conversation(SPEAKERS, DURATION, 3);
const [A, B, C] = SPEAKERS as [string, string, string];

function mapOf(layouts: Layout[], extra: { lagMs?: number; gain?: number; minSpeechMs?: number } = {}) {
  return computeCameraMap({
    cameras: layouts.map((layout, i) => ({
      sourceId: `cam${i}`,
      samples: syntheticSamples(layout, turns, { durationMs: DURATION, seed: 11 + i, ...extra }),
    })),
    turns,
    now: '2026-01-01T00:00:00.000Z',
    ...(extra.minSpeechMs !== undefined ? { minSpeechMs: extra.minSpeechMs } : {}),
  });
}

describe('computeCameraMap on synthetic motion', () => {
  test('three close-ups: each mapped to its speaker with high confidence', () => {
    const map = mapOf([
      { kind: 'closeup', speaker: B },
      { kind: 'closeup', speaker: A },
      { kind: 'closeup', speaker: C },
    ]);
    expect(map.version).toBe(1);
    expect(map.computedAt).toBe('2026-01-01T00:00:00.000Z');
    expect(map.cameras.map((c) => [c.kind, c.confidence, c.speakers])).toEqual([
      ['closeup', 'high', [B]],
      ['closeup', 'high', [A]],
      ['closeup', 'high', [C]],
    ]);
    expect(map.unassignedSpeakers).toEqual([]);
    expect(map.cameras[0]!.z![B]).toBeGreaterThan(5);
    expect(Math.abs(map.cameras[0]!.z![A]!)).toBeLessThan(5);
  });

  test('two-shot and wide: kind, left-to-right order and positions', () => {
    const map = mapOf([
      { kind: 'twoshot', left: C, right: A },
      { kind: 'wide', left: B, middle: C, right: A },
    ]);
    const [two, wide] = map.cameras;
    expect(two).toMatchObject({
      kind: 'twoshot',
      confidence: 'high',
      speakers: [C, A],
      positions: { left: C, right: A },
    });
    expect(wide).toMatchObject({
      kind: 'wide',
      confidence: 'high',
      speakers: [B, C, A],
      positions: { left: B, middle: C, right: A },
    });
    // Nobody has a close-up, but all are on high-confidence cameras.
    expect(map.unassignedSpeakers).toEqual([]);
  });

  test('one speaker moving only one side of the picture is a close-up, but not a sure one (maybe half a two-shot)', () => {
    const map = mapOf([{ kind: 'twoshot', left: A, right: 'SPEAKER_99' }]);
    expect(map.cameras[0]).toMatchObject({ kind: 'closeup', confidence: 'low', speakers: [A] });
    expect(map.cameras[0]!.z![A]).toBeGreaterThan(5);
  });

  test('two responders in neighbouring thirds (a display off to one side, lit a little by bleed) are a close-up, never sure', () => {
    // Motion in the middle third follows B, in the right third A; the left third shows nobody.
    const map = mapOf([{ kind: 'wide', left: 'SPEAKER_99', middle: B, right: A }]);
    const cam = map.cameras[0]!;
    expect(cam).toMatchObject({ kind: 'closeup', confidence: 'low' });
    expect(cam.speakers).toHaveLength(1);
    expect([A, B]).toContain(cam.speakers[0]);
    // In the left and right thirds it stays a two-shot (the test above).
  });

  test('a frozen camera gets reason no_motion, no speakers, and leaves its speaker unassigned', () => {
    const map = mapOf([{ kind: 'closeup', speaker: A }, { kind: 'static' }]);
    expect(map.cameras[1]).toEqual({
      sourceId: 'cam1',
      kind: 'unknown',
      confidence: 'none',
      speakers: [],
      reason: 'no_motion',
      // What it was judged on: its samples, whether or not they moved (issue 51).
      support: expect.objectContaining({ runs: 300 }),
    });
    expect(map.unassignedSpeakers.sort()).toEqual([B, C].sort());
  });

  test('sample arrays of different lengths are refused, naming the camera and field', () => {
    const s = syntheticSamples({ kind: 'static' }, turns, { durationMs: 60_000 });
    expect(() =>
      computeCameraMap({ cameras: [{ sourceId: 'x', samples: { ...s, left: s.left.slice(1) } }], turns }),
    ).toThrow(/cameras\[0\]\.samples\.left/);
  });

  test('a camera with no samples at all cannot be analysed', () => {
    const map = computeCameraMap({ cameras: [{ sourceId: 'x', samples: null }], turns });
    expect(map.cameras[0]).toMatchObject({ kind: 'unknown', confidence: 'none', speakers: [], reason: 'no_motion' });
  });

  test('a switched feed is multi, never high', () => {
    const map = mapOf([{ kind: 'multi', speakers: [A, B], shotMs: 20_000 }]);
    expect(map.cameras[0]!.kind).toBe('multi');
    expect(map.cameras[0]!.confidence).not.toBe('high');
  });

  test('the lag search finds the picture running 400 ms late', () => {
    const map = mapOf([{ kind: 'closeup', speaker: A }], { lagMs: 400 });
    expect(map.cameras[0]).toMatchObject({ kind: 'closeup', confidence: 'high', speakers: [A] });
    expect(map.cameras[0]!.lagErrorS![A]).toBeCloseTo(0.4, 1);
  });

  test('motion that ignores speech gives no answer', () => {
    const map = mapOf([{ kind: 'closeup', speaker: A }], { gain: 0 });
    expect(map.cameras[0]).toMatchObject({ kind: 'unknown', confidence: 'none', speakers: [] });
    expect(map.unassignedSpeakers.length).toBe(3);
  });

  test('never sure by chance: motion unrelated to speech, 12 conversations × 3 cameras, no high answer', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const t = conversation(SPEAKERS, 120_000, 100 + seed);
      const map = computeCameraMap({
        cameras: [0, 1, 2].map((i) => ({
          sourceId: `c${i}`,
          samples: syntheticSamples({ kind: 'wide', left: A, middle: B, right: C }, t, {
            durationMs: 120_000,
            gain: 0,
            seed: seed * 10 + i,
          }),
        })),
        turns: t,
        minSpeechMs: 1000,
      });
      for (const c of map.cameras) expect(c.confidence, `seed ${seed} ${c.sourceId}`).not.toBe('high');
    }
  });

  test('speakers under the minimum (1 s) are dropped and placed on no camera; under 10 s nobody is sure', () => {
    const few = [...turns, { speaker: 'SPEAKER_09', startMs: 1000, endMs: 1600 }];
    const map = computeCameraMap({
      cameras: [
        { sourceId: 'c', samples: syntheticSamples({ kind: 'closeup', speaker: A }, few, { durationMs: DURATION }) },
      ],
      turns: few,
    });
    expect(map.droppedSpeakers).toEqual(['SPEAKER_09']);
    expect(map.speakers.length).toBe(3);
    expect(MIN_SPEECH_MS).toBe(1_000);
    expect(map.cameras.flatMap((c) => c.speakers)).not.toContain('SPEAKER_09');
    // Short conversations are judged, but an answer on under 10 s of speech is never sure.
    const short = turns.filter((x) => x.endMs < 12_000);
    const shortMap = computeCameraMap({
      cameras: [
        { sourceId: 'c', samples: syntheticSamples({ kind: 'closeup', speaker: A }, short, { durationMs: 12_000 }) },
      ],
      turns: short,
    });
    expect(shortMap.speakers.length).toBeGreaterThan(0);
    expect(shortMap.cameras[0]!.confidence).not.toBe('high');
  });
});
