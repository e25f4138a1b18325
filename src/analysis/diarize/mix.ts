/**
 * Single-mix diarization: one track with everybody on it. MFCCs from the Kaldi fbank, a UBM
 * trained on the file, MAP-adapted mean supervectors per ~1.5 s of speech, spectral
 * clustering that picks the speaker count by eigengap, then Viterbi resegmentation with
 * speaker GMMs and a minimum turn length. Guards against an unstable count: speakers whose
 * models are too close are merged, speakers with too little talk time are dropped.
 *
 * @module
 */
import { kaldiFbank, mfccFromFbank } from '../fbank.ts';
import { resampleFrameValues, speechSegments, VAD_FRAME_MS } from '../vad.ts';
import {
  frameLogLikelihoods,
  mapAdaptMeans,
  sufficientStats,
  supervector,
  trainUbm,
  ubmPosteriors,
  type DiagGmm,
  type FramePosteriors,
} from './gmm.ts';
import { MIN_TOTAL_SPEECH_MS, resultFromActivity, type DiarizationResult, type TurnSmoothing } from './result.ts';
import { spectralCluster } from './spectral.ts';
import { viterbiSegment } from './viterbi.ts';

/** Options of {@link diarizeMix}. Turn smoothing defaults here: pauses < 150 ms bridged, turns < 100 ms dropped. */
export interface MixOptions extends TurnSmoothing {
  /** ms per VAD probability. Default 32. */
  vadFrameMs?: number;
  /** Default 0.5. */
  vadThreshold?: number;
  /** Padding added around every VAD speech run, ms (Silero trims weak onsets and tails); padding puts noise into the clustered pieces. Default 0. */
  vadPadMs?: number;
  /** Known speaker count (skips the eigengap). */
  numSpeakers?: number;
  /** Default 1. */
  minSpeakers?: number;
  /** Default 8. */
  maxSpeakers?: number;
  /** Length of the pieces clustered, ms. Default 1500. */
  segmentMs?: number;
  /** UBM size. Default 32. */
  ubmComponents?: number;
  /** Shortest speaker turn the resegmentation allows, ms. Default 300. */
  minTurnFramesMs?: number;
  /** Log-likelihood cost of a speaker change in the resegmentation. Default 30. */
  switchPenalty?: number;
  /** Default 3. */
  resegmentIterations?: number;
  /** A speaker with less talk than this share of all speech is dropped. Default 0.04. */
  minSpeakerShare?: number;
  /**
   * Two speakers whose models tell their frames apart by less than this (cross-likelihood
   * ratio, nats per frame) are merged. Default 0.12.
   */
  mergeBelowClr?: number;
  seed?: number;
  /**
   * Overlapped-speech probability from an optional segmentation model (pyannote
   * segmentation-3.0 via src/models/segmentation.ts). Where it is above 0.5 on speech, the
   * second most likely speaker is marked as talking too. Without it the result has no overlap.
   */
  overlap?: { frameMs: number; values: ArrayLike<number> };
}

/** Diagnostics next to the result, for the evaluation tool. */
export interface MixDiagnostics {
  eigengapCount: number;
  eigenvalues: number[];
  segments: number;
  merged: number;
  dropped: number;
  /** Smallest cross-likelihood ratio between two speakers at each resegmentation pass. */
  closestClr: number[];
  /** Cosine similarity of the two closest cluster centroids (supervector space). */
  closestCentroids: number;
  /** Smallest separation between two clusters (see clusterSeparation). */
  separation: number;
  /** Wall time of each step, ms (Date.now: the pure project has no performance clock types). */
  timings: Record<string, number>;
}

const FRAME_MS = 10;

/**
 * Diarizes one mono 16 kHz track.
 *
 * @param vadProbs speech probability per VAD frame (Silero: 32 ms)
 * @example
 * const r = diarizeMix(mix16k, 16000, await vad.speechProbabilities(mix16k));
 */
export function diarizeMix(samples: Float32Array, sampleRate: number, vadProbs: ArrayLike<number>, options: MixOptions = {}): DiarizationResult {
  return diarizeMixWithDiagnostics(samples, sampleRate, vadProbs, options).result;
}

/** {@link diarizeMix} plus what the count decision was based on. */
export function diarizeMixWithDiagnostics(
  samples: Float32Array,
  sampleRate: number,
  vadProbs: ArrayLike<number>,
  options: MixOptions = {},
): { result: DiarizationResult; diagnostics: MixDiagnostics } {
  if (sampleRate !== 16000) throw new RangeError(`sampleRate is ${sampleRate}; diarizeMix expects 16000 Hz audio`);
  const diagnostics: MixDiagnostics = { eigengapCount: 0, eigenvalues: [], segments: 0, merged: 0, dropped: 0, closestClr: [], closestCentroids: -1, separation: Infinity, timings: {} };
  let clock = Date.now();
  const lap = (step: string): void => {
    const now = Date.now();
    diagnostics.timings[step] = now - clock;
    clock = now;
  };
  const fb = kaldiFbank(samples, { numMelBins: 30, highFreq: -400 });
  const cep = mfccFromFbank(fb, 20);
  // Drop c0 (loudness says more about the mic distance than about the voice).
  const dim = 19;
  const T = cep.frames;
  const feats = new Float32Array(T * dim);
  for (let t = 0; t < T; t++) for (let d = 0; d < dim; d++) feats[t * dim + d] = cep.data[t * 20 + d + 1]!;

  lap('features');
  const vadFrameMs = options.vadFrameMs ?? VAD_FRAME_MS;
  const probs10 = resampleFrameValues(vadProbs, vadFrameMs, FRAME_MS, T);
  const speech = speechSegments(probs10, { frameMs: FRAME_MS, threshold: options.vadThreshold ?? 0.5, minSilenceMs: 200, minSpeechMs: 200, padMs: options.vadPadMs ?? 0 });
  const runs = speech.map((s) => [Math.round(s.startMs / FRAME_MS), Math.min(T, Math.round(s.endMs / FRAME_MS))] as const).filter(([a, b]) => b > a);
  const frames: number[] = [];
  for (const [a, b] of runs) for (let t = a; t < b; t++) frames.push(t);
  const empty = (): { result: DiarizationResult; diagnostics: MixDiagnostics } => ({
    result: resultFromActivity([new Uint8Array(T)], FRAME_MS, options),
    diagnostics,
  });
  if (frames.length * FRAME_MS < MIN_TOTAL_SPEECH_MS) return empty();

  // Mean/variance normalisation over speech.
  const mean = new Float64Array(dim);
  const sq = new Float64Array(dim);
  for (const t of frames) {
    for (let d = 0; d < dim; d++) {
      const v = feats[t * dim + d]!;
      mean[d] = mean[d]! + v;
      sq[d] = sq[d]! + v * v;
    }
  }
  for (let d = 0; d < dim; d++) {
    mean[d] = mean[d]! / frames.length;
    const sd = Math.sqrt(Math.max(1e-8, sq[d]! / frames.length - mean[d]! * mean[d]!));
    for (let t = 0; t < T; t++) feats[t * dim + d] = (feats[t * dim + d]! - mean[d]!) / sd;
  }

  const seed = options.seed ?? 1;
  const trainFrames = frames.length > 40000 ? frames.filter((_, i) => i % Math.ceil(frames.length / 40000) === 0) : frames;
  const ubm = trainUbm(feats, dim, trainFrames, options.ubmComponents ?? 32, 8, seed);
  lap('ubm');
  const post = ubmPosteriors(ubm, feats, frames, 5);
  lap('posteriors');

  // Pieces: each VAD run split evenly into pieces of about segmentMs. At most ~200 pieces:
  // the eigen-decomposition is O(n³) per pruning candidate, and longer pieces on long files
  // give steadier supervectors anyway.
  let segFrames = Math.round((options.segmentMs ?? 1500) / FRAME_MS);
  segFrames = Math.max(segFrames, Math.ceil(frames.length / 200));
  const pieces: Array<[number, number]> = []; // [first row, end row) into `frames`
  let row = 0;
  for (const [a, b] of runs) {
    const len = b - a;
    const count = Math.max(1, Math.round(len / segFrames));
    for (let p = 0; p < count; p++) {
      pieces.push([row + Math.floor((p * len) / count), row + Math.floor(((p + 1) * len) / count)]);
    }
    row += len;
  }
  const clustered = pieces.filter(([a, b]) => b - a >= segFrames / 3);
  diagnostics.segments = clustered.length;

  const rangeRows = (a: number, b: number): Iterable<number> => ({
    *[Symbol.iterator]() {
      for (let i = a; i < b; i++) yield i;
    },
  });
  let labels: Int32Array; // per speech-frame row
  let k: number;
  if (clustered.length < 3) {
    k = 1;
    labels = new Int32Array(frames.length);
  } else {
    const n = clustered.length;
    const sv = clustered.map(([a, b]) => {
      const st = sufficientStats(ubm, feats, frames, post, rangeRows(a, b));
      return supervector(ubm, mapAdaptMeans(ubm, st.n, st.f, 16));
    });
    const len = sv[0]!.length;
    const centre = new Float64Array(len);
    for (const v of sv) for (let i = 0; i < len; i++) centre[i] = centre[i]! + v[i]! / n;
    for (const v of sv) {
      let norm = 0;
      for (let i = 0; i < len; i++) {
        v[i] = v[i]! - centre[i]!;
        norm += v[i]! * v[i]!;
      }
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < len; i++) v[i] = v[i]! / norm;
    }
    const sim = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = i; j < n; j++) {
        let s = 0;
        const a = sv[i]!;
        const b = sv[j]!;
        for (let d = 0; d < len; d++) s += a[d]! * b[d]!;
        sim[i * n + j] = s;
        sim[j * n + i] = s;
      }
    }
    const spectralOptions = {
      minClusters: options.minSpeakers ?? 1,
      // Sanity bound: a speaker needs a few pieces (~4.5 s of speech) to be counted at all.
      maxClusters: Math.max(1, Math.min(options.maxSpeakers ?? 8, Math.max(2, Math.floor(n / 3)))),
      seed,
      ...(options.numSpeakers !== undefined ? { numClusters: options.numSpeakers } : {}),
    };
    let sc = spectralCluster(sim, n, spectralOptions);
    diagnostics.eigengapCount = sc.k;
    diagnostics.eigenvalues = sc.eigenvalues;
    // Count guard: k well-separated voices give centroids (around the global mean) with
    // cosine near −1/(k−1); a voice split in two gives a pair far above that. Step down
    // until the closest pair is at least 0.3 of the ideal distance apart.
    const minK = options.minSpeakers ?? 1;
    while (options.numSpeakers === undefined && sc.k >= 3 && sc.k > minK && closestCentroidCosine(sv, sc.labels, sc.k) > -0.3 / (sc.k - 1)) {
      sc = spectralCluster(sim, n, { ...spectralOptions, numClusters: sc.k - 1 });
      diagnostics.merged++;
    }
    k = sc.k;
    diagnostics.closestCentroids = closestCentroidCosine(sv, sc.labels, k);
    diagnostics.separation = clusterSeparation(sim, n, sc.labels, k).min;
    labels = new Int32Array(frames.length).fill(-1);
    clustered.forEach(([a, b], i) => labels.fill(sc.labels[i]!, a, b));
  }

  lap('clustering');
  // Resegmentation with speaker models, then the count guards, then resegment again.
  const minDur = Math.max(1, Math.round((options.minTurnFramesMs ?? 300) / FRAME_MS));
  const penalty = options.switchPenalty ?? 30;
  const iterations = options.resegmentIterations ?? 3;
  let speakerMeans = modelsFromLabels(ubm, feats, frames, post, labels, k);
  let path = labels;
  for (let it = 0; it < iterations; it++) {
    const scores = speakerMeans.map((m) => frameLogLikelihoods(ubm, m, feats, frames, post));
    path = viterbiSegment(scores, minDur, penalty);
    speakerMeans = modelsFromLabels(ubm, feats, frames, post, path, k);
    // Count guards, applied on the models of this pass.
    const guard = guardSpeakerCount(path, scores, k, options, frames.length);
    diagnostics.closestClr.push(guard.closest);
    if (guard.keep.length < k) {
      diagnostics.merged += guard.merged;
      diagnostics.dropped += guard.dropped;
      const remap = new Int32Array(k).fill(-1);
      guard.keep.forEach((old, i) => (remap[old] = i));
      speakerMeans = guard.keep.map((old) => speakerMeans[old]!);
      k = guard.keep.length;
      // Frames of removed speakers are re-decided by the next Viterbi pass.
      path = path.map((l) => remap[l] ?? -1);
      if (it === iterations - 1) it--; // always finish with a pass on the final speaker set
    }
  }
  if (k > 1 && path.some((l) => l < 0)) {
    const scores = speakerMeans.map((m) => frameLogLikelihoods(ubm, m, feats, frames, post));
    path = viterbiSegment(scores, minDur, penalty);
  }
  lap('resegmentation');
  const activity = Array.from({ length: Math.max(1, k) }, () => new Uint8Array(T));
  frames.forEach((t, i) => {
    activity[Math.max(0, path[i]!)]![t] = 1;
  });
  if (options.overlap && k > 1) {
    const ov = resampleFrameValues(options.overlap.values, options.overlap.frameMs, FRAME_MS, T);
    const scores = speakerMeans.map((m) => frameLogLikelihoods(ubm, m, feats, frames, post));
    // The second speaker is chosen on likelihoods summed over ±250 ms: single frames are too noisy.
    const half = 25;
    const prefix = scores.map((s) => {
      const p = new Float64Array(s.length + 1);
      for (let i = 0; i < s.length; i++) p[i + 1] = p[i]! + s[i]!;
      return p;
    });
    frames.forEach((t, i) => {
      if (ov[t]! < 0.5) return;
      const a = Math.max(0, i - half);
      const b = Math.min(frames.length, i + half + 1);
      let best = -1;
      let bestScore = -Infinity;
      for (let sp = 0; sp < k; sp++) {
        if (sp === path[i]) continue;
        const v = prefix[sp]![b]! - prefix[sp]![a]!;
        if (v > bestScore) {
          bestScore = v;
          best = sp;
        }
      }
      if (best >= 0) activity[best]![t] = 1;
    });
  }
  // Speaker changes are already at least minTurn long; only bridge short pauses.
  const smoothing = { minPauseMs: options.minPauseMs ?? 150, minTurnMs: options.minTurnMs ?? 100 };
  return { result: resultFromActivity(activity, FRAME_MS, smoothing), diagnostics };
}

function modelsFromLabels(ubm: DiagGmm, feats: Float32Array, frames: readonly number[], post: FramePosteriors, labels: Int32Array, k: number): Float64Array[] {
  const rows: number[][] = Array.from({ length: k }, () => []);
  labels.forEach((l, i) => {
    if (l >= 0 && l < k) rows[l]!.push(i);
  });
  return rows.map((r) => {
    const st = sufficientStats(ubm, feats, frames, post, r);
    return mapAdaptMeans(ubm, st.n, st.f, 16);
  });
}

/**
 * Which speakers survive: repeatedly merges the pair whose models separate their frames
 * least (mean cross-likelihood ratio below `mergeBelowClr`), then drops speakers under
 * `minSpeakerShare` of the speech.
 */
function guardSpeakerCount(
  path: Int32Array,
  scores: readonly Float64Array[],
  k: number,
  options: MixOptions,
  total: number,
): { keep: number[]; merged: number; dropped: number; closest: number } {
  const count = new Float64Array(k);
  for (const l of path) if (l >= 0) count[l] = count[l]! + 1;
  let merged = 0;
  let dropped = 0;
  const alive = new Set(Array.from({ length: k }, (_, i) => i));
  const clrThreshold = options.mergeBelowClr ?? 0.12;
  // CLR(a, b) = mean over a's frames of (ll_a − ll_b) + mean over b's frames of (ll_b − ll_a).
  const clr = (a: number, b: number): number => {
    let sa = 0;
    let sb = 0;
    path.forEach((l, i) => {
      if (l === a) sa += scores[a]![i]! - scores[b]![i]!;
      else if (l === b) sb += scores[b]![i]! - scores[a]![i]!;
    });
    return sa / Math.max(1, count[a]!) + sb / Math.max(1, count[b]!);
  };
  let closest = Infinity;
  for (;;) {
    let worst = Infinity;
    let pair: [number, number] | undefined;
    const ids = [...alive];
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const v = clr(ids[i]!, ids[j]!);
        if (v < worst) {
          worst = v;
          pair = [ids[i]!, ids[j]!];
        }
      }
    }
    if (merged === 0) closest = worst;
    if (!pair || worst >= clrThreshold) break;
    // Keep the one with more talk; its model is re-estimated on the merged frames next pass.
    const [a, b] = count[pair[0]]! >= count[pair[1]]! ? pair : [pair[1], pair[0]];
    path.forEach((l, i) => {
      if (l === b) path[i] = a;
    });
    count[a] = count[a]! + count[b]!;
    count[b] = 0;
    alive.delete(b);
    merged++;
  }
  const share = options.minSpeakerShare ?? 0.04;
  for (const id of [...alive]) {
    if (alive.size > 1 && count[id]! < share * total) {
      alive.delete(id);
      dropped++;
    }
  }
  return { keep: [...alive].sort((x, y) => x - y), merged, dropped, closest };
}

/** Largest cosine similarity between two cluster centroids of unit supervectors. */
function closestCentroidCosine(sv: readonly Float64Array[], labels: Int32Array, k: number): number {
  if (k < 2) return -1;
  const len = sv[0]!.length;
  const centroids = Array.from({ length: k }, () => new Float64Array(len));
  sv.forEach((v, i) => {
    const c = centroids[labels[i]!]!;
    for (let d = 0; d < len; d++) c[d] = c[d]! + v[d]!;
  });
  let best = -1;
  for (let a = 0; a < k; a++) {
    for (let b = a + 1; b < k; b++) {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let d = 0; d < len; d++) {
        dot += centroids[a]![d]! * centroids[b]![d]!;
        na += centroids[a]![d]! ** 2;
        nb += centroids[b]![d]! ** 2;
      }
      best = Math.max(best, dot / Math.sqrt(na * nb || 1));
    }
  }
  return best;
}

/**
 * How distinct two clusters are: mean similarity inside each (averaged) minus mean similarity
 * across. Two halves of one voice score near 0; two voices score well above.
 */
function clusterSeparation(sim: Float64Array, n: number, labels: Int32Array, k: number): { min: number; pair: [number, number] } {
  const sum = new Float64Array(k * k);
  const cnt = new Float64Array(k * k);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      const a = labels[i]!;
      const b = labels[j]!;
      sum[a * k + b] = sum[a * k + b]! + sim[i * n + j]!;
      cnt[a * k + b] = cnt[a * k + b]! + 1;
    }
  }
  const mean = (a: number, b: number): number => (cnt[a * k + b]! > 0 ? sum[a * k + b]! / cnt[a * k + b]! : 1);
  let min = Infinity;
  let pair: [number, number] = [0, 0];
  for (let a = 0; a < k; a++) {
    for (let b = a + 1; b < k; b++) {
      const v = (mean(a, a) + mean(b, b)) / 2 - mean(a, b);
      if (v < min) {
        min = v;
        pair = [a, b];
      }
    }
  }
  return { min, pair };
}
