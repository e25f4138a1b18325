import { describe, expect, it } from 'vitest';
import { faceSplitHint, type FaceWitness } from '../../../src/analysis/faces/face-evidence.ts';
import type { Turn } from '../../../src/contract/types.ts';
import { prng } from '../camera/synthetic.ts';

/** People A, B, C taking turns of 3–6 s, 90 s. */
function people(seed = 1): Array<Turn & { person: string }> {
  const rnd = prng(seed);
  const out: Array<Turn & { person: string }> = [];
  let t = 500;
  let last = '';
  while (t < 90_000) {
    let p = ['A', 'B', 'C'][Math.floor(rnd() * 3)]!;
    if (p === last) p = p === 'A' ? 'B' : 'A';
    last = p;
    const end = t + 3000 + rnd() * 3000;
    out.push({ person: p, speaker: p, startMs: t, endMs: end });
    t = end + 400;
  }
  return out;
}

/** A close-up of `person`: runs of 14 samples every 2 s, mouth busy while they talk. */
function closeUp(
  cameraId: string,
  person: string,
  talk: ReadonlyArray<Turn & { person: string }>,
  seed = 2,
): FaceWitness {
  const rnd = prng(seed);
  const t: number[] = [];
  const activity: number[] = [];
  for (let t0 = 0; t0 < 90_000; t0 += 2000) {
    for (let i = 1; i <= 14; i++) {
      const ms = t0 + 40 * i;
      const busy = talk.some((x) => x.person === person && ms >= x.startMs && ms < x.endMs);
      t.push(ms);
      activity.push(busy ? 2 + rnd() : 0.5 + 0.2 * rnd());
    }
  }
  return {
    cameraId,
    track: {
      cx: 0.5,
      cy: 0.5,
      w: 0.2,
      h: 0.2,
      presence: 1,
      t: Float64Array.from(t),
      activity: Float32Array.from(activity),
    },
  };
}

describe('faceSplitHint', () => {
  const talk = people();
  const faces = [closeUp('camA', 'A', talk), closeUp('camB', 'B', talk, 3), closeUp('camC', 'C', talk, 4)];

  it('says nothing when each detected speaker is one face', () => {
    expect(faceSplitHint(talk, faces)).toBeNull();
  });

  it('asks for one speaker more when the audio took A and B for one speaker', () => {
    const merged = talk.map((x) => ({ ...x, speaker: x.person === 'C' ? 'SPEAKER_01' : 'SPEAKER_00' }));
    expect(faceSplitHint(merged, faces)).toEqual({
      minSpeakers: 3,
      merged: [{ speaker: 'SPEAKER_00', faces: ['camA', 'camB'] }],
    });
  });

  it('does not count one person filmed by two cameras twice', () => {
    const merged = talk.map((x) => ({ ...x, speaker: x.person === 'C' ? 'SPEAKER_01' : 'SPEAKER_00' }));
    const twice = [closeUp('camA', 'A', talk), closeUp('camA2', 'A', talk, 9), closeUp('camC', 'C', talk, 4)];
    expect(faceSplitHint(merged, twice)).toBeNull();
  });

  it('needs two faces at least', () => {
    expect(faceSplitHint(talk, faces.slice(0, 1))).toBeNull();
    expect(faceSplitHint([], faces)).toBeNull();
  });
});
