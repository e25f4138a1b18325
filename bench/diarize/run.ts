/**
 * Speaker-detection benchmark: × real time of Silero VAD and diarization on 10 minutes of
 * assembled conversation (3 LibriSpeech readers, 16 kHz).
 *
 * VAD rows, all with SileroVad's 16 batched lanes unless said otherwise:
 * - Chromium, the engine's code path (test/browser/pages/vad.html, cross-origin isolated):
 *   the baseline is the plain `onnxruntime-web` entry on the wasm EP (what the engine loaded
 *   before: the JSEP binary), then `onnxruntime-web/wasm` with 1 and 2 threads, each with its
 *   ratio to the baseline and its largest probability difference from the 1-thread run;
 * - WebGPU in Chromium (`--enable-unsafe-webgpu`): here only SwiftShader, a software fallback
 *   adapter the engine refuses, so it runs on the first `--gpu-seconds` (default 66 s: the
 *   shortest input that gets all 16 lanes, so the batch shape is the engine's) and the 10-minute
 *   time is extrapolated from the time per batched step; it is labelled as such;
 * - per-mic in Chromium, the engine's analysis worker on three mics: VAD with the channels one
 *   after the other (one lane) against side by side (a worker per channel), and whether the
 *   turns are the same;
 * - Node (`onnxruntime-web/wasm`, 1 and 2 threads, and 1 lane streaming): the figures the
 *   evaluation tools see.
 *
 * Usage: npx tsx bench/diarize/run.ts [--minutes 10] [--gpu-seconds 66] [--no-browser] [--no-gpu]
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import { speechSegments } from '../../src/analysis/speech/vad.ts';
import { diarizeMixWithDiagnostics } from '../../src/analysis/diarize/mix.ts';
import { diarizePerMic } from '../../src/analysis/diarize/per-mic.ts';
import { SILERO_FRAME_SAMPLES } from '../../src/models/silero-vad.ts';
import { assembleConversation, withBleed } from '../../tools/diarization/assemble.ts';
import { openVadBrowser, type BrowserVadRun } from '../../tools/diarization/chromium-vad.ts';
import { createNodeVad } from '../../tools/diarization/vad-node.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const minutes = option('--minutes', 10);
const gpuSeconds = option('--gpu-seconds', 66);
const RATE = 16000;
/** SileroVad's defaults (src/models/silero-vad.ts). */
const LANES = 16;
const WARMUP = 32;

const conv = assembleConversation({ speakers: 3, seconds: minutes * 60, seed: 21 });
const seconds = conv.mix.length / RATE;
console.log(`input: ${seconds.toFixed(0)} s assembled conversation, 3 speakers, 16 kHz mono`);

const xrt = (audioSeconds: number, ms: number): string => `${(audioSeconds / (ms / 1000)).toFixed(0)}× real time`;
function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - (b[i] ?? NaN)));
  return max;
}
const sameSegments = (a: ArrayLike<number>, b: ArrayLike<number>): boolean =>
  JSON.stringify(speechSegments(a)) === JSON.stringify(speechSegments(b));
/** Batched steps SileroVad runs for `frames` frames (as speechProbabilities computes them). */
function vadSteps(frames: number): number {
  const lanes = Math.max(1, Math.min(LANES, Math.floor(frames / (4 * WARMUP + 1))));
  return Math.ceil(frames / lanes) + (lanes > 1 ? WARMUP : 0);
}

if (!args.includes('--no-browser')) {
  console.log("\nVAD in Chromium (the engine's loading code, 16 lanes):");
  const browser = await openVadBrowser({ webgpu: !args.includes('--no-gpu') });
  try {
    const baseline = await browser.run(conv.mix, { provider: 'wasm', threads: 1, bundle: 'default' });
    console.log(
      `  baseline: onnxruntime-web (default bundle, JSEP binary) on wasm, 1 thread: ${(baseline.ms / 1000).toFixed(2)} s = ${xrt(seconds, baseline.ms)} (session ${baseline.loadMs.toFixed(0)} ms)`,
    );
    let oneThread: BrowserVadRun | undefined;
    for (const threads of [1, 2]) {
      const run = await browser.run(conv.mix, { provider: 'wasm', threads });
      oneThread ??= run;
      console.log(
        `  onnxruntime-web/wasm, ${threads} thread(s)${run.crossOriginIsolated ? '' : ' (NOT cross-origin isolated)'}: ${(run.ms / 1000).toFixed(2)} s = ${xrt(seconds, run.ms)}, ` +
          `${(baseline.ms / run.ms).toFixed(2)}× the baseline (session ${run.loadMs.toFixed(0)} ms); max |Δp| vs baseline ${maxAbsDiff(baseline.probs, run.probs).toExponential(1)}`,
      );
    }
    if (!args.includes('--no-gpu')) {
      const short = conv.mix.subarray(0, Math.min(conv.mix.length, Math.round(gpuSeconds * RATE)));
      const shortSeconds = short.length / RATE;
      try {
        const gpu = await browser.run(short, { provider: 'webgpu', allowFallbackAdapter: true });
        const wasm = await browser.run(short, { provider: 'wasm', threads: 1 });
        const frames = (n: number): number => Math.ceil(n / SILERO_FRAME_SAMPLES);
        const extrapolatedMs = (gpu.ms / vadSteps(frames(short.length))) * vadSteps(frames(conv.mix.length));
        const software = gpu.adapter.includes('fallback=true');
        console.log(
          `  WebGPU (${gpu.adapter}${software ? ': SOFTWARE fallback adapter, the engine refuses it' : ''}), first ${shortSeconds.toFixed(0)} s only: ` +
            `${(gpu.ms / 1000).toFixed(1)} s = ${(shortSeconds / (gpu.ms / 1000)).toFixed(2)}× real time (wasm 1 thread on the same: ${xrt(shortSeconds, wasm.ms)}); ` +
            `${minutes} min extrapolated from the time per batched step: ~${(extrapolatedMs / 1000).toFixed(0)} s = ${(seconds / (extrapolatedMs / 1000)).toFixed(2)}× real time, ` +
            `${(baseline.ms / extrapolatedMs).toFixed(3)}× the baseline; max |Δp| vs wasm ${maxAbsDiff(wasm.probs, gpu.probs).toExponential(1)}, same speech segments: ${sameSegments(wasm.probs, gpu.probs)}`,
        );
      } catch (error) {
        console.log(`  WebGPU: not available (${(error as Error).message.split('\n')[0]})`);
      }
    }
    // Per-mic VAD in the engine's analysis worker: the channels one after the other, then side by side in lanes.
    const mics = withBleed(conv.tracks);
    const oneLane = await browser.diarize(mics, { vadLanes: 1 });
    const lanes = await browser.diarize(mics, { vadLanes: mics.length });
    if (oneLane.outcome.ok && lanes.outcome.ok) {
      const same = JSON.stringify(oneLane.outcome.result) === JSON.stringify(lanes.outcome.result);
      console.log(
        `  per-mic in the analysis worker, ${mics.length} mics × ${minutes} min: VAD one lane ${(oneLane.outcome.vadMs / 1000).toFixed(1)} s, ` +
          `${lanes.outcome.vadLanes} lanes ${(lanes.outcome.vadMs / 1000).toFixed(1)} s (${(oneLane.outcome.vadMs / lanes.outcome.vadMs).toFixed(2)}×, ` +
          `${availableParallelism()} cores here); whole call ${xrt(seconds, oneLane.ms)} → ${xrt(seconds, lanes.ms)} of ${mics.length}-mic audio; same turns: ${same}`,
      );
    } else console.log('  per-mic in the analysis worker: diarize failed');
  } finally {
    await browser.close();
  }
}

console.log('\nVAD in Node (onnxruntime-web/wasm):');
let wasmProbs: Float32Array | undefined;
let nodeOneThreadMs = 0;
for (const threads of [1, 2]) {
  const vad = await createNodeVad(threads);
  const t0 = performance.now();
  const probs = await vad.speechProbabilities(conv.mix);
  const ms = performance.now() - t0;
  wasmProbs ??= probs;
  nodeOneThreadMs ||= ms;
  console.log(
    `  ${threads} thread(s), 16 lanes: ${(ms / 1000).toFixed(2)} s = ${xrt(seconds, ms)}, ${(nodeOneThreadMs / ms).toFixed(2)}× 1 thread`,
  );
  await vad.dispose();
}
{
  const vad = await createNodeVad(1, { lanes: 1 });
  const slice = conv.mix.subarray(0, 60 * RATE);
  const t0 = performance.now();
  await vad.speechProbabilities(slice);
  const ms = performance.now() - t0;
  console.log(`  1 thread, streaming (1 lane), first 60 s: ${xrt(60, ms)}`);
  await vad.dispose();
}

console.log('\nDiarization after VAD:');
{
  const t0 = performance.now();
  const { result, diagnostics } = diarizeMixWithDiagnostics(conv.mix, RATE, wasmProbs!);
  const ms = performance.now() - t0;
  const found = result.kind === 'speakers' ? result.speakers.length : 0;
  console.log(
    `  single-mix: ${(ms / 1000).toFixed(2)} s = ${xrt(seconds, ms)}; ${found} speakers, ${diagnostics.segments} pieces`,
  );
}
{
  const mics = withBleed(conv.tracks);
  const vad = await createNodeVad(1);
  const probs: Float32Array[] = [];
  const t0 = performance.now();
  for (const m of mics) probs.push(await vad.speechProbabilities(m));
  const t1 = performance.now();
  diarizePerMic(mics, RATE, probs);
  const t2 = performance.now();
  console.log(
    `  per-mic, 3 mics: VAD ${((t1 - t0) / 1000).toFixed(2)} s, attribution ${((t2 - t1) / 1000).toFixed(2)} s = ${xrt(seconds, t2 - t0)} overall`,
  );
  await vad.dispose();
}
