/**
 * Synthetic motion series for the camera-map tests: turn-taking speakers and cameras whose
 * thirds move with chosen speakers' speech, sampled in runs of consecutive frames the way
 * src/vision samples real video. Deterministic (seeded PRNG).
 */
import type { Turn } from '../../../src/contract/types.ts';
import type { MotionSamples } from '../../../src/analysis/camera/features.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

/** The project's seeded generator (mulberry32), under the name these tests use. */
export const prng = seededRandom;

/** Turn-taking conversation: turns of 2–12 s, speakers chosen at random (never twice in a row). */
export function conversation(speakers: string[], durationMs: number, seed = 1): Turn[] {
  const rnd = prng(seed);
  const turns: Turn[] = [];
  let t = 500;
  let last = -1;
  while (t < durationMs - 1000) {
    let k = Math.floor(rnd() * speakers.length);
    if (k === last) k = (k + 1) % speakers.length;
    last = k;
    const len = 2000 + rnd() * 10_000;
    const end = Math.min(durationMs, t + len);
    turns.push({ speaker: speakers[k]!, startMs: t, endMs: end });
    t = end + 200 + rnd() * 800;
  }
  return turns;
}

export type Layout =
  | { kind: 'closeup'; speaker: string }
  | { kind: 'twoshot'; left: string; right: string }
  | { kind: 'wide'; left: string; middle: string; right: string }
  | { kind: 'static' }
  | { kind: 'multi'; speakers: string[]; shotMs: number };

export interface SampleOptions {
  durationMs: number;
  /** A run of consecutive frames every this many ms. */
  everyMs?: number;
  framesPerRun?: number;
  fps?: number;
  /** Picture late against the turns by this much. */
  lagMs?: number;
  /** Motion of speech against the idle noise (1 = as large as the noise). */
  gain?: number;
  seed?: number;
}

/** Motion samples of one synthetic camera. */
export function syntheticSamples(layout: Layout, turns: Turn[], o: SampleOptions): MotionSamples {
  const rnd = prng(o.seed ?? 7);
  const everyMs = o.everyMs ?? 2000;
  const runLen = o.framesPerRun ?? 15;
  const frameMs = 1000 / (o.fps ?? 30);
  const gain = o.gain ?? 1;
  const lag = o.lagMs ?? 0;
  const speaking = (s: string, t: number): number =>
    turns.some((x) => x.speaker === s && t - lag >= x.startMs && t - lag < x.endMs) ? 1 : 0;
  const t: number[] = [];
  const cols: [number[], number[], number[], number[]] = [[], [], [], []];
  const cut: number[] = [];
  let prevRunEnd = -Infinity;
  for (let start = 0; start + runLen * frameMs < o.durationMs; start += everyMs) {
    for (let f = 0; f < runLen; f++) {
      const ts = start + f * frameMs;
      const before = f === 0 ? prevRunEnd : ts - frameMs;
      if (f === runLen - 1) prevRunEnd = ts;
      // Across the gap between runs only a cut is reported (as motionFeatures does).
      if (
        f === 0 &&
        !(
          before > -Infinity &&
          layout.kind === 'multi' &&
          Math.floor(ts / layout.shotMs) !== Math.floor(before / layout.shotMs)
        )
      )
        continue;
      const noise = (): number => 0.3 + 0.3 * rnd();
      const mouth = (s: string): number => gain * speaking(s, ts) * (0.2 + 0.6 * rnd());
      let l = noise();
      let m = noise();
      let r = noise();
      let isCut = 0;
      switch (layout.kind) {
        case 'closeup': {
          const x = mouth(layout.speaker);
          l += 0.3 * x;
          m += x;
          r += 0.3 * x;
          break;
        }
        case 'twoshot':
          l += mouth(layout.left);
          r += mouth(layout.right);
          break;
        case 'wide':
          l += mouth(layout.left);
          m += mouth(layout.middle);
          r += mouth(layout.right);
          break;
        case 'static':
          l = m = r = 0;
          break;
        case 'multi': {
          const shot = Math.floor(ts / layout.shotMs);
          const prevShot = Math.floor(before / layout.shotMs);
          const who = layout.speakers[shot % layout.speakers.length]!;
          m += mouth(who);
          if (shot !== prevShot) {
            isCut = 1;
            l = m = r = 60;
          }
          break;
        }
      }
      t.push(ts);
      cols[0].push((l + m + r) / 3);
      cols[1].push(l);
      cols[2].push(m);
      cols[3].push(r);
      cut.push(isCut);
    }
  }
  return {
    t: Float64Array.from(t),
    whole: Float32Array.from(cols[0]),
    left: Float32Array.from(cols[1]),
    middle: Float32Array.from(cols[2]),
    right: Float32Array.from(cols[3]),
    sceneCut: Uint8Array.from(cut),
  };
}
