/**
 * Audio sync: places every source of a job on one reference timeline, with a clock-drift
 * estimate, from their audio alone. Pure: mono Float32 samples in, plain numbers out.
 *
 * Conventions (docs/decisions/002-sync.md):
 * - The reference timeline runs on the media clock of the reference source (`options.referenceId`,
 *   default the first signal), so the reference's `driftPpm` is 0. Its origin (`options.origin`)
 *   is by default the moment the earliest source starts (the smallest `offsetMs` is 0, as in
 *   the contract's `JobSource.offsetMs` and the fixtures' truth.json); with `origin: 'reference'`
 *   it is the reference's own media time 0 (the reference's `offsetMs` is 0).
 * - `offsetMs` is the reference time at which the source's media time 0 happens (where the
 *   source starts on the reference timeline; negative when it started before the reference).
 * - `driftPpm` is how fast the source's clock runs against the reference: one reference second
 *   lasts `1 + driftPpm·1e-6` seconds of source media time.
 * - So source media time `s = (t − offsetMs)·(1 + driftPpm·1e-6)` for reference time `t`
 *   ({@link toSourceTime}); the inverse is {@link toReferenceTime}.
 *
 * Method: correlate gain-independent loudness envelopes (100 frames/s) over every lag to find
 * the coarse offset; then in several windows spread over the overlap, cross-correlate the audio
 * itself (GCC-PHAT at `analysisRate`) around that offset and refine the peak to a fraction of a
 * sample; a robust line through the window positions gives offset and drift.
 *
 * @module
 */
import { activityEnvelope, frameRms } from '../signal/signal-envelope.ts';
import { argmax, crossCorrelate, parabolicPeak } from '../signal/signal-fft.ts';
import { resample } from '../signal/signal-resample.ts';

/** One source's audio, mono. */
export interface SyncSignal {
  id: string;
  samples: Float32Array;
  sampleRate: number;
}

/** Options of {@link alignSources}; every field has a default. */
export interface AlignOptions {
  /** The source whose clock is the reference timeline. Default: the first signal. */
  referenceId?: string;
  /** Rate the fine correlation runs at (Hz). Default 8000; inputs at other rates are resampled. */
  analysisRate?: number;
  /** Largest clock drift searched for, in ppm. Default 300 (consumer cameras are within ±100). */
  maxDriftPpm?: number;
  /** Number of fine-correlation windows spread over the overlap. Default 8. */
  windowCount?: number;
  /** Length of one fine window in seconds (shorter when the overlap is short). Default 10. */
  windowSec?: number;
  /** RMS above which a 10 ms frame counts as sound. Default 1e-3 (−60 dBFS). */
  activeRms?: number;
  /**
   * Where reference time 0 is: `earliest` (default) the start of the earliest source, so every
   * offset is ≥ 0; `reference` the reference source's own media time 0.
   */
  origin?: 'earliest' | 'reference';
  /** Seconds of sound a source needs to be alignable. Default 1. */
  minActiveSec?: number;
  /** Peak-to-sidelobe strength a window needs to count. Default 8. */
  minWindowStrength?: number;
}

/** What one fine window measured. */
export interface SyncWindow {
  /** Window centre in source media time (ms). */
  sourceMs: number;
  /** Where that audio was found on the reference timeline (ms). */
  referenceMs: number;
  /** Peak-to-sidelobe ratio of the correlation peak (the higher the surer). */
  strength: number;
  /** Whether the window agreed with the fitted line (within 2 ms). */
  inlier: boolean;
}

/** A source placed on the reference timeline. */
export interface SourceAlignment {
  id: string;
  /** Reference time (ms) of the source's media time 0. */
  offsetMs: number;
  /** Source clock rate against the reference, in ppm (positive: the source clock runs fast). */
  driftPpm: number;
  /**
   * 0‥1: the share of windows that agree with the fit times how strong their peaks are
   * (strength 30 or more counts fully). Below ~0.3 deserves a human look.
   */
  confidence: number;
  /** The reference itself is marked so callers need not compare ids. */
  isReference: boolean;
  windows: SyncWindow[];
}

/** Why a source could not be aligned. */
export type SyncFailureCode = 'silent' | 'no_overlap' | 'invalid_input';

/** One source that could not be aligned. */
export interface SyncFailure {
  id: string;
  code: SyncFailureCode;
  message: string;
}

/**
 * Thrown by {@link alignSources} when one or more sources cannot be aligned. `failures` names
 * each (by source id; the engine maps ids to labels for the job's error message). `name` is the
 * stable code, so it survives a comlink worker boundary.
 */
export class SyncError extends Error {
  override readonly name = 'SyncError';
  readonly failures: SyncFailure[];
  constructor(failures: SyncFailure[]) {
    super(failures.map((f) => f.message).join('; '));
    this.failures = failures;
  }
}

/** Offset and drift of a source (see the module conventions). */
export interface ClockMapping {
  offsetMs: number;
  driftPpm: number;
}

/**
 * Maps reference time `t` (ms) to the source's own media time (ms).
 *
 * @example
 * toSourceTime(10_000, { offsetMs: 2_000, driftPpm: 100 }); // 8000.8
 */
export function toSourceTime(t: number, m: ClockMapping): number {
  return (t - m.offsetMs) * (1 + m.driftPpm * 1e-6);
}

/** Maps a source's media time `s` (ms) to reference time (ms); the inverse of {@link toSourceTime}. */
export function toReferenceTime(s: number, m: ClockMapping): number {
  return s / (1 + m.driftPpm * 1e-6) + m.offsetMs;
}

const FRAMES_PER_SECOND = 100;

interface Prepared {
  id: string;
  x: Float32Array;
  env: Float32Array;
  activeSec: number;
}

function prepare(signal: SyncSignal, rate: number, activeRms: number): Prepared {
  const x = signal.sampleRate === rate ? signal.samples : resample(signal.samples, signal.sampleRate, rate);
  const hop = Math.round(rate / FRAMES_PER_SECOND);
  const rms = frameRms(x, hop);
  let active = 0;
  for (let i = 0; i < rms.length; i++) if (rms[i]! > activeRms) active++;
  return { id: signal.id, x, env: activityEnvelope(rms, FRAMES_PER_SECOND), activeSec: active / FRAMES_PER_SECOND };
}

/**
 * Aligns every source to the reference by audio.
 *
 * @throws {SyncError} naming every source that is silent, too short, or shares no audio with
 *   the reference.
 * @example
 * const [cam1, cam2] = alignSources([
 *   { id: 'src_1', samples: a, sampleRate: 16000 },
 *   { id: 'src_2', samples: b, sampleRate: 16000 },
 * ]);
 * // cam2.offsetMs: where cam2 starts on cam1's timeline
 */
export function alignSources(signals: readonly SyncSignal[], options: AlignOptions = {}): SourceAlignment[] {
  const rate = options.analysisRate ?? 8000;
  const activeRms = options.activeRms ?? 1e-3;
  const minActiveSec = options.minActiveSec ?? 1;
  const failures: SyncFailure[] = [];
  const ids = new Set<string>();
  for (const [i, s] of signals.entries()) {
    if (ids.has(s.id))
      failures.push({ id: s.id, code: 'invalid_input', message: `signals[${i}].id "${s.id}" appears twice` });
    ids.add(s.id);
    if (!(s.sampleRate > 0))
      failures.push({
        id: s.id,
        code: 'invalid_input',
        message: `signals[${i}].sampleRate must be positive (source ${s.id})`,
      });
  }
  const refId = options.referenceId ?? signals[0]?.id;
  if (refId === undefined)
    throw new SyncError([{ id: '', code: 'invalid_input', message: 'alignSources needs at least one signal' }]);
  if (!ids.has(refId))
    failures.push({ id: refId, code: 'invalid_input', message: `referenceId "${refId}" is not one of the signals` });
  if (failures.length > 0) throw new SyncError(failures);

  const prepared = signals.map((s) => prepare(s, rate, activeRms));
  for (const p of prepared) {
    if (p.activeSec < minActiveSec) {
      failures.push({
        id: p.id,
        code: 'silent',
        message: `source ${p.id} has no usable audio (${p.activeSec.toFixed(2)} s above −60 dBFS)`,
      });
    }
  }
  const ref = prepared.find((p) => p.id === refId)!;
  if (failures.some((f) => f.id === refId)) throw new SyncError(failures);

  const results: SourceAlignment[] = [];
  for (const p of prepared) {
    if (p.id === refId) {
      results.push({ id: p.id, offsetMs: 0, driftPpm: 0, confidence: 1, isReference: true, windows: [] });
      continue;
    }
    if (failures.some((f) => f.id === p.id)) continue;
    const r = alignPair(p, ref, rate, options);
    if ('code' in r) failures.push(r);
    else results.push(r);
  }
  if (failures.length > 0) throw new SyncError(failures);
  if ((options.origin ?? 'earliest') === 'earliest') {
    const shift = Math.min(...results.map((r) => r.offsetMs));
    for (const r of results) {
      r.offsetMs -= shift;
      for (const w of r.windows) w.referenceMs -= shift;
    }
  }
  return results;
}

/**
 * Over 80 lines on purpose: the numbered steps (coarse lag, fine windows, robust line) are hot
 * numeric loops sharing the envelopes, lags and windows; split up they would pass them all around.
 */
function alignPair(src: Prepared, ref: Prepared, rate: number, options: AlignOptions): SourceAlignment | SyncFailure {
  const maxDriftPpm = options.maxDriftPpm ?? 300;
  const windowCount = Math.max(1, options.windowCount ?? 8);
  const windowSec = options.windowSec ?? 10;
  const minStrength = options.minWindowStrength ?? 8;
  const activeRms = options.activeRms ?? 1e-3;
  const hop = Math.round(rate / FRAMES_PER_SECOND);
  const nS = src.env.length;
  const nR = ref.env.length;
  const noOverlap = (detail: string): SyncFailure => ({
    id: src.id,
    code: 'no_overlap',
    message: `source ${src.id} shares no recognisable audio with reference ${ref.id} (${detail})`,
  });

  // 1. Coarse: envelope correlation over every lag that leaves a minimum overlap.
  const minOverlap = Math.min(5 * FRAMES_PER_SECOND, Math.floor(Math.min(nS, nR) / 2));
  if (minOverlap < FRAMES_PER_SECOND) return noOverlap('too short to compare');
  const coarse = crossCorrelate(src.env, ref.env, -(nS - minOverlap), nR - minOverlap);
  const coarseLag = argmax(coarse) - (nS - minOverlap); // frames: src frame f ↔ ref frame f + coarseLag

  // 2. Fine windows across the overlap (in source frames), kept clear of the ends by the search margin.
  const durSec = Math.max(nS, nR) / FRAMES_PER_SECOND;
  const margin = Math.ceil((0.05 + maxDriftPpm * 1e-6 * durSec) * rate); // samples either side
  const marginFrames = Math.ceil(margin / hop);
  const fStart = Math.max(0, -coarseLag);
  const fEnd = Math.min(nS, nR - coarseLag);
  const span = fEnd - fStart;
  const minWindow = 2 * FRAMES_PER_SECOND;
  if (span < minWindow) return noOverlap(`overlap of ${(span / FRAMES_PER_SECOND).toFixed(1)} s`);
  const count = Math.max(1, Math.min(windowCount, Math.floor(span / minWindow)));
  const slot = span / count;
  const w = Math.max(
    1,
    Math.min(windowSec * FRAMES_PER_SECOND, Math.floor(slot) - 2 * Math.min(marginFrames, Math.floor(slot / 4))),
  );
  // Activity prefix sums pick the liveliest stretch of each slot.
  const act = new Float64Array(nS + 1);
  for (let i = 0; i < nS; i++) act[i + 1] = act[i]! + src.env[i]! * src.env[i]!;

  const starts: number[] = []; // window starts in source samples
  for (let k = 0; k < count; k++) {
    const lo = Math.floor(fStart + k * slot);
    const hi = Math.floor(fStart + (k + 1) * slot) - w;
    let best = lo;
    let bestAct = -1;
    for (let f = lo; f <= Math.max(lo, hi); f++) {
      const a = act[Math.min(nS, f + w)]! - act[f]!;
      if (a > bestAct) {
        bestAct = a;
        best = f;
      }
    }
    starts.push(best * hop);
  }
  const len = w * hop;
  const measure = (lagAt: (a0: number) => number, beta: number, searchMargin: number): SyncWindow[] => {
    const found: SyncWindow[] = [];
    for (const a0 of starts) {
      const sw = src.x.subarray(a0, Math.min(src.x.length, a0 + len));
      if (rmsOf(sw) < activeRms) continue;
      const m = measureWindow(sw, ref.x, a0 + lagAt(a0), beta, searchMargin, rate);
      if (m.strength < minStrength) continue;
      const sourceMs = ((a0 + sw.length / 2) / rate) * 1000;
      found.push({ sourceMs, referenceMs: (m.refCentre / rate) * 1000, strength: m.strength, inlier: false });
    }
    return found;
  };
  // Pass 1: the coarse lag, a search wide enough for the largest drift.
  let windows = measure(() => coarseLag * hop, 1, margin);
  if (windows.length === 0) return noOverlap('no window correlated');
  let fit = robustLine(windows, 2);
  // Pass 2: a drifting clock smears a long window's peak over (drift × window) samples; warp the
  // reference by the first fit's slope so the peak is sharp again, and search only near the line.
  if (windows.filter((x) => x.inlier).length >= 2 && Math.abs(fit.beta - 1) > 1e-6) {
    const first = fit;
    const second = measure(
      (a0) => ((first.alpha + (first.beta * a0 * 1000) / rate) / 1000) * rate - a0,
      first.beta,
      Math.ceil(0.01 * rate),
    );
    const secondFit = robustLine(second, 2);
    if (second.filter((x) => x.inlier).length >= windows.filter((x) => x.inlier).length) {
      windows = second;
      fit = secondFit;
    } else {
      robustLine(windows, 2); // restore the first pass's inlier marks
    }
  }
  if (windows.length === 0) return noOverlap('no window correlated');

  // 3. Robust line referenceMs = α + β·sourceMs.
  const inliers = windows.filter((x) => x.inlier);
  const enough = inliers.length >= 2 || (count === 1 && inliers.length === 1);
  if (!enough || inliers.length * 2 < windows.length) {
    return noOverlap(`${inliers.length} of ${windows.length} windows agree`);
  }
  const driftPpm = (1 / fit.beta - 1) * 1e6;
  const strengths = inliers.map((x) => x.strength).sort((a, b) => a - b);
  const medianStrength = strengths[Math.floor(strengths.length / 2)]!;
  const confidence = (inliers.length / count) * Math.min(1, medianStrength / 30);
  return { id: src.id, offsetMs: fit.alpha, driftPpm, confidence, isReference: false, windows };
}

/**
 * Theil–Sen start, then least squares over the points within `tolMs` of it; marks inliers.
 * `referenceMs = alpha + beta·sourceMs`.
 */
export function robustLine(points: SyncWindow[], tolMs: number): { alpha: number; beta: number } {
  let beta = 1;
  if (points.length >= 2) {
    const slopes: number[] = [];
    for (let i = 0; i < points.length; i++) {
      for (let j = i + 1; j < points.length; j++) {
        const ds = points[j]!.sourceMs - points[i]!.sourceMs;
        if (Math.abs(ds) > 1) slopes.push((points[j]!.referenceMs - points[i]!.referenceMs) / ds);
      }
    }
    if (slopes.length > 0) beta = median(slopes);
  }
  let alpha = median(points.map((p) => p.referenceMs - beta * p.sourceMs));
  for (const p of points) p.inlier = Math.abs(p.referenceMs - (alpha + beta * p.sourceMs)) <= tolMs;
  const inl = points.filter((p) => p.inlier);
  if (inl.length >= 2) {
    const ms = inl.reduce((s, p) => s + p.sourceMs, 0) / inl.length;
    const mr = inl.reduce((s, p) => s + p.referenceMs, 0) / inl.length;
    let sxx = 0;
    let sxy = 0;
    for (const p of inl) {
      sxx += (p.sourceMs - ms) ** 2;
      sxy += (p.sourceMs - ms) * (p.referenceMs - mr);
    }
    // Windows bunched in time cannot tell drift; keep the slope at 1 then.
    beta = sxx > 1e6 ? sxy / sxx : 1;
    alpha = mr - beta * ms;
    for (const p of points) p.inlier = Math.abs(p.referenceMs - (alpha + beta * p.sourceMs)) <= tolMs;
  } else if (inl.length === 1) {
    beta = 1;
    alpha = inl[0]!.referenceMs - inl[0]!.sourceMs;
  }
  return { alpha, beta };
}

/**
 * Finds the source window `sw` in `ref` near reference sample `guess` (± `margin`), reading the
 * reference at `beta` reference samples per source sample. Returns the reference sample that
 * matches the window's centre and the peak's strength.
 */
function measureWindow(
  sw: Float32Array,
  ref: Float32Array,
  guess: number,
  beta: number,
  margin: number,
  rate: number,
): { refCentre: number; strength: number } {
  const b0 = Math.round(guess) - Math.ceil(margin * beta);
  const span = Math.ceil((sw.length + 2 * margin) * beta) + 2;
  let rw = sliceZeroPadded(ref, b0, span);
  // Resampling at rate/beta makes output sample j the reference at b0 + j·beta.
  if (beta !== 1) rw = resample(rw, rate, rate / beta, { zeroCrossings: 8 });
  const c = crossCorrelate(sw, rw, 0, 2 * margin, { weighting: 'phat' });
  const i = argmax(c);
  const p = parabolicPeak(c, i);
  return { refCentre: b0 + (p + sw.length / 2) * beta, strength: peakToSidelobe(c, i) };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function rmsOf(x: Float32Array): number {
  let acc = 0;
  for (let i = 0; i < x.length; i++) acc += x[i]! * x[i]!;
  return x.length ? Math.sqrt(acc / x.length) : 0;
}

function sliceZeroPadded(x: Float32Array, start: number, length: number): Float32Array {
  const out = new Float32Array(length);
  const from = Math.max(0, start);
  const to = Math.min(x.length, start + length);
  if (to > from) out.set(x.subarray(from, to), from - start);
  return out;
}

/** (peak − mean) / std of the correlation away from the peak (±5 samples excluded). */
function peakToSidelobe(c: Float64Array, peak: number): number {
  let n = 0;
  let sum = 0;
  let sum2 = 0;
  for (let i = 0; i < c.length; i++) {
    if (Math.abs(i - peak) <= 5) continue;
    n++;
    sum += c[i]!;
    sum2 += c[i]! * c[i]!;
  }
  if (n < 2) return 0;
  const mean = sum / n;
  const sd = Math.sqrt(Math.max(1e-30, sum2 / n - mean * mean));
  return (c[peak]! - mean) / sd;
}
