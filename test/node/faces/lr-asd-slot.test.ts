/**
 * The LR-ASD wrapper (src/models/lr-asd.ts) on a TEST DOUBLE of the model, built in memory with
 * test/support/onnx-model.ts: the same inputs and output as LR-ASD, and a score per frame that
 * says what the frame's window held (the frame's mean grey level plus the window's mean MFCC
 * value). So the windows, the audio cut beside each and the averaging can be read off the
 * scores. No shared data needed.
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-web/wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ASD_CROP_SIZE, ASD_MFCC_COEFFS } from '../../../src/analysis/faces/asd-features.ts';
import { LrAsd } from '../../../src/models/lr-asd.ts';
import { configureOrtWasm } from '../../../src/models/ort-runtime.ts';
import { encodeOnnxModel, OnnxType } from '../../support/onnx-model.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SIZE = ASD_CROP_SIZE * ASD_CROP_SIZE;

/** score[t] = mean(video[0, t]) + mean(audio): LR-ASD's names and shapes. */
function asdTestDouble(names: { audio?: string; video?: string; score?: string } = {}): Uint8Array {
  const audio = names.audio ?? 'audio';
  const video = names.video ?? 'video';
  const score = names.score ?? 'score';
  return encodeOnnxModel({
    name: 'lr-asd-test-double',
    opset: 13,
    inputs: [
      { name: audio, elemType: OnnxType.FLOAT, shape: [1, 'T4', 13] },
      { name: video, elemType: OnnxType.FLOAT, shape: [1, 'T', 112, 112] },
    ],
    outputs: [{ name: score, elemType: OnnxType.FLOAT, shape: ['T'] }],
    nodes: [
      {
        opType: 'ReduceMean',
        inputs: [video],
        outputs: ['frameMean'],
        attributes: [
          { name: 'axes', ints: [0, 2, 3] },
          { name: 'keepdims', int: 0 },
        ],
      },
      { opType: 'ReduceMean', inputs: [audio], outputs: ['audioMean'], attributes: [{ name: 'keepdims', int: 0 }] },
      { opType: 'Add', inputs: ['frameMean', 'audioMean'], outputs: [score] },
    ],
  });
}

/** `frames` crops, crop `i` filled with `value(i)`. */
function crops(frames: number, value: (i: number) => number): Float32Array {
  const out = new Float32Array(frames * SIZE);
  for (let i = 0; i < frames; i++) out.fill(value(i), i * SIZE, (i + 1) * SIZE);
  return out;
}

/** `rows` MFCC frames, row `r` filled with `value(r)`. */
function mfcc(rows: number, value: (r: number) => number): { frames: number; values: Float32Array } {
  const values = new Float32Array(rows * ASD_MFCC_COEFFS);
  for (let r = 0; r < rows; r++) values.fill(value(r), r * ASD_MFCC_COEFFS, (r + 1) * ASD_MFCC_COEFFS);
  return { frames: rows, values };
}

describe('LrAsd (test-double model)', () => {
  let asd: LrAsd;
  beforeAll(async () => {
    configureOrtWasm(ort, join(ROOT, 'node_modules', 'onnxruntime-web', 'dist') + '/', 1);
    asd = await LrAsd.create(ort, asdTestDouble());
  });

  it('scores each frame from its own crop, then averages over ±2 frames', async () => {
    const s = await asd.scoreTrack(
      mfcc(200, () => 0),
      crops(50, (i) => i),
    );
    expect(s.length).toBe(50);
    expect(s[0]).toBeCloseTo(1, 5); // mean of frames 0, 1, 2
    expect(s[1]).toBeCloseTo(1.5, 5); // frames 0..3
    expect(s[20]).toBeCloseTo(20, 5);
    expect(s[49]).toBeCloseTo(48, 5);
  });

  it('gives each window the audio of its own frames: four MFCC rows per video frame', async () => {
    // Video 0; MFCC row r = r. The 1 s windows [0, 25) and [25, 50) see rows 0..99 and 100..199.
    const s = await asd.scoreTrack(
      mfcc(200, (r) => r),
      crops(50, () => 0),
      { windowSeconds: [1] },
    );
    expect(s[10]).toBeCloseTo(49.5, 4);
    expect(s[40]).toBeCloseTo(149.5, 4);
    // Frame 24: frames 22..26, three from the first window and two from the second.
    expect(s[24]).toBeCloseTo((3 * 49.5 + 2 * 149.5) / 5, 4);
    // Two lengths: the mean of the 1 s windows and the one 2 s window (rows 0..199, 99.5).
    const both = await asd.scoreTrack(
      mfcc(200, (r) => r),
      crops(50, () => 0),
      { windowSeconds: [1, 2] },
    );
    expect(both[10]).toBeCloseTo((49.5 + 99.5) / 2, 4);
  });

  it('cuts audio and video to the frames both cover', async () => {
    // 190 MFCC rows cover 47 video frames; a short last window (1 s windows: 25 + 22 frames).
    const s = await asd.scoreTrack(
      mfcc(190, () => 0),
      crops(50, (i) => i),
      { windowSeconds: [1] },
    );
    expect(s.length).toBe(47);
    expect(
      (
        await asd.scoreTrack(
          mfcc(3, () => 0),
          crops(5, () => 1),
        )
      ).length,
    ).toBe(0);
  });

  it('refuses crops that are not whole 112×112 frames, and a window whose lengths disagree', async () => {
    await expect(
      asd.scoreTrack(
        mfcc(100, () => 0),
        new Float32Array(SIZE + 1),
      ),
    ).rejects.toThrow(/112×112/);
    await expect(asd.scoreWindow(new Float32Array(4 * 13), new Float32Array(2 * SIZE), 2)).rejects.toThrow(
      /2 frames takes 104 MFCC/,
    );
  });

  it('refuses a model without LR-ASD’s inputs and output, naming it', async () => {
    await expect(
      LrAsd.create(ort, asdTestDouble({ video: 'frames' }), { label: 'https://host.example/asd.onnx' }),
    ).rejects.toThrow(/https:\/\/host\.example\/asd\.onnx: expected inputs "audio", "video" and output "score"/);
  });
});
