/**
 * The active-speaker model's pictures of one sampled run: for each face found at the run's
 * start, its 112×112 lower-face crop (src/analysis/faces/asd-features.ts `asdFaceCrop`) at
 * every 25 fps slot of the run, taken from the decoded frame on screen at that time. Frames
 * arrive one by one and their planes are reused by the decoder, so each frame is cropped when
 * it arrives and put in its slots once the next frame's time says which they are.
 *
 * @module
 */
import {
  ASD_CROP_SIZE,
  ASD_VIDEO_FPS,
  asdFaceCrop,
  asdSlotRange,
  type AsdCropCentre,
} from '../analysis/faces/asd-features.ts';
import type { LumaPlane } from './face-probe.ts';

const CROP = ASD_CROP_SIZE * ASD_CROP_SIZE;

/**
 * Collects one run's crops.
 *
 * @example
 * const crops = new AsdRunCrops(t0, centres); // one centre per face, pixels of the frame
 * for (each frame of the run) crops.frame(plane, tMs);
 * const { slots, crops: perFace } = crops.finish(); // perFace[i]: slots × 112 × 112
 */
export class AsdRunCrops {
  private readonly slotsOf: Float32Array[][];
  private last: { t: number; step: number; crops: Float32Array[] } | null = null;
  private spare: Float32Array[] | null = null;

  /**
   * @param startMs the run's first frame time: slot 0
   * @param centres per face, where its crops are cut (the face does not move within a run)
   */
  constructor(
    readonly startMs: number,
    private readonly centres: readonly AsdCropCentre[],
  ) {
    this.slotsOf = centres.map(() => []);
  }

  /** Takes the next decoded frame of the run (times ascending). */
  frame(plane: LumaPlane, t: number): void {
    if (this.last && t <= this.last.t) return;
    const step = this.last ? t - this.last.t : 1000 / ASD_VIDEO_FPS;
    if (this.last) this.place(this.last, t);
    const crops = this.spare ?? this.centres.map(() => new Float32Array(CROP));
    this.spare = this.last?.crops ?? null;
    const grey = { ...plane, range: 'video' as const };
    this.centres.forEach((centre, i) => asdFaceCrop(grey, centre, crops[i]));
    this.last = { t, step, crops };
  }

  /**
   * The crops of every face, `slots × 112 × 112` each; the last frame stands for as long as
   * the step before it.
   */
  finish(): { slots: number; crops: Float32Array[] } {
    if (this.last) this.place(this.last, this.last.t + this.last.step);
    this.last = null;
    const slots = this.slotsOf[0]?.length ?? 0;
    return {
      slots,
      crops: this.slotsOf.map((list) => {
        const out = new Float32Array(list.length * CROP);
        list.forEach((c, k) => out.set(c, k * CROP));
        return out;
      }),
    };
  }

  private place(frame: { t: number; crops: Float32Array[] }, until: number): void {
    // Slots before `first` that no frame covered (a gap in the decoded frames) take this one too.
    const { end } = asdSlotRange(this.startMs, frame.t, until);
    this.slotsOf.forEach((list, i) => {
      while (list.length < end) list.push(frame.crops[i]!.slice());
    });
  }
}
