import { describe, expect, test } from 'vitest';
import {
  isLaughter,
  isLaughterSegment,
  laughterDescriptor,
  LAUGHTER_MAX_MS,
} from '../../../src/analysis/diarize/laughter.ts';
import { diarizeMix } from '../../../src/analysis/diarize/mix.ts';
import { diarizePerMic } from '../../../src/analysis/diarize/per-mic.ts';
import type { DiarizationResult } from '../../../src/analysis/diarize/result.ts';
import type { Turn } from '../../../src/contract/types.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';
import { assembleConversation } from '../../../tools/diarization/assemble.ts';

const RATE = 16000;

/** A vowel: its first two formants, Hz. */
type Vowel = readonly [number, number];
const A: Vowel = [800, 1200];
const I: Vowel = [300, 2300];
const U: Vowel = [320, 800];
const E: Vowel = [500, 1900];
const O: Vowel = [550, 900];

/**
 * Syllables of a formant synthesiser: each a breathy onset ("h", 30 ms of noise) into a vowel
 * on a glottal pulse train, sin²-shaped over 120 ms (or 60 % of its slot when that is shorter),
 * each a little quieter than the last. `slotsMs[k]` is the time from syllable k's start to the
 * next one's; the pitch falls
 * from `f0` by a fifth of it over the bout, with 3 % jitter. Over hiss at −60 dBFS.
 */
function syllables(vowels: readonly Vowel[], slotsMs: readonly number[], f0: number, seed: number): Float32Array {
  const rand = seededRandom(seed);
  const total = slotsMs.reduce((a, b) => a + b, 0);
  const out = new Float32Array(Math.round(((total + 200) * RATE) / 1000));
  let start = Math.round(0.1 * RATE);
  vowels.forEach((vowel, k) => {
    const slot = Math.round((slotsMs[k]! * RATE) / 1000);
    const len = Math.round(Math.min(0.12 * RATE, slot * 0.6));
    // Two resonators in series (bandwidth 100 Hz) on a pulse train.
    const coeffs = vowel.map((f) => {
      const r = Math.exp((-Math.PI * 100) / RATE);
      return [2 * r * Math.cos((2 * Math.PI * f) / RATE), -r * r] as const;
    });
    const state = coeffs.map(() => [0, 0]);
    let next = 0;
    const pitch = f0 * (1 - (0.2 * k) / vowels.length);
    for (let i = 0; i < len; i++) {
      let x = 0;
      if (i >= next) {
        x = 1;
        next = i + Math.round((RATE / pitch) * (1 + 0.03 * (2 * rand() - 1)));
      }
      if (i < 0.03 * RATE) x = x * (i / (0.03 * RATE)) + 0.3 * (2 * rand() - 1);
      for (let s = 0; s < coeffs.length; s++) {
        const [a1, a2] = coeffs[s]!;
        const y = x + a1 * state[s]![0]! + a2 * state[s]![1]!;
        state[s] = [y, state[s]![0]!];
        x = y;
      }
      const w = Math.sin((Math.PI * i) / len) ** 2;
      out[start + i] = 0.002 * (1 - (0.4 * k) / vowels.length) * w * x;
    }
    start += slot;
  });
  const hiss = 10 ** (-60 / 20) * Math.sqrt(3);
  for (let i = 0; i < out.length; i++) out[i] = out[i]! + hiss * (2 * rand() - 1);
  return out;
}

describe('laughter', () => {
  test('a laugh: the same vowel at a steady rhythm, pitch falling, breathy onsets', () => {
    const laugh = syllables([A, A, A, A, A], [200, 210, 190, 205, 200], 260, 1);
    const d = laughterDescriptor(laugh, RATE);
    expect(d.pulses).toBe(5);
    expect(d.periodMs).toBeGreaterThan(180);
    expect(d.periodMs).toBeLessThan(220);
    expect(d.spectralStep).toBeLessThan(15);
    expect(isLaughter(laugh, RATE)).toBe(true);
    // Another voice, another vowel, another rate.
    expect(isLaughter(syllables([O, O, O, O], [160, 170, 165, 160], 140, 2), RATE)).toBe(true);
  });

  test('syllables that change vowel are speech, however steady their rhythm', () => {
    const talk = syllables([A, I, U, E, O], [200, 210, 190, 205, 200], 260, 1);
    const d = laughterDescriptor(talk, RATE);
    expect(d.pulses).toBe(5);
    expect(d.spectralStep).toBeGreaterThan(30);
    expect(isLaughter(talk, RATE)).toBe(false);
  });

  test('two alike syllables, an unsteady rhythm or a slow one are not enough', () => {
    expect(isLaughter(syllables([A, A], [200, 200], 260, 3), RATE)).toBe(false);
    // Unless asked for (two pulses have no spread of period to test): a laugh's first two.
    const laugh = syllables([A, A, A, A, A], [200, 200, 200, 200, 200], 260, 3);
    expect(isLaughterSegment(laugh, RATE, { startMs: 0, endMs: 500 })).toBe(false);
    expect(isLaughterSegment(laugh, RATE, { startMs: 0, endMs: 500 }, { minPulses: 2 })).toBe(true);
    expect(laughterDescriptor(syllables([A, A, A, A], [120, 350, 150, 400], 260, 4), RATE).periodCv).toBeGreaterThan(
      0.25,
    );
    expect(isLaughter(syllables([A, A, A, A], [120, 350, 150, 400], 260, 4), RATE)).toBe(false);
    expect(isLaughter(syllables([A, A, A, A], [500, 500, 500, 500], 260, 5), RATE)).toBe(false);
  });

  test('no stretch of read speech is taken for laughter', () => {
    // LibriSpeech readers (../shared/data): every 600 ms window, 250 ms apart, of three
    // readers' tracks where they talk. Measured: 1932 windows with two pulses or more, their
    // spectral step 14–260, and 30 or more over the 719 with three pulses or more.
    const conv = assembleConversation({ speakers: 3, seconds: 60, seed: 2 });
    let windows = 0;
    let laughs = 0;
    for (const turn of conv.truth) {
      const track = conv.tracks[conv.speakerIds.indexOf(turn.speaker)]!;
      for (let a = turn.startMs; a + 600 <= turn.endMs; a += 250) {
        windows++;
        if (isLaughterSegment(track, RATE, { startMs: a, endMs: a + 600 })) laughs++;
      }
    }
    expect(windows).toBeGreaterThan(150);
    expect(laughs).toBe(0);
  });

  test('a segment is tested on its own samples; one over the longest laugh is speech', () => {
    const laugh = syllables([A, A, A, A, A], [200, 200, 200, 200, 200], 260, 6);
    const padded = new Float32Array(laugh.length + 2 * RATE);
    padded.set(laugh, RATE);
    const ms = (laugh.length / RATE) * 1000;
    expect(isLaughterSegment(padded, RATE, { startMs: 1000, endMs: 1000 + ms })).toBe(true);
    expect(isLaughterSegment(padded, RATE, { startMs: 0, endMs: 900 })).toBe(false);
    const long = syllables(
      Array.from({ length: 22 }, () => A),
      Array.from({ length: 22 }, () => 200),
      260,
      7,
    );
    expect((long.length / RATE) * 1000).toBeGreaterThan(LAUGHTER_MAX_MS);
    expect(isLaughter(long, RATE)).toBe(true);
    expect(isLaughterSegment(long, RATE, { startMs: 0, endMs: (long.length / RATE) * 1000 })).toBe(false);
  });
});

describe('the diarizers give laughter no turn', () => {
  // 20 s of two LibriSpeech readers, then a laugh 1 s after the end. The VAD is a test double
  // that hears speech in the readers' turns and in the laugh, as Silero often does.
  const conv = assembleConversation({ speakers: 2, seconds: 20, seed: 4 });
  const laugh = syllables([A, A, A, A, A], [200, 210, 190, 205, 200], 220, 8);
  const laughStartMs = (conv.mix.length / RATE) * 1000 + 1000;
  const signal = new Float32Array(conv.mix.length + 2 * RATE + laugh.length);
  signal.set(conv.mix);
  signal.set(laugh, conv.mix.length + RATE);
  const laughEndMs = laughStartMs + (laugh.length / RATE) * 1000;
  const heard: Turn[] = [...conv.truth, { speaker: 'laugh', startMs: laughStartMs, endMs: laughEndMs }];
  const vadDouble = Float32Array.from({ length: Math.floor(signal.length / 512) }, (_, k) =>
    heard.some((t) => k * 32 + 16 >= t.startMs && k * 32 + 16 < t.endMs) ? 0.9 : 0.1,
  );
  const onLaugh = (r: DiarizationResult): number => {
    if (r.kind !== 'speakers') throw new Error('expected speakers');
    return r.turns.reduce(
      (ms, t) => ms + Math.max(0, Math.min(t.endMs, laughEndMs) - Math.max(t.startMs, laughStartMs)),
      0,
    );
  };

  test('per-mic: the laugh on a mic is no turn of its speaker', () => {
    expect(onLaugh(diarizePerMic([signal], RATE, [vadDouble]))).toBe(0);
    expect(onLaugh(diarizePerMic([signal], RATE, [vadDouble], { dropLaughter: false }))).toBeGreaterThan(500);
  });

  test("single-mix: the laugh is clustered but reported as no one's turn", () => {
    expect(onLaugh(diarizeMix(signal, RATE, vadDouble))).toBe(0);
    expect(onLaugh(diarizeMix(signal, RATE, vadDouble, { dropLaughter: false }))).toBeGreaterThan(500);
  });
});
