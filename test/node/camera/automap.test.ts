import { describe, expect, test } from 'vitest';
import { decideAutoMap } from '../../../src/analysis/camera/automap.ts';
import type { CameraMap, CameraMapCamera } from '../../../src/contract/types.ts';

const [A, B, C] = ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02'] as const;
const talk = [
  { speaker: A, talkMs: 300_000 },
  { speaker: B, talkMs: 900_000 },
  { speaker: C, talkMs: 500_000 },
];

function cam(
  sourceId: string,
  kind: CameraMapCamera['kind'],
  confidence: CameraMapCamera['confidence'],
  speakers: string[],
  extra: Partial<CameraMapCamera> = {},
): CameraMapCamera {
  return { sourceId, kind, confidence, speakers: confidence === 'none' ? [] : speakers, ...extra };
}

function map(cameras: CameraMapCamera[], speakers: string[] = [A, B, C]): CameraMap {
  const sure = new Set(cameras.filter((c) => c.confidence === 'high').flatMap((c) => c.speakers));
  return {
    version: 1,
    speakers,
    unassignedSpeakers: speakers.filter((s) => !sure.has(s)),
    droppedSpeakers: [],
    cameras,
  };
}

const allSure = map([
  cam('s1', 'closeup', 'high', [A]),
  cam('s2', 'closeup', 'high', [B]),
  cam('s3', 'closeup', 'high', [C]),
  cam('s4', 'wide', 'high', [A, B, C]),
  cam('s5', 'unknown', 'none', [], { reason: 'no_motion' }),
]);

describe('autoMap off', () => {
  test('always asks, with the proposal, even when sure', () => {
    expect(decideAutoMap({ mode: 'off', cameraMap: allSure, speakers: talk })).toEqual({
      action: 'ask',
      cameraMap: allSure,
    });
  });
});

describe('autoMap confident', () => {
  test('sure: every judged speaker has a high close-up → map; the wide is used in the edit; cameras that are not sure get nobody', () => {
    expect(decideAutoMap({ mode: 'confident', cameraMap: allSure, speakers: talk })).toEqual({
      action: 'map',
      tracks: [
        { sourceId: 's1', speakers: [A] },
        { sourceId: 's2', speakers: [B] },
        { sourceId: 's3', speakers: [C] },
        { sourceId: 's4', speakers: [A, B, C] },
      ],
    });
  });

  test('a low-confidence camera is not a sure answer → ask with the proposal', () => {
    const m = map([
      cam('s1', 'closeup', 'high', [A]),
      cam('s2', 'closeup', 'high', [B]),
      cam('s3', 'closeup', 'low', [C]),
    ]);
    expect(decideAutoMap({ mode: 'confident', cameraMap: m, speakers: talk })).toEqual({ action: 'ask', cameraMap: m });
  });

  test("a wide or two-shot never counts as a speaker's own camera", () => {
    const viaWide = map([
      cam('s1', 'closeup', 'high', [A]),
      cam('s2', 'closeup', 'high', [B]),
      cam('s3', 'wide', 'high', [A, B, C]),
    ]);
    expect(decideAutoMap({ mode: 'confident', cameraMap: viaWide, speakers: talk }).action).toBe('ask');
    const viaTwo = map([cam('s1', 'closeup', 'high', [A]), cam('s2', 'twoshot', 'high', [B, C])]);
    expect(decideAutoMap({ mode: 'confident', cameraMap: viaTwo, speakers: talk }).action).toBe('ask');
  });

  test('a switched feed holds it back even when every speaker has a close-up', () => {
    const m = map([...allSure.cameras, cam('s6', 'multi', 'low', [A, B])]);
    expect(decideAutoMap({ mode: 'confident', cameraMap: m, speakers: talk })).toEqual({ action: 'ask', cameraMap: m });
  });

  test('nobody judged (a short clip) → ask', () => {
    const m = map([cam('s1', 'closeup', 'none', [])], []);
    expect(decideAutoMap({ mode: 'confident', cameraMap: m, speakers: talk }).action).toBe('ask');
  });

  test('no proposal computable → ask without a camera map', () => {
    expect(decideAutoMap({ mode: 'confident', cameraMap: null, speakers: talk })).toEqual({
      action: 'ask',
      cameraMap: null,
    });
  });
});

describe('autoMap always', () => {
  test('sure answers first, then likely ones of speakers with enough speech; cameras without an answer get nobody', () => {
    const m = map(
      [
        cam('s1', 'closeup', 'high', [A]),
        cam('s2', 'closeup', 'low', [B]),
        cam('s3', 'twoshot', 'low', [B, C]),
        cam('s4', 'unknown', 'none', [], { reason: 'no_motion' }),
      ],
      [A, B, C],
    );
    expect(decideAutoMap({ mode: 'always', cameraMap: m, speakers: talk })).toEqual({
      action: 'map',
      tracks: [
        { sourceId: 's1', speakers: [A] },
        { sourceId: 's2', speakers: [B] },
        { sourceId: 's3', speakers: [B, C] },
      ],
    });
  });

  test('never a guess: a speaker with enough speech on no camera while a camera has no answer → ask', () => {
    const m = map([
      cam('s1', 'closeup', 'high', [A]),
      cam('s2', 'unknown', 'none', []),
      cam('s3', 'closeup', 'low', [B]),
    ]);
    expect(decideAutoMap({ mode: 'always', cameraMap: m, speakers: talk })).toEqual({ action: 'ask', cameraMap: m });
    // Every camera answered (or frozen): C is on none, and the edit goes on without a guess.
    const full = map([
      cam('s1', 'closeup', 'high', [A]),
      cam('s3', 'closeup', 'low', [B]),
      cam('s4', 'unknown', 'none', [], { reason: 'no_motion' }),
    ]);
    expect(decideAutoMap({ mode: 'always', cameraMap: full, speakers: talk }).action).toBe('map');
  });

  test('a likely close-up another camera contradicts is never shown for that speaker (issue 51)', () => {
    // B has a sure close-up on s2: s3's likely "B" shows someone else. C is on the wide: map, s3 unused.
    const sureElsewhere = map([
      cam('s1', 'closeup', 'high', [A]),
      cam('s2', 'closeup', 'high', [B]),
      cam('s3', 'closeup', 'low', [B]),
      cam('s4', 'wide', 'high', [A, B, C]),
    ]);
    expect(decideAutoMap({ mode: 'always', cameraMap: sureElsewhere, speakers: talk })).toEqual({
      action: 'map',
      tracks: [
        { sourceId: 's1', speakers: [A] },
        { sourceId: 's2', speakers: [B] },
        { sourceId: 's4', speakers: [A, B, C] },
      ],
    });
    // Two likely close-ups both claim B: neither is shown for B; B is on no camera while both
    // close-ups are open, so a person says (the hour: one person's face for another's speech).
    const twoClaims = map([
      cam('s1', 'closeup', 'high', [A]),
      cam('s2', 'closeup', 'low', [B]),
      cam('s3', 'closeup', 'low', [B]),
    ]);
    expect(decideAutoMap({ mode: 'always', cameraMap: twoClaims, speakers: talk })).toEqual({
      action: 'ask',
      cameraMap: twoClaims,
    });
  });

  test('likely answers on too little speech are not used: a short clip asks', () => {
    const short = [
      { speaker: A, talkMs: 6_000 },
      { speaker: B, talkMs: 4_000 },
    ];
    const m = map([cam('s1', 'closeup', 'low', [A]), cam('s2', 'closeup', 'low', [B])], [A, B]);
    expect(decideAutoMap({ mode: 'always', cameraMap: m, speakers: short })).toEqual({ action: 'ask', cameraMap: m });
  });

  test('maps a switched feed too', () => {
    const m = map([cam('s1', 'closeup', 'high', [A]), cam('s2', 'multi', 'low', [B, C])]);
    expect(decideAutoMap({ mode: 'always', cameraMap: m, speakers: talk })).toEqual({
      action: 'map',
      tracks: [
        { sourceId: 's1', speakers: [A] },
        { sourceId: 's2', speakers: [B, C] },
      ],
    });
  });

  test('asks when no proposal can be computed or none is usable', () => {
    expect(decideAutoMap({ mode: 'always', cameraMap: null, speakers: talk })).toEqual({
      action: 'ask',
      cameraMap: null,
    });
    const empty = map([cam('s1', 'unknown', 'none', [], { reason: 'no_motion' })], []);
    expect(decideAutoMap({ mode: 'always', cameraMap: empty, speakers: talk })).toEqual({
      action: 'ask',
      cameraMap: empty,
    });
  });
});
