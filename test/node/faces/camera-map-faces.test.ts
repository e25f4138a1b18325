/**
 * The camera map's face path on synthetic faces: people sitting still whose mouths move while
 * their speaker talks (or, for the chance cases, whenever they like).
 */
import { describe, expect, it } from 'vitest';
import { computeCameraMap } from '../../../src/analysis/camera/camera-map.ts';
import { trackFaces } from '../../../src/analysis/faces/face-tracks.ts';
import { faceRuns } from './synthetic-faces.ts';
import { conversation, syntheticSamples } from '../camera/synthetic.ts';

const [A, B, C] = ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02'] as const;

const durationMs = 120_000;
const turns = conversation([A, B, C], durationMs, 11);
/** Motion samples that say nothing (the people's motion ignores speech): the answer must come from the faces. */
const flat = (seed: number) =>
  syntheticSamples({ kind: 'wide', left: A, middle: B, right: C }, turns, { durationMs, gain: 0, seed });

/** A camera whose motion says nothing and whose faces are `people` (gain 0: mouths out of step). */
function camera(sourceId: string, seed: number, people: Array<{ x: number; speaker: string }>, gain = 1) {
  return { sourceId, samples: flat(seed), faces: trackFaces(faceRuns(people, turns, { durationMs, gain, seed })) };
}

const twoPeople = (left: string, right: string) => [
  { x: 0.3, speaker: left },
  { x: 0.7, speaker: right },
];

describe('computeCameraMap with faces', () => {
  it('tells close-ups, two-shots and wides by their faces, and who is where by their mouths', () => {
    const three = [
      { x: 0.2, speaker: A },
      { x: 0.5, speaker: C },
      { x: 0.8, speaker: B },
    ];
    const map = computeCameraMap({
      cameras: [
        camera('close', 1, [{ x: 0.5, speaker: B }]),
        camera('two', 2, twoPeople(C, A)),
        camera('wide', 3, three),
      ],
      turns,
    });
    const [close, two, wide] = map.cameras;
    expect(close).toMatchObject({ kind: 'closeup', confidence: 'high', speakers: [B], evidence: 'faces', faces: 1 });
    expect(two).toMatchObject({
      kind: 'twoshot',
      confidence: 'high',
      speakers: [C, A],
      positions: { left: C, right: A },
    });
    expect(wide).toMatchObject({
      kind: 'wide',
      confidence: 'high',
      speakers: [A, C, B],
      positions: { left: A, middle: C, right: B },
    });
    expect(map.unassignedSpeakers).toEqual([]);
  });

  it('is never sure when the mouths move out of step with the turns', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const map = computeCameraMap({
        cameras: [camera('close', seed, [{ x: 0.5, speaker: A }], 0), camera('two', seed + 10, twoPeople(B, C), 0)],
        turns,
      });
      for (const c of map.cameras) expect(c.confidence, `seed ${seed} ${c.sourceId}`).not.toBe('high');
      // The kind still comes from the faces.
      expect(map.cameras.map((c) => c.kind)).toEqual(['closeup', 'twoshot']);
    }
  });

  it('falls back to motion in the thirds when faces come and go (drawn figures, passers-by)', () => {
    const faces = trackFaces(faceRuns([{ x: 0.5, speaker: A }], turns, { durationMs, presence: 0.5 }));
    const map = computeCameraMap({ cameras: [{ sourceId: 'c', samples: flat(4), faces }], turns });
    expect(map.cameras[0]!.evidence).toBeUndefined();
    expect(map.cameras[0]!.confidence).not.toBe('high');
  });
});
