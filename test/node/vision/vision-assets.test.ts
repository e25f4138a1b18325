/**
 * The vision worker's assets as the engine runner resolves them (src/vision/protocol.ts
 * `resolveVisionAssets`, `visionAssetsOf`): every URL field made absolute against the page
 * without being named, the face model's default and its null (faces off) kept as they were,
 * and only the vision assets handed on from the engine's wider stage assets.
 */
import { describe, expect, test } from 'vitest';
import type { StageAssets } from '../../../src/pipeline/stages/context.ts';
import { resolveVisionAssets, visionAssetsOf, VISION_ASSET_FIELDS } from '../../../src/vision/protocol.ts';

const PAGE = 'https://app.example/editor/index.html';

describe('vision assets', () => {
  test('nothing given: the face model and the wasm folder of this origin', () => {
    expect(resolveVisionAssets({}, PAGE)).toEqual({
      faceModelUrl: 'https://app.example/models/face_detection_front_128x128_barracuda.onnx',
      ortWasmPath: 'https://app.example/wasm/ort/',
    });
  });

  test('a host model given relative to the page is made absolute; null turns faces off', () => {
    expect(resolveVisionAssets({ faceModelUrl: null, activeSpeakerModelUrl: 'models/lr-asd.onnx' }, PAGE)).toEqual({
      faceModelUrl: null,
      ortWasmPath: 'https://app.example/wasm/ort/',
      activeSpeakerModelUrl: 'https://app.example/editor/models/lr-asd.onnx',
    });
  });

  test('every URL field of the table is resolved, a new one without a line in the runner', () => {
    const given = Object.fromEntries(
      Object.entries(VISION_ASSET_FIELDS).flatMap(([field, how]) =>
        how.kind === 'url' ? [[field, `/given/${field}`]] : [],
      ),
    );
    const resolved: Record<string, unknown> = { ...resolveVisionAssets(given, PAGE) };
    for (const field of Object.keys(given)) expect(resolved[field], field).toBe(`https://app.example/given/${field}`);
    expect(resolved).not.toHaveProperty('assetCache');
  });

  test("only the vision assets of the engine's stage assets are handed on", () => {
    const stage: StageAssets = {
      vadModelUrl: 'https://host/vad.onnx',
      ortWasmPath: 'https://host/ort/',
      faceModelUrl: 'https://host/face.onnx',
      assetCache: 'multicam-assets-1',
      segmentationModelUrl: 'https://host/seg.onnx',
    };
    expect(visionAssetsOf(stage)).toEqual({
      faceModelUrl: 'https://host/face.onnx',
      ortWasmPath: 'https://host/ort/',
      assetCache: 'multicam-assets-1',
    });
  });
});
