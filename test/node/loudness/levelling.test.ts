/**
 * Voice levelling (src/analysis/audio/levelling.ts) on generated two-speaker recordings: speech-like
 * bursts of noise (syllables at about 4 Hz, pauses between words) with each speaker's turns
 * known. Mic B is recorded 12 dB lower than mic A, and each mic hears the other speaker 20 dB
 * down (bleed). After levelling, each speaker's speech in the mix must sit within 1 LU of the
 * other's, measured by the loudness meter on the mixed samples.
 */
import { describe, expect, test } from 'vitest';
import {
  assignSpeakers,
  DEFAULT_RIDE,
  integratedFromBlocks,
  LEVELLING_BLOCK_SEC,
  LevellingAnalysis,
  masterGainDb,
  planLevelling,
  type SpeechTurn,
} from '../../../src/analysis/audio/levelling.ts';
import { LoudnessMeter } from '../../../src/analysis/audio/loudness.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

const RATE = 48_000;

/** Speech-like noise: band-limited noise under a syllable envelope, `seconds` long, RMS about `dbfs` while voiced. */
function voice(seconds: number, dbfs: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const n = Math.round(seconds * RATE);
  const out = new Float32Array(n);
  const amp = 10 ** (dbfs / 20) * Math.sqrt(3) * 2;
  let lp = 0;
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    // Syllables at ~4 Hz, a short pause every 2 s (between words).
    const syllable = Math.max(0, Math.sin(2 * Math.PI * 4.1 * t));
    const pause = t % 2 > 1.7 ? 0 : 1;
    lp += 0.3 * (random() * 2 - 1 - lp);
    out[i] = amp * syllable * pause * lp;
  }
  return out;
}

/** Two speakers alternating every `turnSec`; A starts. */
function turnsOf(totalSec: number, turnSec: number): SpeechTurn[] {
  const turns: SpeechTurn[] = [];
  for (let t = 0, k = 0; t < totalSec; t += turnSec, k++)
    turns.push({ speaker: k % 2 === 0 ? 'A' : 'B', startMs: t * 1000, endMs: Math.min(totalSec, t + turnSec) * 1000 });
  return turns;
}

/** Mic A and mic B (B 12 dB lower), each hearing the other 20 dB down. `louderStretch` makes A's voice 10 dB louder over [10 s, 16 s). */
function recording(
  totalSec: number,
  turns: SpeechTurn[],
  louderStretch = false,
): { micA: Float32Array; micB: Float32Array } {
  const a = voice(totalSec, -20, 1);
  const b = voice(totalSec, -20, 2);
  const n = a.length;
  const micA = new Float32Array(n);
  const micB = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const ms = (i / RATE) * 1000;
    const who = turns.find((t) => t.startMs <= ms && ms < t.endMs)?.speaker;
    const boost = louderStretch && ms >= 10_000 && ms < 16_000 ? 10 ** (10 / 20) : 1;
    const va = who === 'A' ? a[i]! * boost : 0;
    const vb = who === 'B' ? b[i]! : 0;
    micA[i] = va + 0.1 * vb;
    micB[i] = 10 ** (-12 / 20) * (vb + 0.1 * va);
  }
  return { micA, micB };
}

function analyse(sources: Float32Array[]): LevellingAnalysis {
  const analysis = new LevellingAnalysis(sources.length, 1, RATE);
  for (let at = 0; at < sources[0]!.length; at += 4096)
    analysis.push(sources.map((s) => [s.subarray(at, Math.min(s.length, at + 4096))]));
  analysis.finish();
  return analysis;
}

const blockTimes = (blocks: number): Float64Array =>
  Float64Array.from({ length: blocks }, (_, b) => (b + 0.5) * LEVELLING_BLOCK_SEC * 1000);

/** Σ gain_s(t)·source_s, the gains linear between block middles (as the render's mixer does). */
function mix(sources: Float32Array[], gainsDb: Float32Array[]): Float32Array {
  const out = new Float32Array(sources[0]!.length);
  const blockSamples = LEVELLING_BLOCK_SEC * RATE;
  sources.forEach((x, s) => {
    const g = gainsDb[s]!;
    for (let i = 0; i < x.length; i++) {
      const u = i / blockSamples - 0.5;
      const b = Math.floor(u);
      const at = (k: number) => 10 ** (g[Math.max(0, Math.min(g.length - 1, k))]! / 20);
      out[i]! += (at(b) + (at(b + 1) - at(b)) * (u - b)) * x[i]!;
    }
  });
  return out;
}

/** Integrated loudness of the samples of `x` inside the given speaker's turns. */
function speechLoudness(x: Float32Array, turns: SpeechTurn[], speaker: string): number {
  const meter = new LoudnessMeter(RATE, 1, { truePeak: false });
  for (const t of turns.filter((u) => u.speaker === speaker))
    meter.push([x.subarray(Math.round((t.startMs / 1000) * RATE), Math.round((t.endMs / 1000) * RATE))]);
  return meter.integratedLufs;
}

describe('voice levelling, per mic', () => {
  const total = 40;
  const turns = turnsOf(total, 5);
  const { micA, micB } = recording(total, turns);
  const analysis = analyse([micA, micB]);
  const energies = [analysis.sourceEnergies(0), analysis.sourceEnergies(1)];
  const speech = [turns.filter((t) => t.speaker === 'A'), turns.filter((t) => t.speaker === 'B')];
  const plan = planLevelling({ energies, blockTimesMs: blockTimes(analysis.length), speech });

  test('the mic recorded 12 dB lower gets 12 dB more gain', () => {
    const [a, b] = [plan.speakers[0]![0]!, plan.speakers[1]![0]!];
    expect(a.speaker).toBe('A');
    expect(b.speaker).toBe('B');
    expect(b.gainDb - a.gainDb).toBeGreaterThan(11.5);
    expect(b.gainDb - a.gainDb).toBeLessThan(12.5);
    expect(a.speechSec).toBeGreaterThan(10);
  });

  test("each speaker's speech in the levelled mix is within 1 LU of the other's; unlevelled over 8 LU apart", () => {
    const flat = mix([micA, micB], [new Float32Array(analysis.length), new Float32Array(analysis.length)]);
    const levelled = mix([micA, micB], plan.gainsDb);
    const before = speechLoudness(flat, turns, 'A') - speechLoudness(flat, turns, 'B');
    const after = speechLoudness(levelled, turns, 'A') - speechLoudness(levelled, turns, 'B');
    // Less than 12: each mic's bleed adds to the other speaker's turns.
    expect(before).toBeGreaterThan(8);
    expect(Math.abs(after)).toBeLessThan(1);
  });

  test('the mix loudness planned from the block energies is the meter reading of the mixed samples (0.1 LU)', () => {
    const levelled = mix([micA, micB], plan.gainsDb);
    const linear = plan.gainsDb.map((g) => Float64Array.from(g, (d) => 10 ** (d / 20)));
    const planned = integratedFromBlocks(analysis.mixEnergies(linear));
    const meter = new LoudnessMeter(RATE, 1, { truePeak: false });
    meter.push([levelled]);
    expect(Math.abs(planned - meter.integratedLufs)).toBeLessThan(0.1);
    // And the master gain brings it to −16.
    const master = masterGainDb(planned, -16);
    const mastered = levelled.map((v) => v * 10 ** (master / 20));
    const m2 = new LoudnessMeter(RATE, 1, { truePeak: false });
    m2.push([mastered]);
    expect(Math.abs(m2.integratedLufs + 16)).toBeLessThan(0.1);
  });

  test("the ride holds through the other speaker's turns (the bleed does not move it)", () => {
    for (const [s, speaker] of [
      [0, 'B'],
      [1, 'A'],
    ] as const) {
      const g = plan.gainsDb[s]!;
      for (const t of turns.filter((u) => u.speaker === speaker)) {
        const b0 = Math.ceil(t.startMs / 100);
        const b1 = Math.min(g.length, Math.floor(t.endMs / 100));
        for (let b = b0 + 1; b < b1; b++) expect(g[b]).toBe(g[b0]);
      }
    }
  });
});

describe('the ride', () => {
  test('a stretch 10 dB louder is brought down gently: by at most the range, and slowly', () => {
    const total = 40;
    const turns = turnsOf(total, 20);
    const { micA, micB } = recording(total, turns, true);
    const analysis = analyse([micA, micB]);
    const plan = planLevelling({
      energies: [analysis.sourceEnergies(0), analysis.sourceEnergies(1)],
      blockTimesMs: blockTimes(analysis.length),
      speech: [turns.filter((t) => t.speaker === 'A'), turns.filter((t) => t.speaker === 'B')],
    });
    const g = plan.gainsDb[0]!;
    const base = plan.speakers[0]![0]!.gainDb;
    const ride = Array.from(g.slice(0, 200), (x) => x - base);
    const lowest = Math.min(...ride);
    // It turns the loud stretch down (gently: half the distance, over seconds), within the range.
    expect(lowest).toBeLessThan(-1.5);
    expect(lowest).toBeGreaterThanOrEqual(-DEFAULT_RIDE.rangeDb - 1e-6);
    // Slowly: no 100 ms step moves it by more than 1 dB.
    for (let b = 1; b < 200; b++) expect(Math.abs(g[b]! - g[b - 1]!)).toBeLessThan(1);
  });
});

describe('voice levelling, single mix', () => {
  test('one track, two speakers 12 dB apart: each speaker gets their own gain during their turns', () => {
    const total = 40;
    const turns = turnsOf(total, 5);
    const { micA, micB } = recording(total, turns);
    // The single mix: both mics summed on one track, levelled by the (detected) turns.
    const track = micA.map((v, i) => v + micB[i]!);
    const analysis = analyse([track]);
    const plan = planLevelling({
      energies: [analysis.sourceEnergies(0)],
      blockTimesMs: blockTimes(analysis.length),
      speech: [turns],
    });
    const byName = new Map(plan.speakers[0]!.map((k) => [k.speaker, k.gainDb]));
    expect(byName.get('B')! - byName.get('A')!).toBeGreaterThan(9);
    const levelled = mix([track], plan.gainsDb);
    expect(Math.abs(speechLoudness(levelled, turns, 'A') - speechLoudness(levelled, turns, 'B'))).toBeLessThan(1.5);
  });

  test('a speaker with too little speech is left at 0 dB; a track without turns too', () => {
    const analysis = analyse([voice(10, -20, 3), voice(10, -30, 4)]);
    const plan = planLevelling({
      energies: [analysis.sourceEnergies(0), analysis.sourceEnergies(1)],
      blockTimesMs: blockTimes(analysis.length),
      speech: [[{ speaker: 'A', startMs: 0, endMs: 1000 }], []],
    });
    expect(plan.speakers[0]![0]!.gainDb).toBe(0);
    expect(plan.speakers[1]).toEqual([]);
    expect(plan.speechTargetLufs).toBeNull();
    expect(Array.from(plan.gainsDb[1]!).every((g) => g === 0)).toBe(true);
  });
});

describe('whose mic is whose', () => {
  const total = 30;
  const turns = turnsOf(total, 5);
  const { micA, micB } = recording(total, turns);

  test('each speaker goes to the mic where they are loudest against the others, even the mic 12 dB down', () => {
    const analysis = analyse([micB, micA]);
    const energies = [analysis.sourceEnergies(0), analysis.sourceEnergies(1)];
    const assigned = assignSpeakers(energies, blockTimes(analysis.length), turns);
    expect(assigned.map((list) => [...new Set(list.map((t) => t.speaker))])).toEqual([['B'], ['A']]);
  });

  test('one source carries everyone; two copies of the same room sound carry no one', () => {
    const room = micA.map((v, i) => v + micB[i]!);
    const one = analyse([room]);
    expect(assignSpeakers([one.sourceEnergies(0)], blockTimes(one.length), turns)).toEqual([turns]);
    const two = analyse([room, room.map((v) => 0.5 * v)]);
    const assigned = assignSpeakers([two.sourceEnergies(0), two.sourceEnergies(1)], blockTimes(two.length), turns);
    expect(assigned).toEqual([[], []]);
  });
});
