/**
 * Motion features of one camera: how much the picture changes between consecutive frames,
 * over the whole frame and in its left, middle and right thirds, plus shot-change (cut) flags.
 *
 * Frames are small grayscale pictures (for example 160×90) sampled in short runs of
 * consecutive frames; a difference is only taken between two frames of the same run, so the
 * caller may skip long stretches of the timeline between runs.
 *
 * A cut changes the picture where it never changes that much inside the sampled runs; a display
 * that lights up (a level meter, a scrolling waveform: issue 51) changes it only where it changes
 * as much all the time. So a change of the luma histogram is a cut only when enough of it falls
 * in parts of the frame that change more than they ever do between two frames of a run (see
 * {@link MotionFeatureOptions.cutUnusualShare}).
 *
 * @module
 */

/** One small grayscale frame (8-bit luma, row-major, `width × height` bytes). */
export interface LumaFrame {
  /** Presentation time in ms (source time of the camera, or reference time: the caller decides). */
  t: number;
  luma: Uint8Array;
  width: number;
  height: number;
}

/**
 * Motion series of one camera. Sample `i` describes the change from the previous frame of the
 * same run to the frame at `t[i]`. Motion values are mean absolute luma differences (0..255).
 */
export interface MotionSamples {
  t: Float64Array;
  whole: Float32Array;
  left: Float32Array;
  middle: Float32Array;
  right: Float32Array;
  /** 1 where the whole picture changed at once (a cut of a switched feed), else 0. */
  sceneCut: Uint8Array;
}

/** Tuning of {@link motionFeatures}. */
export interface MotionFeatureOptions {
  /**
   * Two frames further apart than this are not consecutive (they belong to different sampled
   * runs). Default 120 ms: a 10 fps run still counts, a skipped GOP does not.
   */
  maxGapMs?: number;
  /**
   * A cut: the luma histograms of the two frames differ by at least this share of the pixels
   * (0..1)... Default 0.04. Histograms ignore where things are, so a moving head or a head
   * that swayed between two runs hardly changes them, while a cut to another picture does.
   */
  cutHistogram?: number;
  /** ...and by at least this many times the camera's median change between consecutive frames. Default 5. */
  cutRatio?: number;
  /**
   * ...and at least this share of the change (mean |Δluma| over a 16×9 grid of cells, summed)
   * falls in cells that change unusually: by at least {@link unusualRatio} times the most they
   * change between two consecutive frames of a run elsewhere (histogram cuts left out) and by at
   * least {@link minCellChange}. Default 0.4. A switched feed's cut changes cells that stand
   * still or barely move inside runs (0.64–1.0 of the change on the fixtures' switched feeds,
   * sampled in runs or every frame, including one whose shots differ only where the face is); a
   * level meter or scrolling waveform changes its box, whose cells change as much whenever its
   * mic hears a word (at most 0.16 on the long evaluation's 30-minute tuning set of meters,
   * waveforms and a wide of three small displays). 0 turns the test off (the histogram alone).
   */
  cutUnusualShare?: number;
  /** See {@link cutUnusualShare}. Default 3. */
  unusualRatio?: number;
  /** See {@link cutUnusualShare}: luma levels. Default 3. */
  minCellChange?: number;
  /**
   * When fewer than this share of the pixels lie in quiet cells (cells that never change by
   * {@link quietLevel} or more inside a run: a handheld camera, a picture that moves all over),
   * the unusual-change test cannot tell a cut from motion and is skipped: the histogram test
   * alone decides, as before. Default 0.2.
   */
  minQuietShare?: number;
  /** See {@link minQuietShare}: luma levels. Default 10. */
  quietLevel?: number;
}

const DEFAULTS = {
  maxGapMs: 120,
  cutHistogram: 0.04,
  cutRatio: 5,
  cutUnusualShare: 0.4,
  unusualRatio: 3,
  minCellChange: 3,
  minQuietShare: 0.2,
  quietLevel: 10,
} as const;
const BINS = 32;
/** The cell grid of the unusual-change test: columns × rows over the frame, whatever its size. */
const GRID_X = 16;
const GRID_Y = 9;

/**
 * Turns sampled frames into motion series.
 *
 * Pairs inside a run give one sample each. A pair across the gap between two runs gives a
 * sample only when it is a cut: encoders put a keyframe at every cut and runs start at
 * keyframes, so a switched feed's cuts mostly fall between runs.
 *
 * @param frames frames of one camera, any order (they are sorted by `t`); all the same size.
 * @throws Error naming the frame whose size or buffer does not match.
 * @example
 * const samples = motionFeatures(frames); // frames: 160×90 luma, runs of 15 consecutive frames
 * samples.left; // mean |Δluma| in the left third, per sample
 */
export function motionFeatures(frames: readonly LumaFrame[], options: MotionFeatureOptions = {}): MotionSamples {
  const maxGapMs = options.maxGapMs ?? DEFAULTS.maxGapMs;
  const cutHistogram = options.cutHistogram ?? DEFAULTS.cutHistogram;
  const cutRatio = options.cutRatio ?? DEFAULTS.cutRatio;
  const sorted = [...frames].sort((a, b) => a.t - b.t);
  const first = sorted[0];
  const width = first?.width ?? 0;
  const height = first?.height ?? 0;
  sorted.forEach((f, i) => {
    if (f.width !== width || f.height !== height || f.luma.length < width * height) {
      throw new Error(
        `frames[${i}] (t=${f.t}) is ${f.width}×${f.height} with ${f.luma.length} bytes; expected ${width}×${height}`,
      );
    }
  });
  // Column boundaries of the thirds.
  const c1 = Math.round(width / 3);
  const c2 = Math.round((2 * width) / 3);
  const grid = cellGrid(width, height);
  const hists = sorted.map((f) => histogram(f.luma, width * height));
  const pairs: Array<{
    t: number;
    inRun: boolean;
    hist: number;
    whole: number;
    left: number;
    middle: number;
    right: number;
    /** Mean |Δluma| per grid cell. */
    cells: Float32Array;
  }> = [];
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    const dt = cur.t - prev.t;
    if (dt <= 0) continue;
    let sumL = 0;
    let sumM = 0;
    let sumR = 0;
    const cells = new Float32Array(grid.size.length);
    const a = prev.luma;
    const b = cur.luma;
    for (let y = 0; y < height; y++) {
      const row = y * width;
      for (let x = 0; x < width; x++) {
        const d = Math.abs(b[row + x]! - a[row + x]!);
        cells[grid.of[row + x]!]! += d;
        if (x < c1) sumL += d;
        else if (x < c2) sumM += d;
        else sumR += d;
      }
    }
    for (let k = 0; k < cells.length; k++) cells[k] = grid.size[k] ? cells[k]! / grid.size[k]! : 0;
    pairs.push({
      t: cur.t,
      inRun: dt <= maxGapMs,
      hist: histogramDistance(hists[i - 1]!, hists[i]!, width * height),
      whole: (sumL + sumM + sumR) / (width * height),
      left: sumL / (c1 * height),
      middle: sumM / ((c2 - c1) * height),
      right: sumR / ((width - c2) * height),
      cells,
    });
  }
  const typical = median(pairs.filter((p) => p.inRun).map((p) => p.hist));
  const cutAt = Math.max(cutHistogram, cutRatio * typical);
  const usual = usualChange(
    pairs.filter((p) => p.inRun && p.hist < cutAt).map((p) => p.cells),
    grid.size,
    options,
  );
  const cutUnusualShare = options.cutUnusualShare ?? DEFAULTS.cutUnusualShare;
  const isCut = (p: (typeof pairs)[number]): boolean =>
    p.hist >= cutAt && (usual === null || unusualShare(p.cells, grid.size, usual, options) >= cutUnusualShare);
  const kept = pairs.filter((p) => p.inRun || isCut(p));
  return {
    t: Float64Array.from(kept, (p) => p.t),
    whole: Float32Array.from(kept, (p) => p.whole),
    left: Float32Array.from(kept, (p) => p.left),
    middle: Float32Array.from(kept, (p) => p.middle),
    right: Float32Array.from(kept, (p) => p.right),
    sceneCut: Uint8Array.from(kept, (p) => (isCut(p) ? 1 : 0)),
  };
}

/** Which grid cell each pixel falls in, and how many pixels each cell has. */
function cellGrid(width: number, height: number): { of: Uint16Array; size: Uint32Array } {
  const of = new Uint16Array(width * height);
  const size = new Uint32Array(GRID_X * GRID_Y);
  for (let y = 0; y < height; y++) {
    const gy = Math.min(GRID_Y - 1, Math.floor((y * GRID_Y) / height));
    for (let x = 0; x < width; x++) {
      const k = gy * GRID_X + Math.min(GRID_X - 1, Math.floor((x * GRID_X) / width));
      of[y * width + x] = k;
      size[k]!++;
    }
  }
  return { of, size };
}

/**
 * Per cell, the most it changed between two consecutive frames of a run in `baseline` (per pair,
 * mean |Δluma| per cell); null when the test is off or cannot tell (too few quiet cells: the
 * histogram test decides alone).
 */
function usualChange(
  baseline: readonly Float32Array[],
  size: Uint32Array,
  options: MotionFeatureOptions,
): Float32Array | null {
  if ((options.cutUnusualShare ?? DEFAULTS.cutUnusualShare) <= 0) return null;
  const most = new Float32Array(size.length);
  for (const cells of baseline) for (let k = 0; k < cells.length; k++) most[k] = Math.max(most[k]!, cells[k]!);
  const quietLevel = options.quietLevel ?? DEFAULTS.quietLevel;
  let quiet = 0;
  let pixels = 0;
  for (let k = 0; k < size.length; k++) {
    pixels += size[k]!;
    if (most[k]! < quietLevel) quiet += size[k]!;
  }
  return quiet >= (options.minQuietShare ?? DEFAULTS.minQuietShare) * pixels ? most : null;
}

/** Share of a pair's change (summed |Δluma|) in cells that change unusually; 1 when nothing changed. */
function unusualShare(
  cells: Float32Array,
  size: Uint32Array,
  usual: Float32Array,
  options: MotionFeatureOptions,
): number {
  const ratio = options.unusualRatio ?? DEFAULTS.unusualRatio;
  const floor = options.minCellChange ?? DEFAULTS.minCellChange;
  let all = 0;
  let unusual = 0;
  for (let k = 0; k < cells.length; k++) {
    const sum = cells[k]! * size[k]!;
    all += sum;
    if (cells[k]! >= Math.max(floor, ratio * usual[k]!)) unusual += sum;
  }
  return all > 0 ? unusual / all : 1;
}

function histogram(luma: Uint8Array, n: number): Uint32Array {
  const h = new Uint32Array(BINS);
  for (let i = 0; i < n; i++) h[luma[i]! >> 3]!++;
  return h;
}

/** Share of pixels that would have to change bins to turn one histogram into the other. */
function histogramDistance(a: Uint32Array, b: Uint32Array, n: number): number {
  let d = 0;
  for (let k = 0; k < BINS; k++) d += Math.abs(a[k]! - b[k]!);
  return d / (2 * n);
}

function median(x: number[]): number {
  if (x.length === 0) return 0;
  const s = [...x].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/**
 * Maps a camera's own time to the reference timeline, with the sync convention
 * `cameraMs = (referenceMs - offsetMs) * (1 + driftPpm·1e-6)`: `offsetMs` is where the
 * camera's t = 0 falls on the reference timeline.
 */
export function cameraToReferenceMs(cameraMs: number, offsetMs = 0, driftPpm = 0): number {
  return offsetMs + cameraMs / (1 + driftPpm * 1e-6);
}

/** {@link cameraToReferenceMs} applied to every sample time (a copy; the input is untouched). */
export function samplesToReference(samples: MotionSamples, offsetMs = 0, driftPpm = 0): MotionSamples {
  return { ...samples, t: samples.t.map((ms) => cameraToReferenceMs(ms, offsetMs, driftPpm)) };
}
