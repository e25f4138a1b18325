/**
 * Audio-stage benchmark (issue 55): the render's mastering as the mixer runs it (the analysis
 * pass over every mic through its speech compressor, the levelling and master-gain plan with
 * the limiter's take estimated from the blocks' peaks, then the one mix pass: compressors,
 * levelled gains, the true-peak limiter and the loudness meter on the way out) against native ffmpeg's `loudnorm` (EBU R128,
 * −16 LUFS, −1 dBTP) on the same two-mic conversation, in the same run. Prints seconds of
 * audio handled per second of wall clock and the ratio.
 *
 *   npx tsx bench/loudness/run.ts [--minutes 10]
 *
 * Input: two LibriSpeech speakers from ../shared/data (turns of 6 to 14 s, alternating), one
 * close mic each at 48 kHz mono, mic B 12 dB lower, each hearing the other 18 dB down. Ours
 * runs on decoded samples in one Node thread (the render adds the second decode of the
 * sources, which this leaves out); ffmpeg reads the two mics from WAV files and mixes them
 * (`amix`) before `loudnorm`, decoding included. Both print their result's loudness.
 *
 * It also prints the audio stage's cost by phase (measure: the compressors and the analysis pass;
 * level: the plan and the master gain; limit: the mix through compressors, limiter and meter)
 * against the analysis it rides on, in the same run: native ffmpeg decoding the two mics from
 * AAC, and the job's sync analysis (alignSources) on the same samples.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SpeechCompressor } from '../../src/analysis/audio/compressor.ts';
import {
  blockSpeakers,
  LEVELLING_BLOCK_SEC,
  LevellingAnalysis,
  masterForLimiter,
  planLevelling,
  type SpeechTurn,
} from '../../src/analysis/audio/levelling.ts';
import { TruePeakLimiter } from '../../src/analysis/audio/limiter.ts';
import { LoudnessMeter } from '../../src/analysis/audio/loudness.ts';
import { ENCODER_PEAK_MARGIN_DB } from '../../src/render/audio-mix.ts';
import { seededRandom } from '../../src/analysis/signal/random.ts';
import { alignSources } from '../../src/analysis/sync/sync.ts';

const RATE = 48_000;
const minutesArg = process.argv.indexOf('--minutes');
const minutes = minutesArg > 0 ? Number(process.argv[minutesArg + 1]) : 10;
const DATA = resolve(import.meta.dirname, '../../../shared/data/librispeech');

function decode(path: string): Float32Array {
  const r = spawnSync('ffmpeg', ['-v', 'error', '-i', path, '-ac', '1', '-ar', String(RATE), '-f', 'f32le', '-'], {
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`ffmpeg ${path}: ${r.stderr.toString()}`);
  const out = new Float32Array(r.stdout.length / 4);
  new Uint8Array(out.buffer).set(r.stdout.subarray(0, out.length * 4));
  return out;
}

const files = readdirSync(DATA).filter((f) => f.endsWith('.flac'));
const voices = ['1688', '2414'].map((id) => files.filter((f) => f.startsWith(id)).map((f) => decode(join(DATA, f))));
const total = Math.round(minutes * 60 * RATE);
const micA = new Float32Array(total);
const micB = new Float32Array(total);
const turns: SpeechTurn[] = [];
const random = seededRandom(55);
for (let at = 0, k = 0; at < total; k++) {
  const who = k % 2;
  const clip = voices[who]![Math.floor(k / 2) % voices[who]!.length]!;
  const len = Math.min(total - at, clip.length, Math.round((6 + 8 * random()) * RATE));
  const own = who === 0 ? micA : micB;
  const other = who === 0 ? micB : micA;
  for (let i = 0; i < len; i++) {
    own[at + i] = clip[i]!;
    other[at + i] = 0.125 * clip[i]!;
  }
  turns.push({ speaker: who === 0 ? 'A' : 'B', startMs: (at / RATE) * 1000, endMs: ((at + len) / RATE) * 1000 });
  at += len + Math.round(0.4 * RATE);
}
for (let i = 0; i < total; i++) micB[i]! *= 0.25; // 12 dB lower
const seconds = total / RATE;

// Ours: the mixer's steps, chunk by chunk as the render runs them, each phase timed.
const t0 = performance.now();
const chunk = RATE;
/** Fresh compressors (one per mic), primed with their look-ahead, and a reader of their output. */
function compressed(): (s: number, n: number) => Float32Array[] {
  const compressors = [new SpeechCompressor(1, RATE), new SpeechCompressor(1, RATE)];
  const lag = compressors[0]!.latency;
  const slice = (mic: Float32Array, s: number, n: number): Float32Array => {
    const out = new Float32Array(n);
    out.set(mic.subarray(Math.min(mic.length, s), Math.min(mic.length, s + n)));
    return out;
  };
  [micA, micB].forEach((mic, m) => compressors[m]!.process([slice(mic, 0, lag)]));
  return (s, n) => [micA, micB].map((mic, m) => compressors[m]!.process([slice(mic, s + lag, n)])[0]!);
}
const analysis = new LevellingAnalysis(2, 1, RATE);
// The recorded mics are measured beside, for the report (as the mixer does).
const recorded = [new LevellingAnalysis(1, 1, RATE), new LevellingAnalysis(1, 1, RATE)];
const read = compressed();
for (let s = 0; s < total; s += chunk) {
  const n = Math.min(chunk, total - s);
  const [a, b] = read(s, n);
  analysis.push([[a!], [b!]]);
  recorded.forEach((r, m) => r.push([[[micA, micB][m]!.subarray(s, s + n)]]));
}
analysis.finish();
for (const r of recorded) r.finish();
const tMeasured = performance.now();
const blockTimesMs = Float64Array.from({ length: analysis.length }, (_, b) => (b + 0.5) * LEVELLING_BLOCK_SEC * 1000);
const speech = [turns.filter((t) => t.speaker === 'A'), turns.filter((t) => t.speaker === 'B')];
const plan = planLevelling({
  energies: [analysis.sourceEnergies(0), analysis.sourceEnergies(1)],
  blockTimesMs,
  speech,
});
const levelled = plan.gainsDb.map((db) => Float64Array.from(db, (g) => 0.5 * 10 ** (g / 20)));
const blockSamples = LEVELLING_BLOCK_SEC * RATE;
const CEILING = -1 - ENCODER_PEAK_MARGIN_DB;
// The master gain and the speakers' steps for what the limiter will take, estimated from the blocks' peaks.
const mastered = masterForLimiter({
  analysis,
  gains: levelled,
  targetLufs: -16,
  ceilingDbtp: CEILING,
  owners: blockSpeakers(blockTimesMs, speech.flat()),
  trimOf: new Map([
    ['A', 0],
    ['B', 0],
  ]),
  holders: plan.holders,
});
const master = mastered.masterGainDb;
const tLevelled = performance.now();

/** The one pass of the levelled, compressed mix through the limiter into the meter, as the mixer's. */
function mixPass(gains: Float32Array[]): { meter: LoudnessMeter; limiter: TruePeakLimiter; output: Float32Array[] } {
  const limiter = new TruePeakLimiter(1, RATE, { ceilingDbtp: CEILING });
  const meter = new LoudnessMeter(RATE, 1, { truePeak: true });
  const output: Float32Array[] = [];
  const out = (x: Float32Array[]): Float32Array[] => {
    output.push(x[0]!);
    return x;
  };
  const next = compressed();
  for (let s = 0; s < total; s += chunk) {
    const n = Math.min(chunk, total - s);
    const mix = new Float32Array(n);
    next(s, n).forEach((mic, m) => {
      const g = gains[m]!;
      for (let i = 0; i < n; i++) {
        const u = (s + i) / blockSamples - 0.5;
        const b = Math.max(0, Math.floor(u));
        const g0 = g[Math.min(g.length - 1, b)]!;
        const g1 = g[Math.min(g.length - 1, b + 1)]!;
        mix[i]! += (g0 + (g1 - g0) * (u - Math.floor(u))) * mic[i]!;
      }
    });
    meter.push(out(limiter.process([mix])));
  }
  meter.push(out(limiter.flush()));
  return { meter, limiter, output };
}
const final = mixPass(mastered.gains.map((g) => Float32Array.from(g, (x) => x * 10 ** (master / 20))));
const meter = final.meter;
const tEnd = performance.now();
const oursMs = tEnd - t0;
const ours = meter.summary();

// The analysis the audio stage rides on, on the same input in the same run: (1) native ffmpeg
// decoding both mics from AAC (as a camera's or phone's sound comes; encoded beforehand,
// untimed), the decode the render's mixer reads its samples through; (2) the job's sync
// analysis (alignSources, as the syncing stage runs it on decoded samples).
const aacDir = mkdtempSync(join(tmpdir(), 'loudness-bench-aac-'));
const f32 = (x: Float32Array): string => {
  const raw = join(aacDir, `${Math.random().toString(36).slice(2)}.f32`);
  writeFileSync(raw, Buffer.from(x.buffer, x.byteOffset, x.byteLength));
  const m4a = raw.replace(/\.f32$/, '.m4a');
  const enc = spawnSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'f32le',
    '-ar',
    String(RATE),
    '-ac',
    '1',
    '-i',
    raw,
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    m4a,
  ]);
  if (enc.status !== 0) throw new Error(`ffmpeg aac: ${enc.stderr.toString()}`);
  return m4a;
};
const aacFiles = [f32(micA), f32(micB)];
const d0 = performance.now();
for (const file of aacFiles) decode(file);
const decodeMs = performance.now() - d0;
rmSync(aacDir, { recursive: true, force: true });
const a0 = performance.now();
let syncNote: string;
try {
  const aligned = alignSources([
    { id: 'micA', samples: micA, sampleRate: RATE },
    { id: 'micB', samples: micB, sampleRate: RATE },
  ]);
  syncNote = `offset of mic B ${aligned[1]?.offsetMs.toFixed(1)} ms`;
} catch (error) {
  syncNote = `failed: ${(error as Error).message}`;
}
const syncMs = performance.now() - a0;

// Native ffmpeg: amix + loudnorm over the same two mics, from WAV files.
const dir = mkdtempSync(join(tmpdir(), 'loudness-bench-'));
const wav = (x: Float32Array): Buffer => {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + x.length * 4, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(3, 20); // IEEE float
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(32, 34);
  header.write('data', 36);
  header.writeUInt32LE(x.length * 4, 40);
  return Buffer.concat([header, Buffer.from(x.buffer, x.byteOffset, x.byteLength)]);
};
writeFileSync(join(dir, 'a.wav'), wav(micA));
writeFileSync(join(dir, 'b.wav'), wav(micB));
const f0 = performance.now();
const r = spawnSync('ffmpeg', [
  '-nostats',
  '-hide_banner',
  '-i',
  join(dir, 'a.wav'),
  '-i',
  join(dir, 'b.wav'),
  '-filter_complex',
  'amix=inputs=2,loudnorm=I=-16:TP=-1:print_format=summary',
  '-f',
  'null',
  '-',
]);
const ffmpegMs = performance.now() - f0;

// Our mastered output, read by native ffmpeg's ebur128 (integrated loudness and true peak), and
// each speaker's speech in it by our meter over their turns (the render's AAC step left out).
const mixed = new Float32Array(final.output.reduce((n, x) => n + x.length, 0));
final.output.reduce((at, x) => (mixed.set(x, at), at + x.length), 0);
final.output.length = 0;
writeFileSync(join(dir, 'ours.wav'), wav(mixed));
// ebur128 logs a line per 100 ms (36 000 lines an hour): room for them all.
const eb = spawnSync(
  'ffmpeg',
  ['-nostats', '-hide_banner', '-i', join(dir, 'ours.wav'), '-af', 'ebur128=peak=true', '-f', 'null', '-'],
  { maxBuffer: 1 << 28 },
);
const ebText = eb.stderr.toString();
const summaryAt = ebText.lastIndexOf('Summary:');
const oursByFfmpeg = {
  integrated: /I:\s+(-?[\d.]+) LUFS/.exec(ebText.slice(summaryAt))?.[1],
  truePeak: /Peak:\s+(-?[\d.]+) dBFS/.exec(ebText.slice(summaryAt))?.[1],
};
const speechIn = (speaker: string): number => {
  const m = new LoudnessMeter(RATE, 1, { truePeak: false });
  for (const t of turns) {
    if (t.speaker !== speaker || t.endMs - t.startMs < 1000) continue;
    m.push([
      mixed.subarray(Math.round(((t.startMs + 200) / 1000) * RATE), Math.round(((t.endMs - 200) / 1000) * RATE)),
    ]);
  }
  return m.integratedLufs;
};
const speechA = speechIn('A');
const speechB = speechIn('B');
rmSync(dir, { recursive: true, force: true });
const text = r.stderr.toString();
const outputI = /Output Integrated:\s+(-?[\d.]+)/.exec(text)?.[1];
const outputTp = /Output True Peak:\s+(-?[\d.+]+)/.exec(text)?.[1];

console.log(`input: ${minutes} min, two mics (B 12 dB lower), 48 kHz mono`);
console.log(
  `ours (analysis + levelling + mix + limiter + meter): ${(oursMs / 1000).toFixed(2)} s = ${(seconds / (oursMs / 1000)).toFixed(0)}× real time; result I ${ours.integratedLufs} LUFS, true peak ${ours.truePeakDbtp} dBTP; gains ${plan.speakers.map((s) => `${s[0]!.speaker} ${s[0]!.gainDb.toFixed(1)} dB`).join(', ')}`,
);
console.log(
  `ffmpeg amix + loudnorm (native): ${(ffmpegMs / 1000).toFixed(2)} s = ${(seconds / (ffmpegMs / 1000)).toFixed(0)}× real time; result I ${outputI} LUFS, true peak ${outputTp} dBTP (no levelling)`,
);
console.log(
  `ours: master gain ${master.toFixed(2)} dB (the limiter's take estimated from the blocks' peaks: ${mastered.limitedLufs.toFixed(2)} LUFS expected), compressors then the limiter at most ${final.limiter.maxReductionDb.toFixed(1)} dB`,
);
console.log(
  `ours read by native ffmpeg ebur128: I ${oursByFfmpeg.integrated} LUFS, true peak ${oursByFfmpeg.truePeak} dBTP (target −16 ± 1 LUFS, ≤ −1 dBTP; before the AAC encode); speech in the mix: A ${speechA.toFixed(2)}, B ${speechB.toFixed(2)} LUFS (${Math.abs(speechA - speechB).toFixed(2)} LU apart; 12 LU on the mics)`,
);
console.log(`ratio ours / ffmpeg: ${(oursMs / ffmpegMs).toFixed(2)}`);
const sec = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
console.log(
  `audio stage by phase: measure (compressors + analysis) ${sec(tMeasured - t0)}, level (plan, master gain for the limiter) ${sec(tLevelled - tMeasured)}, limit (the one mix pass: compressors, gains, limiter, meter) ${sec(tEnd - tLevelled)}; total ${sec(oursMs)}`,
);
console.log(
  `the analysis it rides on, same input, same run: native ffmpeg decoding both mics from AAC ${sec(decodeMs)} (${(seconds / (decodeMs / 1000)).toFixed(0)}× real time); sync analysis (alignSources) ${sec(syncMs)} (${syncNote})`,
);
console.log(
  `audio stage cost: ${(oursMs / decodeMs).toFixed(2)}× the native decode of its sources, ${(oursMs / syncMs).toFixed(2)}× the sync analysis`,
);
