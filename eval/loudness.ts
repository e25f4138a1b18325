/**
 * Loudness evaluation (issue 55): does a person's gain nudge survive the mastering at −16 LUFS,
 * and how hard does the limiter work, on real voices?
 *
 * Each case is a two-mic conversation built from two LibriSpeech readers (../shared/data; turns
 * of 6 to 14 s, alternating, 0.4 s apart): one close mic each, mic B recorded 12 dB lower, each
 * mic hearing the other voice 18 dB down and 3 ms late (bleed). The render's mixer
 * (src/render/audio-mix.ts: analysis pass, compressors, levelling, master gain, true-peak
 * limiter) renders it at −16 LUFS / −1 dBTP, from WAV files decoded by mediabunny, twice: as is
 * and with mic B nudged −6 dB. Each speaker's speech in the output is measured with our BS.1770
 * meter over the truth turns (100 ms in from each end); the nudge's effect is how much further
 * apart the two voices are with it than without (asked: 6 dB).
 *
 * Splits: the compressor's settings (src/analysis/audio/compressor.ts) were chosen on readers 1688 and
 * 2414 (tuning); readers 1998, 2033 and 3080 (test, three pairs) were not looked at while choosing.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_FORMATS, BufferSource, Input } from 'mediabunny';
import type { CompressorSettings } from '../src/analysis/audio/compressor.ts';
import type { SpeechTurn } from '../src/analysis/audio/levelling.ts';
import { LoudnessMeter } from '../src/analysis/audio/loudness.ts';
import { seededRandom } from '../src/analysis/signal/random.ts';
import { AudioMixer, OUTPUT_SAMPLE_RATE, SourceAudioReader, type MixLevels } from '../src/render/audio-mix.ts';
import { sharedPath } from '../tools/shared-data.ts';
import { Targets, type AreaEvaluation, type EvalSplits, type TargetResult } from './target.ts';

const RATE = OUTPUT_SAMPLE_RATE;

/** Reader pairs (A, B) per split. */
export const LOUDNESS_SPLITS: EvalSplits<readonly (readonly [string, string])[]> = {
  tuning: [['1688', '2414']],
  test: [
    ['1998', '2033'],
    ['2033', '3080'],
    ['3080', '1998'],
  ],
};

/** A decoded LibriSpeech reader's utterances, 48 kHz mono. */
function readerClips(id: string): Float32Array[] {
  const dir = sharedPath('data', 'librispeech');
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${id}-`) && f.endsWith('.flac'))
    .sort()
    .map((f) => {
      const r = spawnSync(
        'ffmpeg',
        ['-v', 'error', '-i', join(dir, f), '-ac', '1', '-ar', String(RATE), '-f', 'f32le', '-'],
        {
          maxBuffer: 1 << 28,
        },
      );
      if (r.status !== 0) throw new Error(`ffmpeg ${f}: ${r.stderr.toString()}`);
      const out = new Float32Array(r.stdout.length / 4);
      new Uint8Array(out.buffer).set(r.stdout.subarray(0, out.length * 4));
      return out;
    });
}

/** Two mics of a conversation between readers `a` and `b` (see the module doc). */
export function conversation(
  a: string,
  b: string,
  seconds: number,
  seed = 55,
): { micA: Float32Array; micB: Float32Array; turns: SpeechTurn[] } {
  const voices = [readerClips(a), readerClips(b)];
  const total = Math.round(seconds * RATE);
  const micA = new Float32Array(total);
  const micB = new Float32Array(total);
  const turns: SpeechTurn[] = [];
  const random = seededRandom(seed);
  const late = Math.round(0.003 * RATE);
  for (let at = 0, k = 0; at < total; k++) {
    const who = k % 2;
    const clip = voices[who]![Math.floor(k / 2) % voices[who]!.length]!;
    const len = Math.min(total - at, clip.length, Math.round((6 + 8 * random()) * RATE));
    const own = who === 0 ? micA : micB;
    const other = who === 0 ? micB : micA;
    for (let i = 0; i < len; i++) {
      own[at + i] = clip[i]!;
      if (at + i + late < total) other[at + i + late] = 0.125 * clip[i]!;
    }
    turns.push({ speaker: who === 0 ? 'A' : 'B', startMs: (at / RATE) * 1000, endMs: ((at + len) / RATE) * 1000 });
    at += len + Math.round(0.4 * RATE);
  }
  for (let i = 0; i < total; i++) micB[i]! *= 0.25; // 12 dB lower
  return { micA, micB, turns };
}

/** A 32-bit float mono WAV file of `x`. */
function wav(x: Float32Array): Uint8Array {
  const bytes = new Uint8Array(44 + x.length * 4);
  const v = new DataView(bytes.buffer);
  const text = (at: number, s: string): void => [...s].forEach((ch, i) => v.setUint8(at + i, ch.charCodeAt(0)));
  text(0, 'RIFF');
  v.setUint32(4, 36 + x.length * 4, true);
  text(8, 'WAVEfmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 3, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, RATE, true);
  v.setUint32(28, RATE * 4, true);
  v.setUint16(32, 4, true);
  v.setUint16(34, 32, true);
  text(36, 'data');
  v.setUint32(40, x.length * 4, true);
  new Uint8Array(bytes.buffer, 44).set(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  return bytes;
}

/** What one render of a case measured. */
export interface MasteredCase {
  integratedLufs: number;
  truePeakDbtp: number;
  /** Each speaker's speech in the output, LUFS. */
  speechA: number;
  speechB: number;
  levels: MixLevels;
}

/** Renders the two mics through the mixer with mastering at `targetLufs` and measures the output. */
export async function masterCase(
  mics: { micA: Float32Array; micB: Float32Array; turns: SpeechTurn[] },
  options: { targetLufs?: number; nudgeBDb?: number; compressor?: Partial<CompressorSettings> } = {},
): Promise<MasteredCase> {
  const readers: SourceAudioReader[] = [];
  for (const [id, x] of [
    ['micA', mics.micA],
    ['micB', mics.micB],
  ] as const) {
    const input = new Input({ source: new BufferSource(wav(x)), formats: ALL_FORMATS });
    const track = (await input.getPrimaryAudioTrack())!;
    readers.push(new SourceAudioReader(track, RATE, 1, { offsetMs: 0, driftPpm: 0 }, id));
  }
  const keptMs = (mics.micA.length / RATE) * 1000;
  const ranges = [{ outStartMs: 0, outEndMs: keptMs, refStartMs: 0, refEndMs: keptMs, fadeInMs: 0, fadeOutMs: 0 }];
  const mixer = new AudioMixer(
    readers,
    ranges,
    keptMs,
    {
      targetLufs: options.targetLufs ?? -16,
      truePeakDbtp: -1,
      speech: {},
      turns: mics.turns,
      ...(options.compressor ? { compressor: options.compressor } : {}),
    },
    options.nudgeBDb ? { micB: options.nudgeBDb } : {},
  );
  await mixer.prepare();
  const out = new Float32Array(mixer.totalSamples);
  while (!mixer.done) {
    const at = mixer.position;
    const [plane] = await mixer.next(RATE);
    out.set(plane!, at);
  }
  await Promise.all(readers.map((r) => r.dispose()));
  const meter = new LoudnessMeter(RATE, 1);
  meter.push([out]);
  const speech = (speaker: string): number => {
    const m = new LoudnessMeter(RATE, 1, { truePeak: false });
    for (const t of mics.turns.filter((u) => u.speaker === speaker)) {
      const a = Math.round(((t.startMs + 100) / 1000) * RATE);
      const b = Math.round(((t.endMs - 100) / 1000) * RATE);
      if (b > a) m.push([out.subarray(a, b)]);
    }
    return m.integratedLufs;
  };
  return {
    integratedLufs: meter.integratedLufs,
    truePeakDbtp: 20 * Math.log10(meter.truePeak),
    speechA: speech('A'),
    speechB: speech('B'),
    levels: mixer.levels()!,
  };
}

/** One case: plain and nudged renders, and how far the nudge moved the voices apart. */
export async function nudgeCase(
  pair: readonly [string, string],
  seconds: number,
  compressor?: Partial<CompressorSettings>,
): Promise<{ plain: MasteredCase; nudged: MasteredCase; nudgeLu: number }> {
  const mics = conversation(pair[0], pair[1], seconds);
  const plain = await masterCase(mics, compressor ? { compressor } : {});
  const nudged = await masterCase(mics, { nudgeBDb: -6, ...(compressor ? { compressor } : {}) });
  const nudgeLu = nudged.speechA - nudged.speechB - (plain.speechA - plain.speechB);
  return { plain, nudged, nudgeLu };
}

const f = (x: number, digits = 2): string => x.toFixed(digits);

export const evaluateLoudness: AreaEvaluation = async ({ quick, splits, log }) => {
  const targets = new Targets('loudness');
  const seconds = quick ? 60 : 180;
  for (const split of splits) {
    const rows: Array<{
      pair: string;
      nudgeLu: number;
      apart: number;
      i: number[];
      tp: number[];
      limiter: number[];
      comp: number;
    }> = [];
    for (const pair of LOUDNESS_SPLITS[split]) {
      const { plain, nudged, nudgeLu } = await nudgeCase(pair, seconds);
      const name = `${pair[0]}+${pair[1]}`;
      log(
        `[${split}] ${name}, ${seconds} s: plain I ${f(plain.integratedLufs)} LUFS, TP ${f(plain.truePeakDbtp)} dBTP, A−B ${f(plain.speechA - plain.speechB)} LU, limiter ≤ ${plain.levels.limiterMaxReductionDb} dB, compressor ≤ ${plain.levels.compressorMaxReductionDb} dB; nudged (B −6 dB) I ${f(nudged.integratedLufs)}, TP ${f(nudged.truePeakDbtp)}, A−B ${f(nudged.speechA - nudged.speechB)} LU, limiter ≤ ${nudged.levels.limiterMaxReductionDb} dB: the nudge moved B by ${f(nudgeLu)} LU`,
      );
      rows.push({
        pair: name,
        nudgeLu,
        apart: plain.speechA - plain.speechB,
        i: [plain.integratedLufs, nudged.integratedLufs],
        tp: [plain.truePeakDbtp, nudged.truePeakDbtp],
        limiter: [plain.levels.limiterMaxReductionDb, nudged.levels.limiterMaxReductionDb],
        comp: Math.max(plain.levels.compressorMaxReductionDb, nudged.levels.compressorMaxReductionDb),
      });
    }
    const worstNudge = Math.max(...rows.map((r) => Math.abs(r.nudgeLu - 6)));
    targets.on(
      split,
      'a −6 dB nudge on mic B at −16 LUFS moves its speaker 6 ± 1 LU under where it was (BS.1770 meter, speech turns)',
      rows.map((r) => `${r.pair} ${f(r.nudgeLu)} LU`).join(', '),
      worstNudge <= 1,
    );
    targets.on(
      split,
      "each speaker's speech within 2 LU of the other's in the mastered mix (12 LU apart on the mics; no nudge)",
      rows.map((r) => `${r.pair} ${f(r.apart)} LU`).join(', '),
      rows.every((r) => Math.abs(r.apart) <= 2),
    );
    const worstI = Math.max(...rows.flatMap((r) => r.i.map((i) => Math.abs(i + 16))));
    const worstTp = Math.max(...rows.flatMap((r) => r.tp));
    targets.on(
      split,
      'mastered mix (before encoding) at −16 ± 1 LUFS and ≤ −1 dBTP, plain and nudged',
      `I ${rows.map((r) => r.i.map((i) => f(i)).join('/')).join(', ')} LUFS; worst true peak ${f(worstTp)} dBTP`,
      worstI <= 1 && worstTp <= -1,
    );
    targets.info(
      split,
      "the limiter's largest gain reduction after the compressors (plain/nudged), dB",
      rows.map((r) => `${r.pair} ${r.limiter.map((x) => f(x, 1)).join('/')} (compressor ≤ ${f(r.comp, 1)})`).join(', '),
    );
  }
  return targets.results satisfies TargetResult[];
};
