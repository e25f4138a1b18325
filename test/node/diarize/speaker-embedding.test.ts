/**
 * SpeakerEmbedding (src/models/embedding.ts) on onnxruntime-web's wasm build in Node, with a
 * TEST DOUBLE embedding model built here as ONNX bytes (test/support/onnx-model.ts): per-bin
 * spread of the mean-normalised fbank. No real embedding model ships with the repository; the
 * double has the same input/output convention, so loading, windowing, batching, shape checks
 * and the similarity of real voices are all exercised.
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-web/wasm';
import { beforeAll, describe, expect, test } from 'vitest';
import { pieceSimilarity } from '../../../src/analysis/diarize/embeddings.ts';
import { kaldiFbank } from '../../../src/analysis/speech/fbank.ts';
import { EmbeddingModelError, SpeakerEmbedding } from '../../../src/models/embedding.ts';
import { configureOrtWasm } from '../../../src/models/ort-runtime.ts';
import { librispeechReaders } from '../../../tools/diarization/assemble.ts';
import { decodeWithFfmpeg } from '../../../tools/diarization/audio.ts';
import { encodeOnnxModel, fbankSpreadEmbeddingModel, OnnxType } from '../../support/onnx-model.ts';
import { sharedPath } from '../../../tools/shared-data.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const runtime = ort;

beforeAll(() => {
  // A plain directory path: with a file: URL onnxruntime-web tries fetch() and fails in Node.
  configureOrtWasm(runtime, join(ROOT, 'node_modules', 'onnxruntime-web', 'dist') + '/', 1);
});

describe('SpeakerEmbedding with a test-double model', () => {
  test('reads the input and output names and the embedding size from the model', async () => {
    const model = await SpeakerEmbedding.create(
      runtime,
      fbankSpreadEmbeddingModel({ inputName: 'feature', outputName: 'embedding' }),
    );
    expect(model.inputName).toBe('feature');
    expect(model.outputName).toBe('embedding');
    expect(model.dim).toBe(80);
    await model.dispose();
  });

  test('slides 1.5 s windows every 0.75 s over the signal, in batches', async () => {
    const model = await SpeakerEmbedding.create(runtime, fbankSpreadEmbeddingModel(), { batchSize: 4 });
    const noise = (seconds: number): Float32Array =>
      Float32Array.from(
        { length: seconds * 16000 },
        (_, i) => Math.sin(i * 0.37) * 0.1 + Math.sin(i * 1.91 + (i % 97)) * 0.05,
      );
    // 10 s → 998 fbank frames → windows at 0, 75, …, 825 frames: 12 (3 batches of 4).
    const grid = await model.embedWindows(noise(10));
    expect(grid.windowMs).toBe(1500);
    expect(grid.hopMs).toBe(750);
    expect(grid.vectors.length).toBe(12);
    expect(grid.vectors.every((v) => v.length === 80 && v.every(Number.isFinite))).toBe(true);
    // Shorter than a window: one window of all of it; shorter than 0.5 s: none.
    expect((await model.embedWindows(noise(1))).vectors.length).toBe(1);
    expect((await model.embedWindows(noise(0.3))).vectors.length).toBe(0);
    expect((await model.embedWindows(noise(10), { windowMs: 2000, hopMs: 1000 })).vectors.length).toBe(8);
    await expect(model.embedWindows(noise(10), { windowMs: 1505 })).rejects.toThrow(/windowMs/);
    await expect(model.embedWindows(noise(10), {}, AbortSignal.abort())).rejects.toThrow();
    await model.dispose();
  });

  test('feeds the model 80-bin Kaldi fbank of each window with the window mean removed (batches equal one pass over the file)', async () => {
    const speech = decodeWithFfmpeg(sharedPath('data', 'librispeech', '1998-15444-0001.flac')).samples;
    const model = await SpeakerEmbedding.create(runtime, fbankSpreadEmbeddingModel(), { batchSize: 3 });
    const grid = await model.embedWindows(speech);
    // What the test double computes, from one fbank pass over the whole file: per-bin RMS of the mean-removed window.
    const fb = kaldiFbank(speech, { numMelBins: 80 });
    const expected = (window: number): Float64Array => {
      const out = new Float64Array(80);
      for (let k = 0; k < 80; k++) {
        let mean = 0;
        for (let t = 0; t < 150; t++) mean += fb.data[(window * 75 + t) * 80 + k]!;
        mean /= 150;
        let sq = 0;
        for (let t = 0; t < 150; t++) sq += (fb.data[(window * 75 + t) * 80 + k]! - mean) ** 2;
        out[k] = Math.sqrt(sq / 150);
      }
      return out;
    };
    expect(grid.vectors.length).toBe(Math.floor((fb.frames - 150) / 75) + 1);
    for (const window of [0, 4, grid.vectors.length - 1]) {
      const want = expected(window);
      const got = grid.vectors[window]!;
      for (let k = 0; k < 80; k++) expect(Math.abs(got[k]! - want[k]!)).toBeLessThan(1e-3 * Math.max(1, want[k]!));
    }
    await model.dispose();
  });

  test('a model of another shape is refused with an error naming the model', async () => {
    const label = 'https://host.example/models/wrong.onnx';
    // 40 mel bins instead of 80.
    await expect(SpeakerEmbedding.create(runtime, fbankSpreadEmbeddingModel({ bins: 40 }), { label })).rejects.toThrow(
      new RegExp(`${label.replace(/[.]/g, '\\.')}: input "feats" is \\[B, T, 40\\]`),
    );
    // Output [B, 1, 80] (keepdims) instead of [B, dim].
    const keepdims = encodeOnnxModel({
      name: 'keepdims-test-double',
      inputs: [{ name: 'feats', elemType: OnnxType.FLOAT, shape: ['B', 'T', 80] }],
      outputs: [{ name: 'embs', elemType: OnnxType.FLOAT, shape: ['B', 1, 80] }],
      nodes: [
        {
          opType: 'ReduceMean',
          inputs: ['feats'],
          outputs: ['embs'],
          attributes: [
            { name: 'axes', ints: [1] },
            { name: 'keepdims', int: 1 },
          ],
        },
      ],
    });
    const error = await SpeakerEmbedding.create(runtime, keepdims, { label }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingModelError);
    expect((error as Error).message).toContain(label);
    expect((error as Error).message).toContain('output "embs" is [B, 1, 80]');
    // Undeclared output shape, and the output follows the frames ([B, T]): the trial inputs catch it.
    const undeclared = encodeOnnxModel({
      name: 'undeclared-test-double',
      inputs: [{ name: 'feats', elemType: OnnxType.FLOAT, shape: ['B', 'T', 80] }],
      outputs: [{ name: 'embs', elemType: OnnxType.FLOAT }],
      nodes: [
        {
          opType: 'ReduceMean',
          inputs: ['feats'],
          outputs: ['embs'],
          attributes: [
            { name: 'axes', ints: [2] },
            { name: 'keepdims', int: 0 },
          ],
        },
      ],
    });
    await expect(SpeakerEmbedding.create(runtime, undeclared, { label })).rejects.toThrow(
      /a \[2, 100, 80\] input gave output \[2, 100\]/,
    );
    // Not ONNX at all.
    await expect(
      SpeakerEmbedding.create(runtime, new TextEncoder().encode('<html>404</html>'), { label }),
    ).rejects.toThrow(new RegExp(`${label.replace(/[.]/g, '\\.')}: not a loadable ONNX model`));
  });
});

describe('SpeakerEmbedding on real speech (LibriSpeech readers)', () => {
  test('pieces of the same reader are closer than pieces of two readers, for every pair of readers', async () => {
    const model = await SpeakerEmbedding.create(runtime, fbankSpreadEmbeddingModel());
    const readers = [...librispeechReaders().entries()];
    expect(readers.length).toBeGreaterThanOrEqual(2);
    const audio = new Map(
      readers.map(([id, files]) => [id, files.slice(0, 2).map((f) => decodeWithFfmpeg(f).samples)]),
    );
    const margins: string[] = [];
    for (let a = 0; a < readers.length; a++) {
      for (let b = a + 1; b < readers.length; b++) {
        // Two utterances of each reader, back to back; 1.5 s pieces inside each utterance.
        const parts = [...audio.get(readers[a]![0])!, ...audio.get(readers[b]![0])!];
        const mix = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
        const pieces: Array<[number, number]> = [];
        const reader: number[] = [];
        let offset = 0;
        parts.forEach((part, k) => {
          mix.set(part, offset);
          const endMs = ((offset + part.length) / 16000) * 1000;
          for (let s = (offset / 16000) * 1000; s + 1500 <= endMs; s += 1500) {
            pieces.push([s, s + 1500]);
            reader.push(k < 2 ? 0 : 1);
          }
          offset += part.length;
        });
        const grid = await model.embedWindows(mix);
        const sim = pieceSimilarity(grid, pieces);
        let within = 0;
        let withinN = 0;
        let across = 0;
        let acrossN = 0;
        for (let i = 0; i < pieces.length; i++) {
          for (let j = i + 1; j < pieces.length; j++) {
            const s = sim[i * pieces.length + j]!;
            if (reader[i] === reader[j]) {
              within += s;
              withinN++;
            } else {
              across += s;
              acrossN++;
            }
          }
        }
        within /= withinN;
        across /= acrossN;
        margins.push(`${readers[a]![0]}/${readers[b]![0]}: ${within.toFixed(2)} vs ${across.toFixed(2)}`);
        expect(within, margins.at(-1)).toBeGreaterThan(across + 0.1);
      }
    }
    console.log('[speaker-embedding] within vs across readers (mean cosine):', margins.join('; '));
    await model.dispose();
  });
});
