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

describe('computeCameraMap with faces', () => {
  it('tells close-ups, two-shots and wides by their faces, and who is where by their mouths', () => {
    const map = computeCameraMap({
      cameras: [
        {
          sourceId: 'close',
          samples: flat(1),
          faces: trackFaces(faceRuns([{ x: 0.5, speaker: B }], turns, { durationMs })),
        },
        {
          sourceId: 'two',
          samples: flat(2),
          faces: trackFaces(
            faceRuns(
              [
                { x: 0.3, speaker: C },
                { x: 0.7, speaker: A },
              ],
              turns,
              { durationMs },
            ),
          ),
        },
        {
          sourceId: 'wide',
          samples: flat(3),
          faces: trackFaces(
            faceRuns(
              [
                { x: 0.2, speaker: A },
                { x: 0.5, speaker: C },
                { x: 0.8, speaker: B },
              ],
              turns,
              { durationMs },
            ),
          ),
        },
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
        cameras: [
          {
            sourceId: 'close',
            samples: flat(seed),
            faces: trackFaces(faceRuns([{ x: 0.5, speaker: A }], turns, { durationMs, gain: 0, seed })),
          },
          {
            sourceId: 'two',
            samples: flat(seed + 10),
            faces: trackFaces(
              faceRuns(
                [
                  { x: 0.3, speaker: B },
                  { x: 0.7, speaker: C },
                ],
                turns,
                { durationMs, gain: 0, seed: seed + 10 },
              ),
            ),
          },
        ],
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
