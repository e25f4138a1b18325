/**
 * Per-mic diarization: one channel per person (lapel mics, or cameras each close to one
 * person). A channel's speech is its person's only when it is not just the bleed of a louder
 * neighbour; two people talking at once both count.
 *
 * @module
 */
import { VAD_FRAME_MS, type SpeechSegment } from '../speech/vad.ts';
import { LowCutFilter } from '../signal/signal-filter.ts';
import { arrayReader, type SampleReader } from '../signal/sample-reader.ts';
import { FrameLevelMeter, noiseFloorDb, refineSpeechEdges, type EdgeOptions } from './edges.ts';
import { resultFromActivity, type DiarizationResult, type TurnSmoothing } from './result.ts';
import { learnCrosstalk } from './crosstalk.ts';
import { FINE_FRAME_MS, residualLevelsSplit, type ResidualHelper } from './residual-levels.ts';
import { isLaughterSegment } from './laughter.ts';

/** Options of {@link diarizePerMic}. */
export interface PerMicOptions extends TurnSmoothing {
  /** ms per VAD probability. Default 32 (Silero at 16 kHz). */
  vadFrameMs?: number;
  /** Speech probability above which a channel has voice. Default 0.5. */
  vadThreshold?: number;
  /**
   * How far above the bleed predicted from every other channel a channel must be to count
   * as its own speech, in dB. Default 6.
   */
  bleedMarginDb?: number;
  /** Half-width of the majority vote on "louder than bleed", in frames. Default 2 (5 frames). */
  ownershipWindowFrames?: number;
  /**
   * A channel's turn edges are held to a floor at least this quantile of its 10 ms levels over
   * its own turns (the VAD speech it owns), not only to the recording's floor: the noise that
   * comes and goes with the voice (a reader's own room tone, a remote guest's gated track, a
   * fan the mic hears only while its owner leans in) is not speech. It counts when it is at
   * least 3 dB above the recording's floor. 0 uses the recording's floor alone. Default 0.03.
   */
  voiceFloorQuantile?: number;
  /**
   * A neighbour's bleed is taken to die away at this rate after its level falls, dB per
   * second, not at once: across a room a voice reaches the other mics with a reverberant
   * tail that outlasts it on its own mic. 0 compares frame by frame. Default 200 (60 dB in
   * 0.3 s, a damped room; a livelier room's tail is then partly heard as bleed, a deader one
   * loses nothing).
   */
  bleedDecayDbPerSec?: number;
  /** Moves turn edges onto the channel's speech/noise boundary at 10 ms (edges.ts). Default true. */
  refineEdges?: boolean;
  /**
   * Edge options; per-mic's `floorMarginDb` defaults to 7 dB, the voice 6 dB over the noise,
   * `maxShiftMs` to 700 and `reachPastQuietEdge` to true.
   */
  edges?: EdgeOptions;
  /**
   * Cancels each channel's crosstalk (crosstalk.ts) and lets a frame the bleed test rejects
   * count when what is left of the channel is still a voice over the bleed left in it: the
   * quieter voice of an overlap. A pair whose bleed cancelling does not reduce by 6 dB (a
   * room's long tail) keeps the plain test. Default true.
   */
  cancelCrosstalk?: boolean;
  /**
   * Drops a channel's turns that are laughter (laughter.ts: three or more alike syllables at
   * a steady rhythm), up to `LAUGHTER_MAX_MS` (laughter.ts) long: the contract's speaker detection
   * hears no speech in laughter. Default true.
   */
  dropLaughter?: boolean;
  /**
   * The channels may be overwritten: each becomes its own low-cut copy, in place, so an hour
   * of audio is not held twice (the caller's arrays are changed; the result is the same).
   * Default false.
   */
  overwriteChannels?: boolean;
  /**
   * Another thread that measures the second half of the crosstalk residuals while this one
   * measures the first (residual-levels.ts): the same result, in about half the time on two
   * cores. Default: none, all on this thread.
   */
  residualHelper?: ResidualHelper;
}

/** Frames below this level (dB) are digital silence. */
const SILENT_DB = -90;

/**
 * A neighbour whose held level is less than this far over its noise floor is silent: the
 * bleed it would put on a channel is then noise on noise. Where every mic is at its floor (the
 * VAD's hangover after a word), a neighbour whose bleed onto the channel was learnt as strong
 * (−3 dB on one fixture mic) otherwise "explained" the channel's own floor, and a 200 ms word
 * lost its hangover frames and fell under the shortest turn.
 */
const SILENT_NEIGHBOUR_DB = 3;
/**
 * A channel's voice floor counts only this far (dB) above its recording's floor: closer, it is
 * the same noise read on quieter frames, not a background that comes with the voice.
 */
const VOICE_FLOOR_ABOVE_DB = 3;
/**
 * An edge takes a 10 ms frame only when it stands this far over the floor, dB. The
 * references mark a frame when the voice itself is 6 dB over the noise it is recorded with
 * (tools/fixtures/speech.ts); what a mic measures is voice plus noise, which is then
 * 10·log10(1 + 10^0.6) ≈ 7 dB over the noise alone.
 */
const EDGE_MARGIN_DB = 7;
/**
 * How far a channel's edge may move from the VAD's, ms (edges.ts defaults to 500, which
 * single-mix keeps). On a close mic Silero can stay under 0.4 through a soft onset that starts
 * 600 ms before the word it wakes on (a breath and a soft syllable 5–15 dB over the floor);
 * the edge still stops at the first pause of 250 ms, at a loud burst beyond a pause and at the
 * bleed, so reaching further took in no noise (decision 003, session 16).
 */
const EDGE_REACH_MS = 700;
/**
 * A channel learns its crosstalk on frames it does not own, while a neighbour owns them, and
 * where its level is within this many dB of the bleed predicted on it: bleed alone.
 */
const CROSSTALK_LEARN_DB = 3;
/**
 * The bleed left after cancelling is learnt on frames where a neighbour's bleed stood this
 * far (dB) over the channel's floor before cancelling (less and the residual is the floor),
 * as this quantile of residual − neighbour's level.
 */
const RESIDUAL_BLEED_ABOVE_DB = 15;
const RESIDUAL_BLEED_QUANTILE = 0.8;
/** The residual of a pair is trusted only where cancelling took this many dB off its bleed. */
const CROSSTALK_DEPTH_DB = 6;
/** A residual frame is a voice only this far (dB) over the residual's noise floor. */
const RESIDUAL_FLOOR_DB = 6;

/**
 * Per frame, whether the channel was recording: digital silence before its first sound or
 * after its last is a source that started late or stopped early (the diarizing stage puts
 * every source on the reference timeline and leaves what it did not record at zero).
 */
function recordingSpan(levels: Float64Array): Uint8Array {
  const out = new Uint8Array(levels.length);
  let first = 0;
  while (first < levels.length && levels[first]! < SILENT_DB) first++;
  let last = levels.length - 1;
  while (last >= first && levels[last]! < SILENT_DB) last--;
  out.fill(1, first, last + 1);
  return out;
}

/**
 * The `q` quantile of a channel's 10 ms `levels` over its turns' frames that it owns
 * (`allowed`), or −∞ with less than a second of them or `q` 0: the quietest of what the VAD
 * calls its person's speech is the noise that comes with their voice.
 */
function voiceFloorDb(levels: Float64Array, turns: readonly SpeechSegment[], allowed: Uint8Array, q: number): number {
  if (q <= 0) return -Infinity;
  const values: number[] = [];
  for (const g of turns) {
    for (let t = Math.max(0, Math.round(g.startMs / 10)); t < Math.min(levels.length, Math.round(g.endMs / 10)); t++) {
      if (allowed[t] && levels[t]! > SILENT_DB) values.push(levels[t]!);
    }
  }
  return values.length >= 100 ? quantile(values, q) : -Infinity;
}

/** Levels on one time grid (the VAD's, or 10 ms for the edges). */
interface Grid {
  levels: Float64Array[];
  /** The levels of what crosstalk cancellation leaves of each channel, when it ran. */
  residual?: Float64Array[] | undefined;
  /** What each channel's bleed may put on the others: its level held as it falls (heldLevels). */
  held: Float64Array[];
  /** Whether each channel is recording (recordingSpan). */
  live: Uint8Array[];
  /** Each channel's noise floor (noiseFloorDb). */
  floors: number[];
}

/**
 * Each channel's level held as it falls, less `decayDbPerSec`: across a room a voice reaches
 * the other mics with a reverberant tail that outlasts it on its own mic. 0 holds nothing.
 */
function heldLevels(levels: Float64Array[], frameMs: number, decayDbPerSec: number): Float64Array[] {
  if (decayDbPerSec <= 0) return levels;
  const step = (decayDbPerSec * frameMs) / 1000;
  return levels.map((l) => {
    const held = new Float64Array(l.length);
    let h = -Infinity;
    for (let t = 0; t < l.length; t++) h = held[t] = Math.max(l[t]!, h - step);
    return held;
  });
}

/** What crosstalk cancellation leaves of each channel, and how to read it. */
interface Crosstalk {
  /** The residuals' levels on the VAD's grid. */
  levels: Float64Array[];
  /** Their levels at 10 ms, for the edges. */
  fineLevels: Float64Array[];
  /**
   * bleed[i][j]: the residual's dB less neighbour j's held level where only j talks, or null
   * where cancelling took less than CROSSTALK_DEPTH_DB off the bleed (the plain test stands).
   */
  bleed: (number | null)[][];
  /** Per channel: the residual level a voice needs, dB (its floor + RESIDUAL_FLOOR_DB). */
  voiceLevel: number[];
}

/**
 * Cancels each channel's crosstalk, learnt where the channel carries only bleed
 * (CROSSTALK_LEARN_DB), and measures the bleed the residual still carries.
 *
 * @param filtered the channels above 80 Hz
 * @param levels, held, live, bleed the grid and the bleed learnt on the channels themselves
 * @param own per channel and frame, whether the plain bleed test gives it the frame
 * @param helper another thread for half the residual pass (PerMicOptions.residualHelper)
 */
function crosstalkResidual(
  filtered: readonly SampleReader[],
  sampleRate: number,
  frameMs: number,
  grid: Grid,
  bleed: readonly number[][],
  own: readonly Uint8Array[],
  helper: ResidualHelper | undefined,
): Crosstalk {
  const { levels, held, live } = grid;
  const n = filtered.length;
  const frames = own[0]!.length;
  /** The loudest bleed the live neighbours would put on channel i in frame t, dB. */
  const predicted = (i: number, t: number): number => {
    let p = -Infinity;
    for (let j = 0; j < n; j++) if (j !== i && live[j]![t]) p = Math.max(p, held[j]![t]! + bleed[i]![j]!);
    return p;
  };
  const learn = levels.map((l, i) =>
    Uint8Array.from({ length: frames }, (_, t) => {
      if (own[i]![t] || !live[i]![t]) return 0;
      const talker = own.some((o, j) => j !== i && live[j]![t] === 1 && o[t] === 1);
      return talker && l[t]! < predicted(i, t) + CROSSTALK_LEARN_DB ? 1 : 0;
    }),
  );
  // The residuals' levels are measured as they come: an hour of them is never held.
  const weights = learnCrosstalk(filtered, Math.round((sampleRate * frameMs) / 1000), learn);
  const measured = residualLevelsSplit(filtered, weights, { sampleRate, frameMs, frames }, helper);
  const residual = measured.coarse;
  const left = levels.map((l, i) => {
    const floor = noiseFloorDb(l);
    return levels.map((_, j) => {
      if (i === j) return null;
      // Frames of j's bleed alone on i (j's tail included: its level held as it falls).
      const diffs: number[] = [];
      for (let t = 0; t < frames; t++) {
        const b = held[j]![t]! + bleed[i]![j]!;
        if (
          own[i]![t] ||
          !live[i]![t] ||
          !live[j]![t] ||
          b < floor + RESIDUAL_BLEED_ABOVE_DB ||
          l[t]! >= b + CROSSTALK_LEARN_DB
        )
          continue;
        diffs.push(residual[i]![t]! - held[j]![t]!);
      }
      if (diffs.length < 10) return null;
      const after = quantile(diffs, RESIDUAL_BLEED_QUANTILE);
      return bleed[i]![j]! - after >= CROSSTALK_DEPTH_DB ? after : null;
    });
  });
  const fineLevels = measured.fine;
  const voiceLevel = fineLevels.map((l) => noiseFloorDb(l) + RESIDUAL_FLOOR_DB);
  return { levels: residual, fineLevels, bleed: left, voiceLevel };
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))))]!;
}

/**
 * Attributes speech to the channel it belongs to.
 *
 * For each ordered pair (i, j) the bleed of j into i is learnt from the file: the level
 * difference dB_i − dB_j over frames where j talks and clearly leads (a low quantile, so
 * frames where i talks over j do not inflate it). In each frame channel i speaks when its
 * VAD fires and its level exceeds, by `bleedMarginDb`, the bleed every other channel would
 * put on it (a neighbour's level held for a moment as it falls, for the room's echo of it).
 * The loudest channel needs only its VAD. A frame that fails this may still count on what
 * crosstalk cancellation leaves of the channel (`cancelCrosstalk`, crosstalkResidual).
 *
 * @param channels mono signals, same length and time base, one per person
 * @param vad speech probability per VAD frame, one array per channel
 * @example
 * const r = diarizePerMic([micA, micB], 16000, [vadA, vadB]);
 * if (r.kind === 'speakers') console.log(r.speakers, r.turns);
 */
export function diarizePerMic(
  channels: readonly Float32Array[],
  sampleRate: number,
  vad: readonly Float32Array[],
  options: PerMicOptions = {},
): DiarizationResult {
  checkChannels(channels.length, vad.length);
  // Above 80 Hz, filtered once: in place (overwriteChannels) or into copies.
  const filtered = channels.map((c) => (options.overwriteChannels ? c : new Float32Array(c.length)));
  const levels = lowCutChannels(
    channels.map(arrayReader),
    sampleRate,
    vad,
    (i, at, block) => filtered[i]!.set(block, at),
    options,
  );
  return diarizeFiltered(
    filtered.map((c, i) => ({ samples: arrayReader(c), levels: levels[i]! })),
    sampleRate,
    vad,
    options,
  );
}

function checkChannels(channels: number, vads: number): void {
  if (channels === 0) throw new RangeError('channels must hold at least one signal');
  if (vads !== channels) throw new RangeError(`vad has ${vads} arrays for ${channels} channels`);
}

/** A channel's levels above 80 Hz, dB: on the VAD's grid and at 10 ms (the edges'). */
export interface ChannelLevels {
  coarse: Float64Array;
  fine: Float64Array;
}

/** A channel through the low cut, read by range (in memory, or a file), with its levels ({@link lowCutChannels}). */
export interface FilteredChannel {
  samples: SampleReader;
  levels: ChannelLevels;
}

/** Samples {@link lowCutChannels} filters and measures at once (about a minute at 16 kHz). */
const FILTER_BLOCK = 1 << 20;

/**
 * Each channel through the 80 Hz low cut (lowCut's samples, to the bit) in one ordered pass,
 * a block at a time, each block handed to `write` (which keeps it: in memory, or back in the
 * channel's file) and measured on the VAD's grid and at 10 ms as it goes: only a block is held.
 *
 * @example
 * const levels = lowCutChannels(files, 16000, probs, (i, at, block) => files[i].write(at, block));
 * diarizeFiltered(files.map((samples, i) => ({ samples, levels: levels[i] })), 16000, probs);
 */
export function lowCutChannels(
  channels: readonly SampleReader[],
  sampleRate: number,
  vad: readonly Float32Array[],
  write: (channel: number, at: number, block: Float32Array) => void,
  options: Pick<PerMicOptions, 'vadFrameMs'> = {},
): ChannelLevels[] {
  const frameMs = options.vadFrameMs ?? VAD_FRAME_MS;
  const frames = Math.min(...vad.map((v) => v.length));
  const out = new Float32Array(FILTER_BLOCK);
  return channels.map((channel, i) => {
    const filter = new LowCutFilter(sampleRate);
    const coarse = new FrameLevelMeter(sampleRate, frameMs, frames);
    const fine = new FrameLevelMeter(sampleRate, FINE_FRAME_MS);
    for (let at = 0; at < channel.length; at += FILTER_BLOCK) {
      const input = channel.read(at, at + FILTER_BLOCK);
      const block = filter.push(input, out.subarray(0, input.length));
      coarse.push(block);
      fine.push(block);
      write(i, at, block);
    }
    return { coarse: coarse.levels(), fine: fine.levels() };
  });
}

/**
 * {@link diarizePerMic} of channels already through the low cut ({@link lowCutChannels}), read
 * by range: an hour of them can stay in files, only a piece read at a time. The same result.
 */
export function diarizeFiltered(
  channels: readonly FilteredChannel[],
  sampleRate: number,
  vad: readonly Float32Array[],
  options: Omit<PerMicOptions, 'overwriteChannels'> = {},
): DiarizationResult {
  checkChannels(channels.length, vad.length);
  const frameMs = options.vadFrameMs ?? VAD_FRAME_MS;
  const thr = options.vadThreshold ?? 0.5;
  const frames = Math.min(...vad.map((v) => v.length));
  const n = channels.length;
  const filtered = channels.map((c) => c.samples);
  const level = channels.map((c) => c.levels.coarse);
  const voiced = vad.map((v) => Uint8Array.from({ length: frames }, (_, t) => (v[t]! >= thr ? 1 : 0)));
  const live = level.map(recordingSpan);
  const bleed = learnBleed(level, voiced, live, frames);
  const decay = options.bleedDecayDbPerSec ?? 200;
  const coarse: Grid = {
    levels: level,
    held: heldLevels(level, frameMs, decay),
    live,
    floors: level.map(noiseFloorDb),
  };
  const test = new OwnershipTest(bleed, options.bleedMarginDb ?? 6);
  const ownLevel = ownSpeechLevels(test, coarse, voiced, frames);
  test.aloneFloor = aloneFloors(ownLevel, bleed);
  const own = channels.map(() => new Uint8Array(frames));
  fillOwnership(test, coarse, own);
  if (n > 1 && options.cancelCrosstalk !== false) {
    test.crosstalk = crosstalkResidual(filtered, sampleRate, frameMs, coarse, bleed, own, options.residualHelper);
    coarse.residual = test.crosstalk.levels;
    fillOwnership(test, coarse, own);
  }
  const heard = creditAbsentNeighbours(test, coarse, voiced, own, ownLevel);
  const activity = smoothOwnership(own, heard, voiced, options.ownershipWindowFrames ?? 2);
  // Measured on assembled conversations: bridging 300 ms lets bleed bursts chain into false
  // turns with four mics; 150 ms does not.
  const smoothing = {
    minPauseMs: options.minPauseMs ?? 150,
    minTurnMs: options.minTurnMs ?? 250,
    padMs: options.padMs ?? 0,
  };
  const notLaughter = (i: number, g: SpeechSegment): boolean =>
    options.dropLaughter === false || !isLaughterSegment(filtered[i]!, sampleRate, g);
  if (options.refineEdges === false) {
    return resultFromActivity(
      activity,
      frameMs,
      smoothing,
      channels.map((_, i) => i),
      (i, segments) => segments.filter((g) => notLaughter(i, g)),
    );
  }
  return resultFromActivity(
    activity,
    frameMs,
    smoothing,
    channels.map((_, i) => i),
    edgeRefiner(
      channels.map((c) => c.levels.fine),
      decay,
      test,
      options,
      notLaughter,
    ),
  );
}

/** bleed[i][j]: expected dB_i − dB_j when only j talks (a low quantile over frames where j leads). */
function learnBleed(
  level: readonly Float64Array[],
  voiced: readonly Uint8Array[],
  live: readonly Uint8Array[],
  frames: number,
): number[][] {
  const n = level.length;
  const bleed: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row: number[] = [];
    for (let j = 0; j < n; j++) {
      if (i === j) {
        row.push(0);
        continue;
      }
      const diffs: number[] = [];
      for (let t = 0; t < frames; t++) {
        if (!voiced[j]![t] || !live[i]![t] || !live[j]![t]) continue;
        const d = level[i]![t]! - level[j]![t]!;
        if (d < 0) diffs.push(d);
      }
      // Without frames where j leads, nothing is known: assume no bleed (−∞ would do too).
      row.push(diffs.length >= 10 ? quantile(diffs, 0.3) : -60);
    }
    bleed.push(row);
  }
  return bleed;
}

/**
 * The bleed test: whether a channel's level in a frame is its own speech or what its
 * neighbours' bleed explains, on any grid, on the channel's level or (once crosstalk
 * cancellation ran) on what cancelling leaves of it.
 */
class OwnershipTest {
  /** Per channel: the level a frame needs while a neighbour is not recording (aloneFloors). */
  aloneFloor: number[] = [];
  /** What crosstalk cancellation left, once it ran. */
  crosstalk: Crosstalk | undefined;
  constructor(
    readonly bleed: readonly number[][],
    readonly margin: number,
  ) {}

  /** Neighbour j is at its noise floor in frame t: it says nothing, so its bleed explains nothing. */
  silent(g: Grid, j: number, t: number): boolean {
    return g.held[j]![t]! < g.floors[j]! + SILENT_NEIGHBOUR_DB;
  }

  /** Channel i's level in frame t is no more than the bleed of j onto it (plus the margin) would explain. */
  belowBleed(g: Grid, i: number, j: number, t: number): boolean {
    return !this.silent(g, j, t) && g.levels[i]![t]! < g.held[j]![t]! + this.bleed[i]![j]! + this.margin;
  }

  /**
   * Neighbour j's bleed explains channel i in frame t: on the channel's level, or with
   * `residual` on what cancelling leaves of it, for the pairs cancelling reduced.
   */
  explainedBy(g: Grid, i: number, j: number, t: number, residual: boolean): boolean {
    const left = residual ? (this.crosstalk?.bleed[i]![j] ?? null) : null;
    return left === null
      ? this.belowBleed(g, i, j, t)
      : !this.silent(g, j, t) && g.residual![i]![t]! < g.held[j]![t]! + left + this.margin;
  }

  /** No live neighbour's bleed explains channel i in frame t. */
  ownsBy(g: Grid, i: number, t: number, residual: boolean): boolean {
    let missing = false;
    for (let j = 0; j < this.bleed.length; j++) {
      if (j === i) continue;
      if (!g.live[j]![t]) missing = true;
      else if (this.explainedBy(g, i, j, t, residual)) return false;
    }
    return !missing || g.levels[i]![t]! >= this.aloneFloor[i]!;
  }

  /** Channel i owns frame t: it records, and its level, or what cancelling leaves of it, beats the bleed. */
  ownsFrame(g: Grid, i: number, t: number): boolean {
    if (!g.live[i]![t]) return false;
    if (this.ownsBy(g, i, t, false)) return true;
    // What cancelling leaves: a voice, over the bleed left in it.
    const r = g.residual?.[i]![t];
    if (!this.crosstalk || r === undefined || r < this.crosstalk.voiceLevel[i]!) return false;
    return this.ownsBy(g, i, t, true);
  }
}

/**
 * Each channel's own speech level (median over voiced frames louder than every neighbour's
 * bleed, every neighbour recording), NaN with too few such frames.
 */
function ownSpeechLevels(test: OwnershipTest, coarse: Grid, voiced: readonly Uint8Array[], frames: number): number[] {
  const { levels, live } = coarse;
  const n = levels.length;
  return levels.map((l, i) => {
    const values: number[] = [];
    for (let t = 0; t < frames; t++) {
      if (!voiced[i]![t]) continue;
      let ok = true;
      for (let j = 0; j < n && ok; j++) if (j !== i && (!live[j]![t] || test.belowBleed(coarse, i, j, t))) ok = false;
      if (ok) values.push(l[t]!);
    }
    return values.length >= 10 ? quantile(values, 0.5) : NaN;
  });
}

/**
 * Louder than every neighbour's bleed. A neighbour that is not recording (digital silence
 * before its start or after its end) cannot be compared: then the frame must also be
 * nearer the channel's own speech level than the loudest bleed it usually gets.
 */
function aloneFloors(ownLevel: readonly number[], bleed: readonly number[][]): number[] {
  const n = ownLevel.length;
  return ownLevel.map((mine, i) => {
    let loudestBleed = -Infinity;
    for (let j = 0; j < n; j++)
      if (j !== i && Number.isFinite(ownLevel[j]!)) loudestBleed = Math.max(loudestBleed, ownLevel[j]! + bleed[i]![j]!);
    return Number.isFinite(mine) && Number.isFinite(loudestBleed) ? (mine + loudestBleed) / 2 : -Infinity;
  });
}

/** own[i][t] = 1 where channel i owns frame t of the grid. */
function fillOwnership(test: OwnershipTest, g: Grid, own: Uint8Array[]): void {
  const frames = own[0]!.length;
  const n = own.length;
  for (let t = 0; t < frames; t++) for (let i = 0; i < n; i++) own[i]![t] = test.ownsFrame(g, i, t) ? 1 : 0;
}

/**
 * Speech a live channel hears at bleed level while a neighbour is not recording is most
 * likely that neighbour's, unless a recording neighbour owns the frame and explains it:
 * heard[j][t] = 1 where such speech is credited to the absent channel j.
 */
function creditAbsentNeighbours(
  test: OwnershipTest,
  coarse: Grid,
  voiced: readonly Uint8Array[],
  own: readonly Uint8Array[],
  ownLevel: readonly number[],
): Uint8Array[] {
  const { levels: level, live } = coarse;
  const { bleed } = test;
  const n = own.length;
  const frames = own[0]!.length;
  const explained = (i: number, t: number): boolean => {
    for (let k = 0; k < n; k++) if (k !== i && own[k]![t] && test.belowBleed(coarse, i, k, t)) return true;
    return false;
  };
  const heard = own.map(() => new Uint8Array(frames));
  const indices = own.map((_, j) => j);
  for (let i = 0; i < n; i++) {
    const unexplained = (t: number): boolean =>
      voiced[i]![t] === 1 && live[i]![t] === 1 && !own[i]![t] && !explained(i, t);
    for (let t = 0; t < frames;) {
      const candidates = unexplained(t)
        ? indices.filter((j) => j !== i && !live[j]![t] && Number.isFinite(ownLevel[j]!))
        : [];
      if (candidates.length === 0) {
        t++;
        continue;
      }
      // One run of such frames goes to one absent channel: the one whose own speech the
      // run leads into or follows from without a pause (a mic started or stopped while
      // its speaker talked), else the one whose usual bleed onto this channel is nearest
      // the run's level.
      let end = t;
      while (end < frames && unexplained(end) && candidates.every((j) => !live[j]![end])) end++;
      let from = t;
      while (from > 0 && voiced[i]![from - 1]) from--;
      let to = end;
      while (to < frames && voiced[i]![to]) to++;
      let best = candidates.find((j) => own[j]!.subarray(from, to).includes(1)) ?? -1;
      if (best < 0) {
        let bestGap = Infinity;
        for (const j of candidates) {
          let gap = 0;
          for (let k = t; k < end; k++) gap += Math.abs(level[i]![k]! - (ownLevel[j]! + bleed[i]![j]!));
          if (gap < bestGap) {
            bestGap = gap;
            best = j;
          }
        }
      }
      heard[best]!.fill(1, t, end);
      t = end;
    }
  }
  return heard;
}

/**
 * Levels flicker frame to frame; a majority over ~5 frames (160 ms) keeps bleed bursts
 * from being bridged into long false turns by the pause smoothing that follows. Frames
 * credited from an absent neighbour (`heard`) count as they are.
 */
function smoothOwnership(
  own: readonly Uint8Array[],
  heard: readonly Uint8Array[],
  voiced: readonly Uint8Array[],
  half: number,
): Uint8Array[] {
  const frames = own[0]!.length;
  return own.map((o, i) => {
    const a = new Uint8Array(frames);
    for (let t = 0; t < frames; t++) {
      if (heard[i]![t]) {
        a[t] = 1;
        continue;
      }
      if (!voiced[i]![t]) continue;
      let votes = 0;
      let count = 0;
      for (let k = Math.max(0, t - half); k <= Math.min(frames - 1, t + half); k++) {
        votes += o[k]!;
        count++;
      }
      a[t] = 2 * votes > count ? 1 : 0;
    }
    return a;
  });
}

/**
 * Edges at 10 ms on each channel's own signal, where it is louder than the bleed the
 * others would put on it (the same test as on the VAD grid, at the finer grid): the
 * per-channel segment refinement resultFromActivity applies.
 */
function edgeRefiner(
  fine: Float64Array[],
  decay: number,
  test: OwnershipTest,
  options: PerMicOptions,
  notLaughter: (i: number, g: SpeechSegment) => boolean,
): (i: number, segments: SpeechSegment[]) => SpeechSegment[] {
  const T10 = Math.min(...fine.map((l) => l.length));
  const fineLive = fine.map(recordingSpan);
  const fineGrid: Grid = {
    levels: fine,
    residual: test.crosstalk?.fineLevels,
    held: heldLevels(fine, 10, decay),
    live: fineLive,
    floors: fine.map(noiseFloorDb),
  };
  return (i: number, segments: SpeechSegment[]): SpeechSegment[] => {
    const allowed = new Uint8Array(T10);
    for (let t = 0; t < T10; t++) allowed[t] = test.ownsFrame(fineGrid, i, t) ? 1 : 0;
    // Turns credited while the channel was not recording have no signal of their own to refine.
    const inSpan = (g: SpeechSegment): boolean => {
      const a = Math.max(0, Math.floor(g.startMs / 10));
      const b = Math.min(T10 - 1, Math.ceil(g.endMs / 10) - 1);
      return b >= a && fineLive[i]![a] === 1 && fineLive[i]![b] === 1;
    };
    const kept = segments.filter((g) => !inSpan(g));
    const own = segments.filter(inSpan);
    // One channel is one speaker: its pauses under 250 ms are bridged, as in the references.
    const edges = {
      bridgeMs: 250,
      floorMarginDb: EDGE_MARGIN_DB,
      maxShiftMs: EDGE_REACH_MS,
      reachPastQuietEdge: true,
      ...options.edges,
    };
    const recording = fineGrid.floors[i]!;
    const voice = voiceFloorDb(fine[i]!, own, allowed, options.voiceFloorQuantile ?? 0.03);
    const floor = voice >= recording + VOICE_FLOOR_ABOVE_DB ? voice : recording;
    const refined = refineSpeechEdges(own, fine[i]!, floor, edges, allowed).filter((g) => notLaughter(i, g));
    return [...refined, ...kept].sort((x, y) => x.startMs - y.startMs);
  };
}
