/**
 * Synthetic faces for the camera-map tests and the faces eval: people sitting still, sampled in
 * runs as the vision worker samples them, whose mouths move while their speaker talks or, out of
 * step, while they talk in another conversation (as autocorrelated as speech). Deterministic.
 */
import type { FaceRun } from '../../../src/analysis/faces/face-tracks.ts';
import type { Turn } from '../../../src/contract/types.ts';
import { conversation, prng } from '../camera/synthetic.ts';

const [A, B, C] = ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02'] as const;

/** Runs of 15 frames at 25 fps every `everyMs`; each person at `x`, mouth busy while `speaker` talks (gain 0: never in step). */
export function faceRuns(
  people: Array<{ x: number; speaker: string }>,
  turns: Turn[],
  o: { durationMs: number; everyMs?: number; gain?: number; seed?: number; presence?: number },
): FaceRun[] {
  const rnd = prng(o.seed ?? 3);
  const runs: FaceRun[] = [];
  const talking = (s: string, t: number): boolean =>
    turns.some((x) => x.speaker === s && t >= x.startMs && t < x.endMs);
  // Out of step: the mouth follows the same person's turns in another conversation (bursts of
  // talk as long as real turns, so the motion is as autocorrelated as speech).
  const other = conversation([A, B, C], o.durationMs, 500 + (o.seed ?? 3));
  const elsewhere = (s: string, t: number): boolean =>
    other.some((x) => x.speaker === s && t >= x.startMs && t < x.endMs);
  for (let t0 = 0; t0 < o.durationMs; t0 += o.everyMs ?? 2000) {
    const faces = people
      .filter(() => rnd() < (o.presence ?? 1))
      .map((p) => {
        const t = Array.from({ length: 14 }, (_, i) => t0 + 40 * (i + 1));
        const busy = (ms: number): boolean => ((o.gain ?? 1) > 0 ? talking(p.speaker, ms) : elsewhere(p.speaker, ms));
        return {
          score: 0.93,
          cx: p.x,
          cy: 0.5,
          w: 0.1,
          h: 0.1,
          mx: p.x,
          my: 0.56,
          t,
          mouth: t.map((ms) => (busy(ms) ? 2 + 2 * rnd() : 0.4 + 0.3 * rnd())),
        };
      });
    runs.push({ t: t0, faces });
  }
  return runs;
}
