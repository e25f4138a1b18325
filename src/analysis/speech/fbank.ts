/**
 * Kaldi-compatible log mel filterbank (`compute-fbank-feats`) and MFCCs derived from it.
 *
 * Matches Kaldi's defaults step by step (snip edges, remove DC, pre-emphasis 0.97, povey
 * window, FFT size rounded up to a power of two, mel scale `1127 ln(1 + f/700)`, log with an
 * FLT_EPSILON floor) so features can be checked against Kaldi's own output. Dither is not
 * implemented: it is random by design and every reference here is computed with `--dither=0`.
 *
 * @module
 */
import { fft } from '../signal/signal-fft.ts';

/** Options of {@link kaldiFbank}; names follow Kaldi's command-line flags. */
export interface FbankOptions {
  /** Hz; the input must already be at this rate. Default 16000. */
  sampleFrequency?: number;
  /** ms. Default 25. */
  frameLength?: number;
  /** ms. Default 10. */
  frameShift?: number;
  /** Default 23. */
  numMelBins?: number;
  /** Hz. Default 20. */
  lowFreq?: number;
  /** Hz; zero or negative counts down from Nyquist. Default 0 (Nyquist). */
  highFreq?: number;
  /** Default 0.97. */
  preemphCoeff?: number;
  /** Default true. */
  removeDcOffset?: boolean;
  /** Power spectrum (true) or magnitude (false). Default true. */
  usePower?: boolean;
  /**
   * Multiply the samples by this before analysis. Kaldi reads WAV files as 16-bit integers,
   * so a Float32 signal in [-1, 1] needs 32768 to give the same numbers. Default 32768.
   */
  inputScale?: number;
}

/** Row-major feature matrix: frame `t`, bin `b` is `data[t * dim + b]`. */
export interface FeatureMatrix {
  frames: number;
  dim: number;
  data: Float32Array;
}

const FLT_EPSILON = 1.1920928955078125e-7;

/** Kaldi's mel scale. */
export function melScale(hz: number): number {
  return 1127 * Math.log(1 + hz / 700);
}

/** Number of frames Kaldi produces with `--snip-edges=true`. */
export function numFramesSnipEdges(numSamples: number, frameLength: number, frameShift: number): number {
  if (numSamples < frameLength) return 0;
  return 1 + Math.floor((numSamples - frameLength) / frameShift);
}

interface MelBank {
  /** First FFT bin with a non-zero weight. */
  start: number;
  weights: Float64Array;
}

/** The banks of the last few layouts: laughter detection asks for the same one per segment. */
const bankCache = new Map<string, MelBank[]>();

function melBanks(
  numBins: number,
  paddedLength: number,
  sampleRate: number,
  lowFreq: number,
  highFreq: number,
): MelBank[] {
  const key = `${numBins}/${paddedLength}/${sampleRate}/${lowFreq}/${highFreq}`;
  let banks = bankCache.get(key);
  if (!banks) {
    banks = computeMelBanks(numBins, paddedLength, sampleRate, lowFreq, highFreq);
    if (bankCache.size > 8) bankCache.clear();
    bankCache.set(key, banks);
  }
  return banks;
}

function computeMelBanks(
  numBins: number,
  paddedLength: number,
  sampleRate: number,
  lowFreq: number,
  highFreq: number,
): MelBank[] {
  const nyquist = sampleRate / 2;
  const high = highFreq <= 0 ? nyquist + highFreq : highFreq;
  const numFftBins = paddedLength / 2;
  const binWidth = sampleRate / paddedLength;
  const melLow = melScale(lowFreq);
  const melHigh = melScale(high);
  const delta = (melHigh - melLow) / (numBins + 1);
  const banks: MelBank[] = [];
  for (let b = 0; b < numBins; b++) {
    const left = melLow + b * delta;
    const center = left + delta;
    const right = center + delta;
    let first = -1;
    let last = -1;
    const full = new Float64Array(numFftBins);
    for (let i = 0; i < numFftBins; i++) {
      const mel = melScale(binWidth * i);
      if (mel > left && mel < right) {
        full[i] = mel <= center ? (mel - left) / (center - left) : (right - mel) / (right - center);
        if (first < 0) first = i;
        last = i;
      }
    }
    banks.push(
      first < 0 ? { start: 0, weights: new Float64Array(0) } : { start: first, weights: full.slice(first, last + 1) },
    );
  }
  return banks;
}

/**
 * Log mel filterbank energies, numerically equal (to float rounding) to Kaldi's
 * `compute-fbank-feats --dither=0` with the same options.
 *
 * @example
 * const fb = kaldiFbank(samples16k); // 23 log-mel bins every 10 ms
 * const firstFrame = fb.data.subarray(0, fb.dim);
 */
export function kaldiFbank(samples: Float32Array, options: FbankOptions = {}): FeatureMatrix {
  const sampleRate = options.sampleFrequency ?? 16000;
  const frameLength = Math.round((sampleRate * (options.frameLength ?? 25)) / 1000);
  const frameShift = Math.round((sampleRate * (options.frameShift ?? 10)) / 1000);
  const numBins = options.numMelBins ?? 23;
  const preemph = options.preemphCoeff ?? 0.97;
  const removeDc = options.removeDcOffset ?? true;
  const usePower = options.usePower ?? true;
  const scale = options.inputScale ?? 32768;
  let padded = 1;
  while (padded < frameLength) padded <<= 1;
  const banks = melBanks(numBins, padded, sampleRate, options.lowFreq ?? 20, options.highFreq ?? 0);
  const window = new Float64Array(frameLength);
  for (let i = 0; i < frameLength; i++) {
    window[i] = Math.pow(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (frameLength - 1)), 0.85);
  }
  const frames = numFramesSnipEdges(samples.length, frameLength, frameShift);
  const data = new Float32Array(frames * numBins);
  const re = new Float64Array(padded);
  const im = new Float64Array(padded);
  const frame = new Float64Array(frameLength);
  const power = new Float64Array(padded / 2 + 1);
  for (let t = 0; t < frames; t++) {
    const offset = t * frameShift;
    let mean = 0;
    for (let i = 0; i < frameLength; i++) {
      const v = samples[offset + i]! * scale;
      frame[i] = v;
      mean += v;
    }
    if (removeDc) {
      mean /= frameLength;
      for (let i = 0; i < frameLength; i++) frame[i] = frame[i]! - mean;
    }
    if (preemph !== 0) {
      for (let i = frameLength - 1; i > 0; i--) frame[i] = frame[i]! - preemph * frame[i - 1]!;
      frame[0] = frame[0]! - preemph * frame[0]!;
    }
    re.fill(0);
    im.fill(0);
    for (let i = 0; i < frameLength; i++) re[i] = frame[i]! * window[i]!;
    fft(re, im);
    for (let i = 0; i <= padded / 2; i++) {
      const p = re[i]! * re[i]! + im[i]! * im[i]!;
      power[i] = usePower ? p : Math.sqrt(p);
    }
    for (let b = 0; b < numBins; b++) {
      const bank = banks[b]!;
      let e = 0;
      for (let k = 0; k < bank.weights.length; k++) e += bank.weights[k]! * power[bank.start + k]!;
      data[t * numBins + b] = Math.log(Math.max(e, FLT_EPSILON));
    }
  }
  return { frames, dim: numBins, data };
}

/**
 * MFCCs from log mel energies, as Kaldi computes them: an orthonormal DCT-II of the log
 * mel bins, keeping `numCeps`, then the sinusoidal cepstral lifter.
 */
export function mfccFromFbank(fbank: FeatureMatrix, numCeps = 13, cepstralLifter = 22): FeatureMatrix {
  const n = fbank.dim;
  const dct = new Float64Array(numCeps * n);
  for (let k = 0; k < numCeps; k++) {
    const norm = k === 0 ? Math.sqrt(1 / n) : Math.sqrt(2 / n);
    for (let j = 0; j < n; j++) dct[k * n + j] = norm * Math.cos((Math.PI / n) * (j + 0.5) * k);
  }
  const lifter = new Float64Array(numCeps);
  for (let k = 0; k < numCeps; k++) {
    lifter[k] = cepstralLifter > 0 ? 1 + 0.5 * cepstralLifter * Math.sin((Math.PI * k) / cepstralLifter) : 1;
  }
  const out = new Float32Array(fbank.frames * numCeps);
  for (let t = 0; t < fbank.frames; t++) {
    const row = t * n;
    for (let k = 0; k < numCeps; k++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += dct[k * n + j]! * fbank.data[row + j]!;
      out[t * numCeps + k] = s * lifter[k]!;
    }
  }
  return { frames: fbank.frames, dim: numCeps, data: out };
}
