/**
 * diarizeMix with the speaker-embedding slot: embeddings from SpeakerEmbedding running a TEST
 * DOUBLE model (test/support/onnx-model.ts: per-bin spread of the mean-normalised fbank) on a
 * conversation of two LibriSpeech readers taking turns. The clustering must follow the
 * embeddings: ones that tell the voices apart give two speakers, uninformative ones (every
 * window the same vector, a TEST DOUBLE grid) give one.
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-web/wasm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { diarizationErrorRate } from '../../../src/analysis/diarize/der.ts';
import type { EmbeddingGrid } from '../../../src/analysis/diarize/embeddings.ts';
import { diarizeMix } from '../../../src/analysis/diarize/mix.ts';
import type { Turn } from '../../../src/contract/types.ts';
import { SpeakerEmbedding } from '../../../src/models/embedding.ts';
import { configureOrtWasm } from '../../../src/models/ort-runtime.ts';
import type { SileroVad } from '../../../src/models/silero-vad.ts';
import { librispeechReaders } from '../../../tools/diarization/assemble.ts';
import { decodeWithFfmpeg } from '../../../tools/diarization/audio.ts';
import { createNodeVad } from '../../../tools/diarization/vad-node.ts';
import { fbankSpreadEmbeddingModel } from '../../support/onnx-model.ts';
import { patient } from '../../support/patience.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('diarizeMix with host speaker embeddings', () => {
  let vad: SileroVad;
  let embedding: SpeakerEmbedding;
  let mix: Float32Array;
  let truth: Turn[];
  let probs: Float32Array;
  beforeAll(async () => {
    vad = await createNodeVad(1);
    const runtime = ort;
    configureOrtWasm(runtime, join(ROOT, 'node_modules', 'onnxruntime-web', 'dist') + '/', 1);
    embedding = await SpeakerEmbedding.create(runtime, fbankSpreadEmbeddingModel());
    // Readers 1998 and 2033 alternate, three utterances each, 0.5 s apart (about 55 s).
    const readers = librispeechReaders();
    const parts: Array<{ samples: Float32Array; speaker: string }> = [];
    for (let k = 0; k < 3; k++) {
      for (const id of ['1998', '2033'])
        parts.push({ samples: decodeWithFfmpeg(readers.get(id)![k]!).samples, speaker: id });
    }
    const gap = 8000;
    mix = new Float32Array(parts.reduce((n, p) => n + p.samples.length + gap, 0));
    truth = [];
    let offset = 0;
    for (const p of parts) {
      mix.set(p.samples, offset);
      truth.push({ speaker: p.speaker, startMs: offset / 16, endMs: (offset + p.samples.length) / 16 });
      offset += p.samples.length + gap;
    }
    probs = await vad.speechProbabilities(mix);
  }, patient(60_000));
  afterAll(async () => {
    await vad?.dispose();
    await embedding?.dispose();
  });

  test('embeddings that tell the voices apart give the two speakers; uninformative ones give one', async () => {
    const grid = await embedding.embedWindows(mix);
    const withModel = diarizeMix(mix, 16000, probs, { embeddings: grid });
    if (withModel.kind !== 'speakers') throw new Error(`expected speakers, got ${withModel.kind}`);
    const score = diarizationErrorRate(truth, withModel.turns);
    console.log(
      `[mix-embeddings] speakers ${withModel.speakers.length}, DER ${score.der.toFixed(3)}, confusion ${(score.confusion / score.scored).toFixed(3)}`,
    );
    expect(withModel.speakers.length).toBe(2);
    expect(score.confusion / score.scored).toBeLessThan(0.2);

    // TEST DOUBLE grid: every window the same vector, so nothing separates the pieces.
    const flat: EmbeddingGrid = {
      ...grid,
      vectors: grid.vectors.map(() => new Float32Array(grid.vectors[0]!.length).fill(1)),
    };
    const flatResult = diarizeMix(mix, 16000, probs, { embeddings: flat });
    if (flatResult.kind !== 'speakers') throw new Error(`expected speakers, got ${flatResult.kind}`);
    expect(flatResult.speakers.length).toBe(1);
  });
});
