/**
 * Recorded levels before any render (src/analysis/audio/recorded-levels.ts), on a generated
 * two-mic conversation at 16 kHz (the rate speaker detection decodes at): speech-like bursts,
 * mic B recorded 12 dB lower than mic A, each mic hearing the other speaker 20 dB down. Each
 * figure is checked against the loudness meter (src/analysis/audio/loudness.ts, a separate
 * implementation of BS.1770) run on the samples themselves: the whole mic, and each speaker's
 * speech cut out along the truth turns.
 */
import { describe, expect, test } from 'vitest';
import type { SpeechTurn } from '../../../src/analysis/audio/levelling.ts';
import { LoudnessMeter } from '../../../src/analysis/audio/loudness.ts';
import { recordedLevels, SourceEnergies } from '../../../src/analysis/audio/recorded-levels.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';
import { recordedLevelsOf } from '../../../src/pipeline/stages/diarizing.ts';
import type { SourceRecord } from '../../../src/store/db.ts';

const RATE = 16_000;
const SECONDS = 60;

/** Speech-like noise: noise under a 4 Hz syllable envelope with a pause every 2 s, RMS about `dbfs` while voiced. */
function voice(dbfs: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const out = new Float32Array(SECONDS * RATE);
  const amp = 10 ** (dbfs / 20) * Math.sqrt(3) * 2;
  let lp = 0;
  for (let i = 0; i < out.length; i++) {
    const t = i / RATE;
    const syllable = Math.max(0, Math.sin(2 * Math.PI * 4.1 * t));
    lp += 0.3 * (random() * 2 - 1 - lp);
    out[i] = amp * syllable * (t % 2 > 1.7 ? 0 : 1) * lp;
  }
  return out;
}

/** A and B alternate every 6 s, A first. */
const turns: SpeechTurn[] = Array.from({ length: SECONDS / 6 }, (_, k) => ({
  speaker: k % 2 === 0 ? 'A' : 'B',
  startMs: k * 6000,
  endMs: (k + 1) * 6000,
}));

/** Mic A and mic B (12 dB lower), each hearing the other speaker 20 dB down; each voice only in its turns. */
function recording(): { micA: Float32Array; micB: Float32Array } {
  const a = voice(-20, 1);
  const b = voice(-20, 2);
  const micA = new Float32Array(a.length);
  const micB = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const speaker = turns[Math.floor(i / (6 * RATE))]!.speaker;
    const va = speaker === 'A' ? a[i]! : 0;
    const vb = speaker === 'B' ? b[i]! : 0;
    micA[i] = va + 0.1 * vb;
    micB[i] = 10 ** (-12 / 20) * (vb + 0.1 * va);
  }
  return { micA, micB };
}

/** The meter's integrated loudness of `samples` (one channel). */
function meterLufs(samples: Float32Array): number {
  const meter = new LoudnessMeter(RATE, 1, { truePeak: false });
  meter.push([samples]);
  return meter.integratedLufs;
}

/** `samples` during `speaker`'s turns only, back to back. */
function speechOf(samples: Float32Array, speaker: string): Float32Array {
  const parts = turns
    .filter((t) => t.speaker === speaker)
    .map((t) => samples.subarray((t.startMs / 1000) * RATE, (t.endMs / 1000) * RATE));
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function energiesOf(channels: Float32Array[], piece = channels[0]!.length): Float64Array[] {
  const e = new SourceEnergies(channels.length, RATE);
  for (let at = 0; at < channels[0]!.length; at += piece)
    channels.forEach((c, i) => e.push(i, c.subarray(at, Math.min(c.length, at + piece))));
  return e.finish();
}

describe('recordedLevels', () => {
  const { micA, micB } = recording();

  test('per mic: each mic’s loudness and its speaker’s speech as the meter reads them, gains that level the voices', () => {
    const levels = recordedLevels(energiesOf([micA, micB]), turns);
    const [a, b] = levels.sources;
    // Whole mics: within 0.1 LU of the meter (the same gating over the same 100 ms blocks).
    expect(a!.integratedLufs).toBeCloseTo(meterLufs(micA), 1);
    expect(b!.integratedLufs).toBeCloseTo(meterLufs(micB), 1);
    // Each mic carries its own speaker only (B stands out on mic B though it is 12 dB down).
    expect(a!.speakers.map((k) => k.speaker)).toEqual(['A']);
    expect(b!.speakers.map((k) => k.speaker)).toEqual(['B']);
    const [ka, kb] = [a!.speakers[0]!, b!.speakers[0]!];
    // Speech: the 400 ms blocks wholly inside the turns, so within 0.5 LU of the meter on the turns cut out.
    expect(Math.abs(ka.speechLufs! - meterLufs(speechOf(micA, 'A')))).toBeLessThan(0.5);
    expect(Math.abs(kb.speechLufs! - meterLufs(speechOf(micB, 'B')))).toBeLessThan(0.5);
    expect(ka.speechLufs! - kb.speechLufs!).toBeGreaterThan(11);
    expect(ka.speechLufs! - kb.speechLufs!).toBeLessThan(13);
    // Each speaker to the mean: A down, B up, about 6 dB each, 12 apart.
    expect(ka.gainDb).toBeLessThan(-5);
    expect(kb.gainDb).toBeGreaterThan(5);
    expect(ka.speechLufs! + ka.gainDb).toBeCloseTo(kb.speechLufs! + kb.gainDb, 1);
    expect(levels.speechTargetLufs).toBeCloseTo((ka.speechLufs! + kb.speechLufs!) / 2, 1);
    expect(ka.speechSec).toBeGreaterThan(20);
  });

  test('streamed in pieces it measures the same; the Job counts a mono source twice in a stereo mix, gains unchanged', () => {
    const whole = recordedLevels(energiesOf([micA, micB]), turns);
    const pieces = recordedLevels(energiesOf([micA, micB], 12_345), turns);
    for (const [s, source] of whole.sources.entries()) {
      expect(pieces.sources[s]!.integratedLufs).toBeCloseTo(source.integratedLufs!, 2);
      expect(pieces.sources[s]!.speakers[0]!.gainDb).toBeCloseTo(source.speakers[0]!.gainDb, 2);
    }
    const record = (channels: number): Pick<SourceRecord, 'id' | 'kind' | 'channels'> => ({
      id: `mic${channels}`,
      kind: 'audio',
      channels,
    });
    const mics = [record(1), { ...record(1), id: 'mic-b' }];
    const mono = recordedLevelsOf({ sources: mics }, mics, whole);
    expect(mono.sources.map((s) => s.source_id)).toEqual(['mic1', 'mic-b']);
    expect(mono.sources[0]!.integrated_lufs).toBe(whole.sources[0]!.integratedLufs);
    // One stereo mic makes the render's mix stereo: every mono source then counts in both channels.
    const withStereo = [...mics, { ...record(2), id: 'mic-c' }];
    const stereo = recordedLevelsOf({ sources: withStereo }, mics, whole);
    expect(stereo.sources[0]!.integrated_lufs! - whole.sources[0]!.integratedLufs!).toBeCloseTo(3.01, 1);
    expect(stereo.sources[1]!.speakers[0]!.speech_lufs! - whole.sources[1]!.speakers[0]!.speechLufs!).toBeCloseTo(
      3.01,
      1,
    );
    expect(stereo.speech_target_lufs! - whole.speechTargetLufs!).toBeCloseTo(3.01, 1);
    expect(stereo.sources[1]!.speakers[0]!.gain_db).toBe(whole.sources[1]!.speakers[0]!.gainDb);
  });

  test('a single mix levels every speaker on the one track; a source of no one’s is measured, not levelled', () => {
    // One track, the sum of the mics: B (0.25 + 0.1 of its voice) 9.1 dB under A (1 + 0.025).
    const mix = micA.map((x, i) => x + micB[i]!);
    const single = recordedLevels(energiesOf([mix]), turns);
    const byName = new Map(single.sources[0]!.speakers.map((k) => [k.speaker, k]));
    const apart = byName.get('B')!.gainDb - byName.get('A')!.gainDb;
    expect(apart).toBeGreaterThan(8.5);
    expect(apart).toBeLessThan(10);
    // A room mic hearing both at the same level: neither stands out there, so it carries no one.
    const room = micA.map((x, i) => 0.5 * x + 2 * micB[i]!);
    const three = recordedLevels(energiesOf([micA, micB, room]), turns);
    expect(three.sources[2]!.speakers).toEqual([]);
    expect(three.sources[2]!.integratedLufs).toBeCloseTo(meterLufs(room), 1);
    // Silence measures nothing.
    const quiet = recordedLevels(energiesOf([new Float32Array(RATE * 5)]), turns);
    expect(quiet.sources[0]!.integratedLufs).toBeNull();
    expect(quiet.speechTargetLufs).toBeNull();
  });
});
