/**
 * An energy gate in front of the VAD for close mics: frames at the mic's own noise floor hold
 * no speech and no audible bleed, so the model need not run on them. The gate keeps every
 * frame louder than the floor plus a margin, widened on both sides (the model sees the quiet
 * lead-in of each onset and its state settles), joins what it keeps into one shorter signal for
 * the VAD (with a short silence at each joint), and spreads the probabilities back (0 where
 * the gate skipped). On the long sets a mic sits at its floor 40 % of the time: that share of
 * the VAD's time is saved. A mic whose floor is loud (constant noise) is not gated. Close mics
 * also skip the frames that are only a louder neighbour's bleed ({@link closeMicStretches});
 * those take the neighbour's probability ({@link creditBleedFrames}).
 *
 * Only for per-mic speaker detection: on a single mix a quiet far voice may sit near the floor.
 *
 * @module
 */
import { asReader, pieces, type SampleInput } from '../signal/sample-reader.ts';
import { StreamingResampler } from '../signal/signal-resample.ts';

/** Options of {@link gatedStretches}. */
export interface VadGateOptions {
  /** Frames this much above the floor are kept. Default 6 dB. */
  marginDb?: number;
  /** The floor: this quantile of the frames' levels. Default 0.1. */
  floorQuantile?: number;
  /** Frames kept on both sides of every loud frame. Default 16 (0.5 s of 32 ms frames). */
  padFrames?: number;
  /** Skipped stretches shorter than this are kept (not worth a joint). Default 32 frames. */
  minSkipFrames?: number;
  /**
   * Frames of digital silence put between joined stretches, so the VAD's state settles between
   * them (see {@link JOINT_GAP_FRAMES}). Default {@link JOINT_GAP_FRAMES}.
   */
  jointGapFrames?: number;
  /**
   * A mic whose floor is louder than this is not gated (constant noise, or no pause at all:
   * its floor says nothing about speech). Default −45 dBFS.
   */
  maxFloorDb?: number;
}

/** Frame ranges `[start, end)` the VAD runs on, in order, and the frame count of the signal. */
export interface GatedStretches {
  frames: number;
  keep: Array<{ start: number; end: number }>;
  /**
   * With the bleed gate ({@link closeMicStretches}' `bleedMarginDb`): per frame, the louder
   * neighbour whose bleed alone the frame is (its index), or −1. Where such a frame is
   * skipped, {@link creditBleedFrames} gives it that neighbour's probability.
   */
  bleedOf?: Int8Array;
  /** Frames of silence between joined stretches ({@link VadGateOptions}' `jointGapFrames`); none when absent. */
  gap?: number;
}

/**
 * Frames of silence between joined stretches (128 ms). Joined back to back, a stretch that
 * ends in a neighbour's voice handed its speech state to the next one's quiet lead-in: Silero
 * held 0.8–0.9 there where the whole signal gave 0.2–0.4, and one 4-speaker eval set gained
 * 0.8 s of false alarm. With 4 frames, over 24 close-mic sets of the eval's fixture settings
 * (seeds +0 … +50), mean per-mic DER 2.39 % against 2.42 % joined back to back. The cost:
 * 4 frames per joint: 0.0–0.7 % of a mic's frames more for the VAD behind the floor gate,
 * 1.0–1.8 % behind the bleed gate.
 */
export const JOINT_GAP_FRAMES = 4;

/** Frames read at once from a signal that is not in memory. */
const READ_FRAMES = 2048;

/** Level of each `frameSamples` frame in dBFS (a last partial frame counts what it has). */
function frameLevelsDb(input: SampleInput, frameSamples: number): Float32Array {
  const reader = asReader(input);
  const frames = Math.ceil(reader.length / frameSamples);
  const out = new Float32Array(frames);
  for (const [at, samples] of pieces(reader, READ_FRAMES * frameSamples)) {
    const first = at / frameSamples;
    for (let f = 0; f * frameSamples < samples.length; f++) {
      const from = f * frameSamples;
      const to = Math.min(samples.length, from + frameSamples);
      let acc = 0;
      for (let i = from; i < to; i++) acc += samples[i]! * samples[i]!;
      out[first + f] = 10 * Math.log10(acc / Math.max(1, to - from) + 1e-12);
    }
  }
  return out;
}

/**
 * The frames of `samples` the VAD must see: every frame above the noise floor plus
 * `marginDb`, widened by `padFrames`; quiet gaps shorter than `minSkipFrames` are kept.
 */
export function gatedStretches(
  samples: SampleInput,
  frameSamples: number,
  options: VadGateOptions = {},
): GatedStretches {
  const levels = frameLevelsDb(samples, frameSamples);
  return stretchesOf(levels, aboveFloor(levels, options), options);
}

/** Per frame, 1 where the level is over the floor plus the margin (every frame of a mic with a loud floor). */
function aboveFloor(levels: Float32Array, options: VadGateOptions): Uint8Array {
  const frames = levels.length;
  const loud = new Uint8Array(frames);
  if (frames === 0) return loud;
  const sorted = Float32Array.from(levels).sort();
  const floor = sorted[Math.min(frames - 1, Math.floor((options.floorQuantile ?? 0.1) * frames))]!;
  if (floor > (options.maxFloorDb ?? -45)) return loud.fill(1);
  const gate = floor + (options.marginDb ?? 6);
  for (let f = 0; f < frames; f++) if (levels[f]! > gate) loud[f] = 1;
  return loud;
}

/** The stretches around the `wanted` frames: widened by `padFrames`, gaps under `minSkipFrames` kept. */
function stretchesOf(levels: Float32Array, wanted: Uint8Array, options: VadGateOptions): GatedStretches {
  const frames = levels.length;
  const pad = options.padFrames ?? 16;
  const minSkip = options.minSkipFrames ?? 32;
  const loud = new Uint8Array(frames);
  for (let f = 0; f < frames; f++) {
    if (!wanted[f]) continue;
    for (let k = Math.max(0, f - pad); k <= Math.min(frames - 1, f + pad); k++) loud[k] = 1;
  }
  const keep: Array<{ start: number; end: number }> = [];
  let f = 0;
  while (f < frames) {
    if (!loud[f]) {
      f++;
      continue;
    }
    const start = f;
    while (f < frames && loud[f]) f++;
    const last = keep.at(-1);
    if (last && start - last.end < minSkip) last.end = f;
    else keep.push({ start, end: f });
  }
  const gap = options.jointGapFrames ?? JOINT_GAP_FRAMES;
  return gap > 0 ? { frames, keep, gap } : { frames, keep };
}

/** Options of {@link closeMicStretches}. */
export interface BleedGateOptions extends VadGateOptions {
  /**
   * A frame of a mic is bleed alone, and skipped, when it is no louder than this (dB) over what
   * a louder neighbour's level and the bleed learnt between them predict (try
   * {@link BLEED_GATE_MARGIN_DB}). Default null: such frames are kept.
   */
  bleedMarginDb?: number | null;
  /** The bleed between two mics: this quantile of their level difference where the other leads. Default 0.5. */
  bleedQuantile?: number;
}

/**
 * How far (dB) over its neighbours' predicted bleed a mic's frame must be for the VAD to see it
 * (the engine's default; a request's `vadBleedGate: false` turns the bleed gate off). Measured
 * on the eval's per-mic sets (`npm run eval -- --only diarization`, 27 Nov): the VAD sees
 * 30–65 % of the frames it sees behind the floor gate alone (88–99 %). Joined back to back
 * with skipped frames left at 0, one set (4 speakers, seed 24) went from 4.3 % to 5.6 % DER;
 * with {@link JOINT_GAP_FRAMES} of silence at each joint and the skipped frames credited
 * ({@link creditBleedFrames}), per-mic DER over all 42 sets moved by −1.7 … +0.8 points a set
 * (pooled −0.3 … +0.3 a group), the worst set 4.7 %, none over 5 %.
 */
export const BLEED_GATE_MARGIN_DB = 3;

/**
 * {@link gatedStretches} of close mics, all at once, and (with `bleedMarginDb`) a
 * mic's frames that are only its neighbours' bleed are skipped too: its person is silent there
 * while another talks, most of a conversation's frames on every mic but the talker's. Per-mic
 * detection gives a mic no frame its bleed explains, and the frames of a quieter voice under a
 * louder one (over the bleed) are kept.
 */
export function closeMicStretches(
  channels: readonly SampleInput[],
  frameSamples: number,
  options: BleedGateOptions = {},
): GatedStretches[] {
  const levels = channels.map((c) => frameLevelsDb(c, frameSamples));
  const wanted = levels.map((l) => aboveFloor(l, options));
  const margin = options.bleedMarginDb ?? null;
  if (margin === null || channels.length < 2) return levels.map((l, i) => stretchesOf(l, wanted[i]!, options));
  const bleed = learnLevelBleed(levels, wanted, options.bleedQuantile ?? 0.5);
  const frames = Math.min(...levels.map((x) => x.length));
  // Decided on the floor gate's frames for every mic before any is changed.
  const loud = wanted.map((w) => w.slice());
  const bleedOf = levels.map((l) => new Int8Array(l.length).fill(-1));
  levels.forEach((l, i) => {
    for (let t = 0; t < frames; t++) {
      if (!loud[i]![t]) continue;
      // The loudest neighbour whose bleed explains the frame.
      let by = -1;
      for (let j = 0; j < levels.length; j++) {
        if (j === i || !loud[j]![t] || levels[j]![t]! <= l[t]!) continue;
        if (l[t]! <= levels[j]![t]! + bleed[i]![j]! + margin && (by < 0 || levels[j]![t]! > levels[by]![t]!)) by = j;
      }
      if (by >= 0) {
        wanted[i]![t] = 0;
        bleedOf[i]![t] = by;
      }
    }
  });
  return levels.map((l, i) => {
    const gated = stretchesOf(l, wanted[i]!, options);
    spreadBleedOf(bleedOf[i]!, stretchesOf(l, loud[i]!, options), gated);
    return { ...gated, bleedOf: bleedOf[i]! };
  });
}

/** Per frame, 1 where the VAD runs (inside a kept stretch). */
function keptFrames(gated: GatedStretches): Uint8Array {
  const kept = new Uint8Array(gated.frames);
  for (const s of gated.keep) kept.fill(1, s.start, s.end);
  return kept;
}

/**
 * The frames the floor gate alone keeps but the bleed gate skips that are not bleed themselves
 * (the quiet pad around bleed, where the VAD's hangover of the neighbour's voice would still be
 * heard) take the neighbour of the nearest bleed frame in their stretch.
 */
function spreadBleedOf(bleedOf: Int8Array, floorGated: GatedStretches, gated: GatedStretches): void {
  const kept = keptFrames(gated);
  for (const s of floorGated.keep) {
    const nearest = new Int32Array(s.end - s.start).fill(-1);
    let last = -1;
    for (let t = s.start; t < s.end; t++) {
      if (bleedOf[t]! >= 0) last = t;
      nearest[t - s.start] = last;
    }
    last = -1;
    for (let t = s.end - 1; t >= s.start; t--) {
      if (bleedOf[t]! >= 0) last = t;
      const before = nearest[t - s.start]!;
      if (last >= 0 && (before < 0 || last - t < t - before)) nearest[t - s.start] = last;
    }
    for (let t = s.start; t < s.end; t++) {
      const from = nearest[t - s.start]!;
      if (!kept[t] && bleedOf[t]! < 0 && from >= 0) bleedOf[t] = bleedOf[from]!;
    }
  }
}

/**
 * Gives each frame the bleed gate skipped as a neighbour's bleed that neighbour's speech
 * probability (in place; `probs` spread over every frame, {@link spreadProbabilities}): the
 * VAD would have heard the neighbour's voice there too (run on such frames of three eval sets,
 * it agreed with the neighbour's on 97 % of them). Per-mic detection learns the bleed between
 * mics on such frames and rejects them as bleed, as it does without the gate; left at 0 they
 * moved what it learns: over 24 close-mic sets of the eval's settings (with the joint gap),
 * mean per-mic DER 2.46 % with the credit against 2.52 % without.
 */
export function creditBleedFrames(probs: readonly Float32Array[], gated: readonly GatedStretches[]): void {
  const kept = gated.map(keptFrames);
  gated.forEach((g, i) => {
    if (!g.bleedOf) return;
    for (let t = 0; t < g.frames; t++) {
      if (kept[i]![t] || g.bleedOf[t]! < 0) continue;
      // The neighbour may be bleed of a louder one in turn: the chain ends on a frame the VAD
      // heard (or one under its floor, 0), which this never overwrites; pad frames may point
      // back and forth, so it is followed no further than the mics go round.
      let j = g.bleedOf[t]!;
      for (let step = 1; step < gated.length && !kept[j]![t] && (gated[j]!.bleedOf?.[t] ?? -1) >= 0; step++)
        j = gated[j]!.bleedOf![t]!;
      probs[i]![t] = kept[j]![t] ? (probs[j]![t] ?? 0) : 0;
    }
  });
}

/**
 * bleed[i][j]: the `q` quantile of dB_i − dB_j over frames where j is over its floor and louder
 * than i (−60 with fewer than 10 such frames).
 */
function learnLevelBleed(levels: readonly Float32Array[], loud: readonly Uint8Array[], q: number): number[][] {
  return levels.map((li, i) =>
    levels.map((lj, j) => {
      if (i === j) return 0;
      const diffs: number[] = [];
      for (let t = 0; t < Math.min(li.length, lj.length); t++)
        if (loud[j]![t] && lj[t]! > li[t]!) diffs.push(li[t]! - lj[t]!);
      if (diffs.length < 10) return -60;
      diffs.sort((a, b) => a - b);
      return diffs[Math.min(diffs.length - 1, Math.floor(q * (diffs.length - 1)))]!;
    }),
  );
}

/**
 * The kept frames' samples joined into one signal (the VAD's input). With `rates`, the joined
 * signal resampled (`resample(joinStretches(…), from, to)`, the same samples), made piece by
 * piece without the joined copy at the first rate. A signal not in memory is read a piece at
 * a time.
 */
export function joinStretches(
  input: SampleInput,
  frameSamples: number,
  gated: GatedStretches,
  rates?: { from: number; to: number },
): Float32Array {
  const out = new Float32Array(joinedLength(frameSamples, gated, rates));
  let written = 0;
  joinStretchesTo(input, frameSamples, gated, rates, (part) => {
    out.set(part, written);
    written += part.length;
  });
  return out;
}

/** How many samples {@link joinStretches} gives. */
export function joinedLength(
  frameSamples: number,
  gated: GatedStretches,
  rates?: { from: number; to: number },
): number {
  let length = Math.max(0, gated.keep.length - 1) * (gated.gap ?? 0) * frameSamples;
  for (const s of gated.keep) length += (s.end - s.start) * frameSamples;
  return rates && rates.from !== rates.to ? resampledLength(length, rates.from / rates.to) : length;
}

/**
 * {@link joinStretches} handed to `write` in order, a piece at a time (to a file, say): the
 * joined signal is never held whole. `write` must copy a piece before it returns.
 */
export function joinStretchesTo(
  input: SampleInput,
  frameSamples: number,
  gated: GatedStretches,
  rates: { from: number; to: number } | undefined,
  write: (part: Float32Array) => void,
): void {
  const resampler = rates && rates.from !== rates.to ? new StreamingResampler(rates.from, rates.to) : null;
  const put = (part: Float32Array): void => write(resampler ? resampler.push(part) : part);
  const reader = asReader(input);
  const silence = new Float32Array((gated.gap ?? 0) * frameSamples);
  for (const [k, s] of gated.keep.entries()) {
    if (k > 0 && silence.length > 0) put(silence);
    const start = s.start * frameSamples;
    const size = (s.end - s.start) * frameSamples;
    let read = 0;
    for (const [, piece] of pieces(reader, READ_FRAMES * frameSamples, start, start + size)) {
      put(piece);
      read += piece.length;
    }
    // A stretch cut short by the signal's end is joined with zeros.
    if (read < size) put(new Float32Array(size - read));
  }
  if (resampler) write(resampler.flush());
}

/** How many samples {@link StreamingResampler} gives for `length` input samples at `step` input samples per output one. */
function resampledLength(length: number, step: number): number {
  return length === 0 ? 0 : Math.floor((length - 1) / step + 1e-9) + 1;
}

/** Probabilities of the joined signal spread back over every frame; 0 where the gate skipped. */
export function spreadProbabilities(joined: Float32Array, gated: GatedStretches): Float32Array {
  const out = new Float32Array(gated.frames);
  let at = 0;
  for (const s of gated.keep) {
    out.set(joined.subarray(at, at + (s.end - s.start)), s.start);
    at += s.end - s.start + (gated.gap ?? 0);
  }
  return out;
}

/**
 * The probabilities of every gated channel spread back ({@link spreadProbabilities}), the
 * frames skipped as a neighbour's bleed credited ({@link creditBleedFrames}) unless `credit`
 * is false: what per-mic detection takes.
 */
export function spreadGated(
  joined: readonly Float32Array[],
  gated: readonly GatedStretches[],
  credit = true,
): Float32Array[] {
  const out = joined.map((p, i) => spreadProbabilities(p, gated[i]!));
  if (credit) creditBleedFrames(out, gated);
  return out;
}
