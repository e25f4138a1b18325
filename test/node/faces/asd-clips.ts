/**
 * A GRID clip (`../shared/data/faces`) as LR-ASD takes it, in Node: Debian's ffmpeg decodes the
 * sound to 16 kHz mono s16 (as the repository's demo extracts it) and the pictures to YUV 4:2:0,
 * BlazeFace (onnxruntime-web, wasm) finds the face, and the face's smoothed boxes give one
 * 112×112 lower-face crop per frame.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  ASD_CROP_SIZE,
  asdFaceCrop,
  asdMfcc,
  smoothAsdBoxes,
  type AsdCropCentre,
  type AsdFaceBox,
  type AsdMfcc,
} from '../../../src/analysis/faces/asd-features.ts';
import type { BlazeFace } from '../../../src/models/blazeface.ts';
import { FaceProbe } from '../../../src/vision/face-probe.ts';
import { FACES_DIR } from '../../../tools/fixtures/faces-set.ts';

/** The GRID clips' picture size. */
export const GRID_WIDTH = 360;
export const GRID_HEIGHT = 288;

/** One clip ready for the model. */
export interface AsdClip {
  name: string;
  mfcc: AsdMfcc;
  /** `frames × 112 × 112` grey levels. */
  crops: Float32Array;
  frames: number;
  centres: AsdCropCentre[];
  /** Detections that found no face. */
  missed: number;
}

function ffmpeg(args: string[]): Buffer {
  const res = spawnSync('ffmpeg', ['-v', 'error', '-threads', '1', ...args], { maxBuffer: 1 << 28 });
  if (res.status !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${res.stderr.toString().trim()}`);
  return res.stdout;
}

/** The clip's sound as 16 kHz mono, from s16 (so every sample is a whole int16 step). */
export function decodeMono16k(file: string): Float32Array {
  const bytes = ffmpeg(['-i', file, '-vn', '-ac', '1', '-ar', '16000', '-f', 's16le', '-']);
  const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1);
  return Float32Array.from(pcm, (s) => s / 32768);
}

/** The clip's Y planes (video range), one per frame. */
export function decodeLuma(file: string): Uint8Array[] {
  const bytes = ffmpeg(['-i', file, '-an', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-']);
  const ySize = GRID_WIDTH * GRID_HEIGHT;
  const frameSize = ySize * 1.5;
  const out: Uint8Array[] = [];
  for (let i = 0; (i + 1) * frameSize <= bytes.length; i++)
    out.push(new Uint8Array(bytes.subarray(i * frameSize, i * frameSize + ySize)));
  return out;
}

/**
 * The strongest face every `every` frames, in pixels, and linear steps between (the last found
 * box held to the end). GRID's faces hardly move, and the 13-frame median smooths the rest.
 */
export async function faceBoxes(
  frames: readonly Uint8Array[],
  detector: BlazeFace,
  every = 1,
): Promise<{ boxes: AsdFaceBox[]; missed: number }> {
  const probe = new FaceProbe((rgb) => detector.detect(rgb));
  const found: Array<{ i: number; box: AsdFaceBox }> = [];
  let missed = 0;
  for (let i = 0; i < frames.length; i += every) {
    const data = frames[i]!;
    await probe.frame({ data, offset: 0, stride: GRID_WIDTH, width: GRID_WIDTH, height: GRID_HEIGHT }, i * 40, true);
    const face = [...probe.runs[probe.runs.length - 1]!.faces].sort((a, b) => b.score - a.score)[0];
    if (face)
      found.push({
        i,
        box: { cx: face.cx * GRID_WIDTH, cy: face.cy * GRID_HEIGHT, w: face.w * GRID_WIDTH, h: face.h * GRID_HEIGHT },
      });
    else missed++;
  }
  if (found.length === 0) throw new Error('no face found');
  const boxes = frames.map((_, i): AsdFaceBox => {
    const after = found.findIndex((f) => f.i >= i);
    if (after === -1) return found[found.length - 1]!.box;
    const b = found[after]!;
    const a = found[after - 1];
    if (b.i === i || !a) return b.box;
    const t = (i - a.i) / (b.i - a.i);
    const mix = (x: number, y: number): number => x + (y - x) * t;
    return {
      cx: mix(a.box.cx, b.box.cx),
      cy: mix(a.box.cy, b.box.cy),
      w: mix(a.box.w, b.box.w),
      h: mix(a.box.h, b.box.h),
    };
  });
  return { boxes, missed };
}

/** The crops of a track's frames, `frames × 112 × 112`. */
export function trackCrops(frames: readonly Uint8Array[], centres: readonly AsdCropCentre[]): Float32Array {
  const size = ASD_CROP_SIZE * ASD_CROP_SIZE;
  const crops = new Float32Array(frames.length * size);
  frames.forEach((data, i) =>
    asdFaceCrop(
      { data, width: GRID_WIDTH, height: GRID_HEIGHT, range: 'video' },
      centres[i]!,
      crops.subarray(i * size, (i + 1) * size),
    ),
  );
  return crops;
}

/** Decodes one GRID clip, finds its face (every `detectEvery` frames, see {@link faceBoxes}) and cuts the crops. */
export async function loadAsdClip(name: string, detector: BlazeFace, detectEvery = 1): Promise<AsdClip> {
  const file = join(FACES_DIR, `${name}.mpg`);
  const frames = decodeLuma(file);
  const { boxes, missed } = await faceBoxes(frames, detector, detectEvery);
  const centres = smoothAsdBoxes(boxes);
  return {
    name,
    mfcc: asdMfcc(decodeMono16k(file)),
    crops: trackCrops(frames, centres),
    frames: frames.length,
    centres,
    missed,
  };
}

/** Crop `index` of a clip, as 8-bit grey (for a look at it). */
export function cropBytes(clip: AsdClip, index: number): Uint8Array {
  const size = ASD_CROP_SIZE * ASD_CROP_SIZE;
  return Uint8Array.from(clip.crops.subarray(index * size, (index + 1) * size), (v) => Math.round(v));
}
