/**
 * The inputs and outputs of LR-ASD, the audio-visual active speaker detector of the optional
 * `lr-asd` model slot (src/models/lr-asd.ts), computed as the model's repository computes them
 * (github.com/Junhua-Liao/LR-ASD, its demo `Columbia_test.py`):
 *
 * - **Audio**: 13 MFCC per 10 ms of 16 kHz mono, python_speech_features' `mfcc` with its
 *   defaults (25 ms rectangular windows, pre-emphasis 0.97, 512-point FFT, 26 mel filters from
 *   0 to 8 kHz, DCT-II orthonormal, lifter 22, the first coefficient replaced by the log of the
 *   frame's power-spectrum energy), on samples scaled to int16 as a WAV file reads.
 * - **Video**: per 25 fps frame of one face track, the lower face cut from the grey picture
 *   around the track's median-smoothed box, resized as OpenCV's bilinear `resize` does, the
 *   central 112×112 of 224×224 kept.
 * - **Scores**: the model scores windows of 1 to 6 s; each frame's logit is averaged over the
 *   window lengths, then over ±2 frames.
 *
 * Pure: arrays in, arrays out.
 *
 * @module
 */
import { fft } from '../signal/signal-fft.ts';

/** Audio sample rate the model takes (Hz). */
export const ASD_SAMPLE_RATE = 16000;
/** MFCC frames per second. */
export const ASD_MFCC_RATE = 100;
/** MFCC coefficients per frame. */
export const ASD_MFCC_COEFFS = 13;
/** Video frames per second of a face track. */
export const ASD_VIDEO_FPS = 25;
/** MFCC frames per video frame. */
export const ASD_AUDIO_PER_VIDEO = ASD_MFCC_RATE / ASD_VIDEO_FPS;
/** Side of one face crop (pixels). */
export const ASD_CROP_SIZE = 112;
/** Grey level of the picture's surroundings in a crop that leaves it. */
export const ASD_PAD_GREY = 110;
/** Frames of the median that smooths a track's boxes. */
export const ASD_BOX_MEDIAN = 13;
/** The window lengths (s) the demo scores a track with; each frame's score is their mean. */
export const ASD_WINDOW_SECONDS: readonly number[] = [1, 2, 3, 4, 5, 6];
/** Each frame's final score is the mean over this many frames on either side. */
export const ASD_SCORE_RADIUS = 2;

const WINDOW = 400; // 25 ms at 16 kHz
const STEP = 160; // 10 ms
const NFFT = 512;
const BINS = NFFT / 2 + 1;
const MEL_FILTERS = 26;
const PREEMPHASIS = 0.97;
const LIFTER = 22;
/** numpy's float64 epsilon: python_speech_features puts it where an energy is 0, before the log. */
const EPS = 2.220446049250313e-16;

/** MFCC of a signal: `frames × 13` values, row-major (frame by frame). */
export interface AsdMfcc {
  frames: number;
  values: Float32Array;
}

/** Frames python_speech_features cuts `samples` into: one when shorter than a window, else enough to cover the end (zero-padded). */
export function asdMfccFrameCount(samples: number): number {
  return samples <= WINDOW ? 1 : 1 + Math.ceil((samples - WINDOW) / STEP);
}

function hzToMel(hz: number): number {
  return 2595 * Math.log10(1 + hz / 700);
}

function melToHz(mel: number): number {
  return 700 * (10 ** (mel / 2595) - 1);
}

/**
 * The 26 triangular mel filters over the 257 FFT bins, as python_speech_features'
 * `get_filterbanks` builds them: edges at whole bins `floor(513·hz/16000)`, rising from 0 at
 * the lower edge to 1 at the centre, falling to 1/width at the last bin before the upper edge.
 */
export function asdMelFilters(): Float64Array[] {
  const low = hzToMel(0);
  const high = hzToMel(ASD_SAMPLE_RATE / 2);
  const edges = Array.from({ length: MEL_FILTERS + 2 }, (_, i) =>
    Math.floor(((NFFT + 1) * melToHz(low + ((high - low) * i) / (MEL_FILTERS + 1))) / ASD_SAMPLE_RATE),
  );
  return Array.from({ length: MEL_FILTERS }, (_, j) => {
    const f = new Float64Array(BINS);
    const [a, b, c] = [edges[j]!, edges[j + 1]!, edges[j + 2]!];
    for (let i = a; i < b; i++) f[i] = (i - a) / (b - a);
    for (let i = b; i < c; i++) f[i] = (c - i) / (c - b);
    return f;
  });
}

let melFilters: Float64Array[] | undefined;
let dctTable: Float64Array | undefined;

/** The orthonormal DCT-II rows 0..12 of a 26-point signal, `13 × 26`. */
function dctRows(): Float64Array {
  if (!dctTable) {
    dctTable = new Float64Array(ASD_MFCC_COEFFS * MEL_FILTERS);
    for (let k = 0; k < ASD_MFCC_COEFFS; k++) {
      const scale = Math.sqrt((k === 0 ? 1 : 2) / MEL_FILTERS);
      for (let n = 0; n < MEL_FILTERS; n++)
        dctTable[k * MEL_FILTERS + n] = scale * Math.cos((Math.PI * k * (2 * n + 1)) / (2 * MEL_FILTERS));
    }
  }
  return dctTable;
}

/**
 * LR-ASD's audio input: python_speech_features' `mfcc(signal, 16000, numcep=13,
 * winlen=0.025, winstep=0.010)` of 16 kHz mono. `samples` in −1..1 are scaled to int16 and
 * rounded, as the repository's `wavfile.read` gives them; frames are
 * {@link asdMfccFrameCount} (`1 + ⌈(n − 400) / 160⌉`, about 100 a second).
 *
 * @example
 * const mfcc = asdMfcc(mono16k); // mfcc.values[f * 13 + c]
 */
export function asdMfcc(samples: Float32Array): AsdMfcc {
  const frames = asdMfccFrameCount(samples.length);
  const padded = (frames - 1) * STEP + WINDOW;
  // int16 scale, then pre-emphasis over the signal (before the zero padding, as sigproc does).
  const x = new Float64Array(Math.max(padded, samples.length));
  let previous = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
    x[i] = i === 0 ? s : s - PREEMPHASIS * previous;
    previous = s;
  }
  melFilters ??= asdMelFilters();
  const dct = dctRows();
  const values = new Float32Array(frames * ASD_MFCC_COEFFS);
  const re = new Float64Array(NFFT);
  const im = new Float64Array(NFFT);
  const power = new Float64Array(BINS);
  const logMel = new Float64Array(MEL_FILTERS);
  for (let f = 0; f < frames; f++) {
    re.fill(0);
    im.fill(0);
    re.set(x.subarray(f * STEP, f * STEP + WINDOW));
    fft(re, im);
    let energy = 0;
    for (let k = 0; k < BINS; k++) {
      power[k] = (re[k]! * re[k]! + im[k]! * im[k]!) / NFFT;
      energy += power[k]!;
    }
    for (let j = 0; j < MEL_FILTERS; j++) {
      const filter = melFilters[j]!;
      let sum = 0;
      for (let k = 0; k < BINS; k++) sum += filter[k]! * power[k]!;
      logMel[j] = Math.log(sum === 0 ? EPS : sum);
    }
    const row = f * ASD_MFCC_COEFFS;
    values[row] = Math.log(energy === 0 ? EPS : energy);
    for (let k = 1; k < ASD_MFCC_COEFFS; k++) {
      let c = 0;
      for (let n = 0; n < MEL_FILTERS; n++) c += dct[k * MEL_FILTERS + n]! * logMel[n]!;
      values[row + k] = c * (1 + (LIFTER / 2) * Math.sin((Math.PI * k) / LIFTER));
    }
  }
  return { frames, values };
}

/** A face box in pixels of the frame: centre and size. */
export interface AsdFaceBox {
  cx: number;
  cy: number;
  w: number;
  h: number;
}

/** Where one frame of a track is cut: box centre `mx, my` and `bs`, half the box's larger side (pixels). */
export interface AsdCropCentre {
  mx: number;
  my: number;
  bs: number;
}

/** The median of `values[from..to)` (mean of the two middle values when their number is even). */
function median(values: readonly number[], from: number, to: number): number {
  const part = values.slice(from, to).sort((a, b) => a - b);
  const mid = part.length >> 1;
  return part.length % 2 === 1 ? part[mid]! : (part[mid - 1]! + part[mid]!) / 2;
}

/**
 * The crop centres of a face track, one per frame: each box's centre and half its larger side,
 * each smoothed by a running median of {@link ASD_BOX_MEDIAN} frames. Near the track's ends the
 * median is over the frames there are (scipy's `medfilt`, which the demo uses, pads with zeros
 * instead: it shrinks the first and last boxes of a track whose size changes, and gives 0 to
 * every box of a track shorter than 7 frames).
 */
export function smoothAsdBoxes(boxes: readonly AsdFaceBox[], kernel = ASD_BOX_MEDIAN): AsdCropCentre[] {
  const half = Math.floor(kernel / 2);
  const xs = boxes.map((b) => b.cx);
  const ys = boxes.map((b) => b.cy);
  const ss = boxes.map((b) => Math.max(b.w, b.h) / 2);
  return boxes.map((_, i) => {
    const from = Math.max(0, i - half);
    const to = Math.min(boxes.length, i + half + 1);
    return { mx: median(xs, from, to), my: median(ys, from, to), bs: median(ss, from, to) };
  });
}

/** A rectangle of whole pixels, `[x0, x1) × [y0, y1)`; it may leave the frame. */
export interface AsdCropWindow {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The rectangle cut around one crop centre, as the demo cuts it: `my − bs` to `my + 1.8·bs` in
 * height, `mx − 1.4·bs` to `mx + 1.4·bs` in width, each end truncated to a whole pixel.
 */
export function asdCropWindow(c: AsdCropCentre): AsdCropWindow {
  return {
    x0: Math.floor(c.mx - 1.4 * c.bs),
    x1: Math.floor(c.mx + 1.4 * c.bs),
    y0: Math.floor(c.my - c.bs),
    y1: Math.floor(c.my + 1.8 * c.bs),
  };
}

/** An 8-bit grey picture: `height` rows of `width` pixels, each row `stride` bytes after the last. */
export interface AsdGreyFrame {
  data: Uint8Array;
  width: number;
  height: number;
  /** Bytes from one row to the next; default `width`. */
  stride?: number;
  /** Index of the first pixel in `data`; default 0. */
  offset?: number;
  /**
   * `video`: a decoder's Y plane in video range (16..235), stretched to 0..255 as the demo's
   * RGB-to-grey conversion would see it. `full`: already 0..255.
   */
  range: 'video' | 'full';
}

/** Source pixels and weights of OpenCV's bilinear resize along one axis, for the central output pixels kept. */
function axisTaps(size: number): { at: Int32Array; frac: Float64Array } {
  const scaled = 2 * ASD_CROP_SIZE;
  const first = (scaled - ASD_CROP_SIZE) / 2;
  const at = new Int32Array(ASD_CROP_SIZE);
  const frac = new Float64Array(ASD_CROP_SIZE);
  for (let o = 0; o < ASD_CROP_SIZE; o++) {
    // cv2.INTER_LINEAR: pixel centres aligned; outside the source the edge pixel.
    const f = (first + o + 0.5) * (size / scaled) - 0.5;
    let s = Math.floor(f);
    let w = f - s;
    if (s < 0) [s, w] = [0, 0];
    if (s >= size - 1) [s, w] = [size - 1, 0];
    at[o] = s;
    frac[o] = w;
  }
  return { at, frac };
}

/**
 * LR-ASD's picture of one face in one frame (`112 × 112` grey levels 0..255, row-major): the
 * {@link asdCropWindow} of the picture (grey {@link ASD_PAD_GREY} where it leaves the frame)
 * resized to 224×224 with OpenCV's bilinear weights, and its central 112×112: the lower face,
 * mouth and chin. Written into `out` when given.
 *
 * @example
 * const centres = smoothAsdBoxes(track.map((d) => ({ cx: d.cx * W, cy: d.cy * H, w: d.w * W, h: d.h * H })));
 * const crop = asdFaceCrop({ data: y, width: W, height: H, range: 'video' }, centres[i]);
 */
export function asdFaceCrop(frame: AsdGreyFrame, centre: AsdCropCentre, out?: Float32Array): Float32Array {
  const n = ASD_CROP_SIZE * ASD_CROP_SIZE;
  const crop = out ?? new Float32Array(n);
  if (crop.length !== n) throw new RangeError(`asdFaceCrop: out holds ${crop.length} values, expected ${n}`);
  const win = asdCropWindow(centre);
  const cols = axisTaps(Math.max(1, win.x1 - win.x0));
  const rows = axisTaps(Math.max(1, win.y1 - win.y0));
  const stride = frame.stride ?? frame.width;
  const offset = frame.offset ?? 0;
  const video = frame.range === 'video';
  const grey = (x: number, y: number): number => {
    if (x < 0 || y < 0 || x >= frame.width || y >= frame.height) return ASD_PAD_GREY;
    const v = frame.data[offset + y * stride + x]!;
    return video ? Math.max(0, Math.min(255, ((v - 16) * 255) / 219)) : v;
  };
  for (let r = 0; r < ASD_CROP_SIZE; r++) {
    const y = win.y0 + rows.at[r]!;
    const fy = rows.frac[r]!;
    for (let c = 0; c < ASD_CROP_SIZE; c++) {
      const x = win.x0 + cols.at[c]!;
      const fx = cols.frac[c]!;
      const top = grey(x, y) * (1 - fx) + (fx > 0 ? grey(x + 1, y) * fx : 0);
      const bottom = fy > 0 ? grey(x, y + 1) * (1 - fx) + (fx > 0 ? grey(x + 1, y + 1) * fx : 0) : 0;
      crop[r * ASD_CROP_SIZE + c] = top * (1 - fy) + bottom * fy;
    }
  }
  return crop;
}

/** One stretch of a track the model scores at once: video frames `[start, start + frames)`. */
export interface AsdWindow {
  start: number;
  frames: number;
}

/**
 * The video frames that can be scored: the demo cuts audio and video to the same length, a
 * whole number of video frames with 4 MFCC frames each.
 */
export function asdScoredFrames(mfccFrames: number, videoFrames: number): number {
  return Math.max(0, Math.min(Math.floor(mfccFrames / ASD_AUDIO_PER_VIDEO), videoFrames));
}

/**
 * The windows the demo scores `frames` video frames with: for each length in `seconds`,
 * consecutive windows of that many seconds from the first frame, the last one cut short at the
 * end. One list per length.
 */
export function asdWindows(frames: number, seconds: readonly number[] = ASD_WINDOW_SECONDS): AsdWindow[][] {
  return seconds.map((s) => {
    const size = Math.max(1, Math.round(s * ASD_VIDEO_FPS));
    const out: AsdWindow[] = [];
    for (let start = 0; start < frames; start += size) out.push({ start, frames: Math.min(size, frames - start) });
    return out;
  });
}

/**
 * Each frame's final score from the window logits: per frame the mean over the window lengths
 * (`passes[p]` holds one logit per frame, from that length's windows), then the mean over the
 * frames within {@link ASD_SCORE_RADIUS} of it (fewer at the ends; the demo's slice also drops
 * the last frame from its own mean, which this does not copy).
 */
export function combineAsdScores(passes: readonly Float32Array[], radius = ASD_SCORE_RADIUS): Float32Array {
  const frames = passes[0]?.length ?? 0;
  const mean = new Float64Array(frames);
  for (const pass of passes) {
    if (pass.length !== frames) throw new RangeError(`combineAsdScores: passes of ${frames} and ${pass.length} frames`);
    for (let i = 0; i < frames; i++) mean[i] = mean[i]! + pass[i]! / passes.length;
  }
  const out = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    const from = Math.max(0, i - radius);
    const to = Math.min(frames, i + radius + 1);
    let sum = 0;
    for (let j = from; j < to; j++) sum += mean[j]!;
    out[i] = sum / (to - from);
  }
  return out;
}

/** A 25 fps slot's length (ms). */
const ASD_SLOT_MS = 1000 / ASD_VIDEO_FPS;
/** Decoded timestamps are rounded (33.367 for 33.3̅ ms): a frame this early still counts as on time. */
const ASD_SLOT_TOLERANCE_MS = 1;

/**
 * The 25 fps slots a decoded frame stands for in a stretch of a face track that starts at
 * `startMs`: slot `k` is the picture at `startMs + 40k` ms, and a frame shown from `fromMs`
 * until `untilMs` (the next frame's time) is the picture at every slot in between. So a
 * 30 fps source is resampled by time, as ffmpeg's `-r 25` does for the model's demo (five
 * frames of six are used), and a 25 fps one frame for frame. Returns slots `[first, end)`
 * (empty when the frame falls between two slots).
 *
 * @example
 * asdSlotRange(0, 166.7, 200); // { first: 5, end: 5 }: the sixth frame of a 30 fps run is skipped
 */
export function asdSlotRange(startMs: number, fromMs: number, untilMs: number): { first: number; end: number } {
  const slot = (ms: number): number => Math.max(0, Math.ceil((ms - ASD_SLOT_TOLERANCE_MS - startMs) / ASD_SLOT_MS));
  const first = slot(fromMs);
  return { first, end: Math.max(first, slot(untilMs)) };
}

/** The 25 fps slot (0-based) showing time `ms` of a stretch that starts at `startMs`. */
export function asdSlotAt(startMs: number, ms: number): number {
  return Math.max(0, Math.floor((ms + ASD_SLOT_TOLERANCE_MS - startMs) / ASD_SLOT_MS));
}

/**
 * How many 16 kHz samples of audio, from a stretch's start, give the model a full 4 MFCC
 * frames for each of `slots` video frames: 40 ms per slot, plus the 15 ms by which a 25 ms
 * window outlasts its 10 ms step.
 */
export function asdAudioSamples(slots: number): number {
  return slots > 0 ? (slots * ASD_SAMPLE_RATE) / ASD_VIDEO_FPS + (WINDOW - STEP) : 0;
}
