/**
 * Faces on sampled frames: at the first frame of every sampled run, BlazeFace looks for faces
 * (square tiles of the frame's luma, see `frameTiles`); on every frame of the run, the mouth of
 * each face found is reduced to a small patch, and how much the patch changed since the
 * previous frame is recorded: the face's speaking activity. (A band across the eyes, to take
 * head motion off, was tried and dropped: blinks made it noisier; docs/decisions/009.)
 *
 * Works on the frame's full-resolution luma plane (the Y plane the sampler copies anyway), so a
 * face a tenth of a 1080p frame wide still has a mouth of 40 pixels.
 *
 * @module
 */
import {
  BLAZEFACE_SIZE,
  frameTiles,
  mergeTileDetections,
  MOUTH_KEYPOINT,
  type FaceDetection,
} from '../analysis/faces/blazeface-decode.ts';
import { asdAudioSamples, asdSlotAt } from '../analysis/faces/asd-features.ts';
import type { FaceRun } from '../analysis/faces/face-tracks.ts';
import { AsdRunCrops } from './asd-crops.ts';

/** A full-resolution 8-bit luma plane (video range as decoded). */
export interface LumaPlane {
  data: Uint8Array;
  offset: number;
  stride: number;
  width: number;
  height: number;
}

/** Finds faces in a 128×128 picture (RGB floats in −1..1), in fractions of it. */
export type FaceDetector = (rgb: Float32Array) => Promise<FaceDetection[]>;

/**
 * Scores one face over one run with an active-speaker model: its crops (`slots × 112 × 112`,
 * 25 fps) and the camera's own sound over the same time (16 kHz mono,
 * `asdAudioSamples(slots)` samples) give one logit per slot.
 */
export type ActiveSpeakerScorer = (crops: Float32Array, sound: Float32Array, slots: number) => Promise<Float32Array>;

/**
 * The camera's own sound: `samples` samples of 16 kHz mono from `fromMs` (the frames' time);
 * silence where the track has none. Throws when it cannot be decoded.
 */
export type RunSound = (fromMs: number, samples: number) => Promise<Float32Array>;

/**
 * The host models the probe runs on each face of each run, as `FaceModels.load` gives them
 * (src/vision/face-models.ts, `LoadedFaceModels.probe`): that set reaches the probe whole, so a
 * new one is a field here, used in {@link FaceProbe.endRun}, and loaded there.
 */
export interface FaceProbeModels {
  /**
   * Score each face of each run with this active-speaker model too (its logits become the
   * faces' `asd`); the sampler then hands {@link FaceProbe.endRun} the camera's sound.
   */
  activeSpeaker?: ActiveSpeakerScorer;
}

/** Options of {@link FaceProbe}: its models, and how faces are measured. */
export interface FaceProbeOptions extends FaceProbeModels {
  /** Faces narrower than this share of the frame's width are ignored (a face in the background). Default 0.04. */
  minWidth?: number;
  /** Patch size the mouth region is averaged down to. Default 16×8. */
  patchWidth?: number;
  patchHeight?: number;
}

/** Mouth patch: ±0.3 face widths across, ±0.16 up and down, around the mouth keypoint. */
const MOUTH_HALF_W = 0.3;
const MOUTH_HALF_H = 0.16;

interface Tracked {
  face: FaceDetection;
  out: FaceRun['faces'][number];
  mouth: Float32Array | null;
}

/**
 * Collects faces and their mouth motion over a camera's sampled runs.
 *
 * @example
 * const probe = new FaceProbe(detector);
 * for (each decoded frame) await probe.frame(plane, tMs, firstOfRun);
 * const runs = probe.runs; // → trackFaces(runs)
 */
export class FaceProbe {
  /** What was seen, run by run. */
  readonly runs: FaceRun[] = [];
  /** Detector calls made (tiles run through the model). */
  detections = 0;
  /** Time spent in the detector, ms. */
  detectMs = 0;
  /** Runs the active-speaker model scored, and the time it took with the sound's decoding (ms). */
  asdRuns = 0;
  asdMs = 0;
  /** Why the active-speaker model stopped scoring this camera (no sound, a failure), once it did. */
  asdFallback: string | undefined;
  private current: Tracked[] = [];
  private crops: AsdRunCrops | null = null;
  private readonly input = new Float32Array(BLAZEFACE_SIZE * BLAZEFACE_SIZE * 3);

  constructor(
    private readonly detect: FaceDetector,
    private readonly options: FaceProbeOptions = {},
  ) {}

  /** Whether {@link FaceProbe.endRun} wants the camera's sound (an active-speaker model is set). */
  get wantsSound(): boolean {
    return this.options.activeSpeaker !== undefined;
  }

  /** Takes one decoded frame; `firstOfRun` starts a new run (and a detection): end the last one first. */
  async frame(plane: LumaPlane, t: number, firstOfRun: boolean): Promise<void> {
    if (firstOfRun) await this.startRun(plane, t);
    this.crops?.frame(plane, t);
    const pw = this.options.patchWidth ?? 16;
    const ph = this.options.patchHeight ?? 8;
    for (const face of this.current) {
      const fw = face.face.w * plane.width;
      const [mx, my] = face.face.keypoints[MOUTH_KEYPOINT]!;
      const mouth = patch(plane, mx * plane.width, my * plane.height, fw * MOUTH_HALF_W, fw * MOUTH_HALF_H, pw, ph);
      if (face.mouth) {
        face.out.t.push(t);
        face.out.mouth.push(meanAbsDiff(mouth, face.mouth));
      }
      face.mouth = mouth;
    }
  }

  /**
   * Ends the current run (a no-op when none is open): with an active-speaker model, scores each
   * of its faces on its crops and `sound` (the camera's own; a string says why there is none,
   * and the model stops for this camera). A failure stops it too, with the reason in
   * {@link FaceProbe.asdFallback}; a cancellation is thrown.
   */
  async endRun(sound: RunSound | string): Promise<void> {
    const collected = this.crops;
    this.crops = null;
    const score = this.options.activeSpeaker;
    const run = this.runs[this.runs.length - 1];
    if (!collected || !score || !run || this.asdFallback !== undefined) return;
    const { slots, crops } = collected.finish();
    if (slots === 0) return;
    if (typeof sound === 'string') {
      this.asdFallback = sound;
      return;
    }
    const started = performance.now();
    try {
      const audio = await sound(collected.startMs, asdAudioSamples(slots));
      for (const [i, face] of run.faces.entries()) {
        const logits = await score(crops[i]!, audio, slots);
        if (logits.length === 0) throw new Error(`no score for a run of ${slots} frames`);
        face.asd = face.t.map((t) => logits[Math.min(logits.length - 1, asdSlotAt(collected.startMs, t))]!);
      }
      this.asdRuns++;
    } catch (error) {
      if (error instanceof Error && error.name === 'AbortError') throw error;
      this.asdFallback = `the active-speaker model failed on the run at ${(collected.startMs / 1000).toFixed(1)} s: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.asdMs += performance.now() - started;
    }
  }

  private async startRun(plane: LumaPlane, t: number): Promise<void> {
    const perTile: Array<{ tile: ReturnType<typeof frameTiles>[number]; faces: FaceDetection[] }> = [];
    for (const tile of frameTiles(plane.width, plane.height)) {
      tileInput(plane, tile.x, tile.y, tile.side, this.input);
      const started = performance.now();
      perTile.push({ tile, faces: await this.detect(this.input) });
      this.detectMs += performance.now() - started;
      this.detections++;
    }
    const minWidth = this.options.minWidth ?? 0.04;
    const faces = mergeTileDetections(perTile, plane.width, plane.height).filter((f) => f.w >= minWidth);
    const run: FaceRun = {
      t,
      faces: faces.map((f) => ({
        score: f.score,
        cx: f.cx,
        cy: f.cy,
        w: f.w,
        h: f.h,
        mx: f.keypoints[MOUTH_KEYPOINT]![0],
        my: f.keypoints[MOUTH_KEYPOINT]![1],
        t: [],
        mouth: [],
      })),
    };
    this.runs.push(run);
    this.current = faces.map((face, i) => ({ face, out: run.faces[i]!, mouth: null }));
    if (this.options.activeSpeaker && this.asdFallback === undefined && faces.length > 0)
      this.crops = new AsdRunCrops(
        t,
        // The face stays put within a run: one crop centre for all its frames (the model's
        // 13-frame median of the boxes is the same box).
        faces.map((f) => ({
          mx: f.cx * plane.width,
          my: f.cy * plane.height,
          bs: Math.max(f.w * plane.width, f.h * plane.height) / 2,
        })),
      );
  }
}

/** A square of the plane box-averaged into BlazeFace's input: gray in all three channels, −1..1. */
function tileInput(plane: LumaPlane, x0: number, y0: number, side: number, out: Float32Array): void {
  const n = BLAZEFACE_SIZE;
  for (let oy = 0; oy < n; oy++) {
    const ya = y0 + Math.floor((oy * side) / n);
    const yb = Math.max(ya + 1, y0 + Math.floor(((oy + 1) * side) / n));
    for (let ox = 0; ox < n; ox++) {
      const xa = x0 + Math.floor((ox * side) / n);
      const xb = Math.max(xa + 1, x0 + Math.floor(((ox + 1) * side) / n));
      let sum = 0;
      for (let y = ya; y < yb; y++) {
        const row = plane.offset + y * plane.stride;
        for (let x = xa; x < xb; x++) sum += plane.data[row + x]!;
      }
      // Video range (16..235) to −1..1.
      const v = Math.max(-1, Math.min(1, ((sum / ((yb - ya) * (xb - xa)) - 16) / 219) * 2 - 1));
      const i = (oy * n + ox) * 3;
      out[i] = v;
      out[i + 1] = v;
      out[i + 2] = v;
    }
  }
}

/** The plane's rectangle around (cx, cy) ± (halfW, halfH) pixels, averaged to pw×ph (clipped to the frame). */
function patch(
  plane: LumaPlane,
  cx: number,
  cy: number,
  halfW: number,
  halfH: number,
  pw: number,
  ph: number,
): Float32Array {
  const out = new Float32Array(pw * ph);
  const x0 = cx - halfW;
  const y0 = cy - halfH;
  for (let py = 0; py < ph; py++) {
    const ya = clamp(Math.floor(y0 + (py * 2 * halfH) / ph), 0, plane.height - 1);
    const yb = clamp(Math.floor(y0 + ((py + 1) * 2 * halfH) / ph), ya + 1, plane.height);
    for (let px = 0; px < pw; px++) {
      const xa = clamp(Math.floor(x0 + (px * 2 * halfW) / pw), 0, plane.width - 1);
      const xb = clamp(Math.floor(x0 + ((px + 1) * 2 * halfW) / pw), xa + 1, plane.width);
      let sum = 0;
      for (let y = ya; y < yb; y++) {
        const row = plane.offset + y * plane.stride;
        for (let x = xa; x < xb; x++) sum += plane.data[row + x]!;
      }
      out[py * pw + px] = sum / ((yb - ya) * (xb - xa));
    }
  }
  return out;
}

function meanAbsDiff(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!);
  return s / a.length;
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, x));
}
