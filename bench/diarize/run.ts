/**
 * Speaker-detection benchmark: × real time of Silero VAD and single-mix diarization on 10
 * minutes of assembled conversation, on onnxruntime-web wasm with 1 and 2 threads (Node),
 * and the WebGPU path in Chromium (`--enable-unsafe-webgpu`; here a SwiftShader fallback
 * adapter, so only a few seconds of input, to show the path runs and agrees with wasm).
 *
 * Usage: npx tsx bench/diarize/run.ts [--minutes 10] [--no-browser]
 *
 * @module
 */
import { diarizeMixWithDiagnostics } from '../../src/analysis/diarize/mix.ts';
import { diarizePerMic } from '../../src/analysis/diarize/per-mic.ts';
import { assembleConversation, withBleed } from '../../tools/diarization/assemble.ts';
import { createNodeVad } from '../../tools/diarization/vad-node.ts';
import { runVadInChromium } from '../../tools/diarization/chromium-vad.ts';

const args = process.argv.slice(2);
const minutes = args.includes('--minutes') ? Number(args[args.indexOf('--minutes') + 1]) : 10;
const conv = assembleConversation({ speakers: 3, seconds: minutes * 60, seed: 21 });
const seconds = conv.mix.length / 16000;
console.log(`input: ${seconds.toFixed(0)} s assembled conversation, 3 speakers, 16 kHz mono`);

let wasmProbs: Float32Array | undefined;
for (const threads of [1, 2]) {
  const vad = await createNodeVad(threads);
  const t0 = performance.now();
  const probs = await vad.speechProbabilities(conv.mix);
  const ms = performance.now() - t0;
  wasmProbs ??= probs;
  console.log(`VAD wasm ${threads} thread(s), 16 lanes: ${(ms / 1000).toFixed(2)} s = ${(seconds / (ms / 1000)).toFixed(0)}× real time`);
  await vad.dispose();
}
{
  const vad = await createNodeVad(1, { lanes: 1 });
  const slice = conv.mix.subarray(0, 60 * 16000);
  const t0 = performance.now();
  await vad.speechProbabilities(slice);
  const ms = performance.now() - t0;
  console.log(`VAD wasm 1 thread, streaming (1 lane), first 60 s: ${(60 / (ms / 1000)).toFixed(0)}× real time`);
  await vad.dispose();
}
{
  const t0 = performance.now();
  const { result, diagnostics } = diarizeMixWithDiagnostics(conv.mix, 16000, wasmProbs!);
  const ms = performance.now() - t0;
  const found = result.kind === 'speakers' ? result.speakers.length : 0;
  console.log(`single-mix diarization (after VAD): ${(ms / 1000).toFixed(2)} s = ${(seconds / (ms / 1000)).toFixed(0)}× real time; ${found} speakers, ${diagnostics.segments} pieces`);
}
{
  const mics = withBleed(conv.tracks);
  const vad = await createNodeVad(1);
  const probs: Float32Array[] = [];
  const t0 = performance.now();
  for (const m of mics) probs.push(await vad.speechProbabilities(m));
  const t1 = performance.now();
  diarizePerMic(mics, 16000, probs);
  const t2 = performance.now();
  console.log(`per-mic, 3 mics: VAD ${((t1 - t0) / 1000).toFixed(2)} s, attribution ${((t2 - t1) / 1000).toFixed(2)} s = ${(seconds / ((t2 - t0) / 1000)).toFixed(0)}× real time overall`);
  await vad.dispose();
}

if (!args.includes('--no-browser')) {
  const shortSeconds = 2;
  const short = conv.mix.subarray(0, shortSeconds * 16000);
  const vad = await createNodeVad(1, { lanes: 1 });
  const reference = await vad.speechProbabilities(short);
  await vad.dispose();
  for (const provider of ['wasm', 'webgpu'] as const) {
    try {
      const r = await runVadInChromium(short, provider);
      let maxDiff = 0;
      for (let i = 0; i < reference.length; i++) maxDiff = Math.max(maxDiff, Math.abs(reference[i]! - (r.probs[i] ?? NaN)));
      console.log(
        `Chromium ${provider} (${r.adapter}): ${shortSeconds} s in ${(r.ms / 1000).toFixed(2)} s = ${(shortSeconds / (r.ms / 1000)).toFixed(2)}× real time; ` +
          `max |p − p_node_wasm| = ${maxDiff.toExponential(2)}`,
      );
    } catch (error) {
      console.log(`Chromium ${provider}: not available (${(error as Error).message})`);
    }
  }
}
