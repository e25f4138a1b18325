/**
 * The speech compressor ahead of the render's limiter (src/analysis/audio/compressor.ts), on generated
 * speech-like bursts with plosive peaks far above the voice's level: it takes the peaks down
 * towards the voice's loudness (what the limiter would otherwise have to do), alike for a loud
 * and a quiet recording of the same voice, leaves what stays under its threshold untouched, and
 * gives the same output whatever the chunk sizes it is fed.
 */
import { describe, expect, test } from 'vitest';
import { SpeechCompressor } from '../../../src/analysis/audio/compressor.ts';
import { LoudnessMeter } from '../../../src/analysis/audio/loudness.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

const RATE = 48_000;

/**
 * Speech-like noise: 4 syllables a second (band-limited noise under a sine envelope), a pause
 * every 2 s, and from the second second on (the compressor learns the voice's level on its first
 * blocks) a 4 ms plosive at the start of every third syllable peaking `plosiveDb` over the voiced
 * RMS. RMS while voiced about `dbfs`.
 */
export function peakySpeech(seconds: number, dbfs: number, seed: number, plosiveDb = 20): Float32Array {
  const random = seededRandom(seed);
  const n = Math.round(seconds * RATE);
  const out = new Float32Array(n);
  const amp = 10 ** (dbfs / 20) * 3.5;
  const plosive = 10 ** ((dbfs + plosiveDb) / 20);
  const syllable = RATE / 4;
  let lp = 0;
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    const envelope = Math.max(0, Math.sin(2 * Math.PI * 4 * t));
    lp += 0.3 * (random() * 2 - 1 - lp);
    const voiced = t % 2 > 1.7 ? 0 : 1;
    const s = i % syllable;
    const burst =
      i > RATE && Math.floor(i / syllable) % 3 === 0 && s < RATE * 0.001
        ? plosive * Math.sin((Math.PI * s) / (RATE * 0.001))
        : 0;
    out[i] = voiced * (amp * envelope * lp + burst);
  }
  return out;
}

function compress(x: Float32Array, chunk: number, compressor = new SpeechCompressor(1, RATE)): Float32Array {
  const parts: Float32Array[] = [];
  for (let at = 0; at < x.length; at += chunk) parts.push(compressor.process([x.subarray(at, at + chunk)])[0]!);
  parts.push(compressor.process([new Float32Array(compressor.latency)])[0]!);
  const all = new Float32Array(x.length + compressor.latency);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all.subarray(compressor.latency);
}

function measure(x: Float32Array): { lufs: number; peakDb: number } {
  const meter = new LoudnessMeter(RATE, 1);
  meter.push([x]);
  return { lufs: meter.integratedLufs, peakDb: 20 * Math.log10(meter.truePeak) };
}

describe('speech compressor', () => {
  test('plosives 20 dB over the voice: they come down over 10 dB, the voice much less', () => {
    const x = peakySpeech(20, -30, 1);
    const before = measure(x);
    const compressor = new SpeechCompressor(1, RATE);
    const after = measure(compress(x, 4800, compressor));
    expect(before.peakDb - before.lufs).toBeGreaterThan(18);
    expect(before.peakDb - after.peakDb).toBeGreaterThan(10);
    // The peak-to-loudness ratio, what the limiter after the mix would have to take, comes down.
    expect(before.peakDb - before.lufs - (after.peakDb - after.lufs)).toBeGreaterThan(3);
    // On average over the whole signal (pauses included) it takes a few dB at most.
    expect(compressor.meanReductionDb).toBeLessThan(6);
  });

  test('a recording 20 dB quieter is compressed alike: the output is the same, 20 dB down', () => {
    const loud = peakySpeech(12, -20, 2);
    const quiet = loud.map((v) => v * 0.1);
    const a = measure(compress(loud, 4800));
    const b = measure(compress(quiet, 4800));
    expect(a.lufs - b.lufs).toBeCloseTo(20, 1);
    expect(a.peakDb - b.peakDb).toBeCloseTo(20, 1);
  });

  test('the same input in other chunk sizes gives the same output (the render runs it twice)', () => {
    const x = peakySpeech(6, -25, 3);
    const a = compress(x, 48_000);
    const b = compress(x, 1_001);
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
    expect(worst).toBe(0);
  });

  test('what stays under the threshold passes untouched, only delayed', () => {
    // A voice sets the level; then a tone 20 dB under it: its peaks sit far under the threshold.
    const x = peakySpeech(4, -20, 4);
    const tone = Float32Array.from({ length: RATE * 2 }, (_, i) => 0.01 * Math.sin((2 * Math.PI * 440 * i) / RATE));
    const joined = new Float32Array(x.length + tone.length);
    joined.set(x);
    joined.set(tone, x.length);
    const y = compress(joined, 4800);
    // After the release (80 ms) has let go: from half a second into the tone.
    let worst = 0;
    for (let i = x.length + RATE / 2; i < joined.length; i++) worst = Math.max(worst, Math.abs(joined[i]! - y[i]!));
    expect(worst).toBeLessThan(1e-6);
    // 3 ms of look-ahead and the 1 ms step being played out.
    expect(new SpeechCompressor(1, RATE).latency).toBe(Math.round(0.004 * RATE));
  });

  test('settings are checked', () => {
    expect(() => new SpeechCompressor(1, RATE, { ratio: 0.5 })).toThrow(/ratio must be at least 1/);
    expect(() => new SpeechCompressor(1, RATE, { gateDb: 0 })).toThrow(/gateDb must be above 0/);
  });
});
