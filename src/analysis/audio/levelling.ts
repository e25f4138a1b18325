/**
 * Voice levelling and the loudness target of a render, planned before a sample is mixed. Pure.
 *
 * One pass over the render's sources ({@link LevellingAnalysis}) keeps, for every 100 ms block
 * of the output, the K-weighted energy of each source and of each pair of sources (their
 * cross term): that is enough to know the BS.1770 loudness of any mix of them with gains that
 * hold over a block, so the mix's loudness after levelling is known without mixing it.
 * {@link planLevelling} then sets:
 * - **a static gain per speaker**, from that speaker's speech on their own source (per-mic:
 *   speaker s's mic during s's turns; single mix: the one track during s's turns), so every
 *   speaker's speech sits at the same loudness;
 * - **a gentle ride** on top, which only moves while that speaker speaks (a block of their own
 *   turn above their pauses), slowly (seconds), by half the distance to their own level and at
 *   most ±{@link DEFAULT_RIDE}.rangeDb, and holds through other people's turns, so the bleed of
 *   others into a mic never makes it pump;
 * - **a master gain** that brings the levelled mix to the target integrated loudness (a
 *   true-peak limiter, src/analysis/audio/limiter.ts, then holds the peaks under the ceiling).
 *
 * @module
 */
import { expectedLimiterFactors } from './limiter.ts';
import { gatedLoudness, kWeightingFilters, lufsToEnergy } from './loudness.ts';

/** Output blocks of the analysis, seconds (BS.1770's 100 ms step). */
export const LEVELLING_BLOCK_SEC = 0.1;

/** How the ride moves (see the module doc). */
export interface RideSettings {
  /** Most the ride moves away from the speaker's static gain, dB either way. */
  rangeDb: number;
  /** Fraction of the distance between the recent level and the speaker's own level it makes up (0‥1). */
  ratio: number;
  /** Time constant of the recent level (an energy average over speech blocks), s. */
  windowSec: number;
  /** Time constant of the gain going down, s. */
  attackSec: number;
  /** Time constant of the gain going up, s. */
  releaseSec: number;
  /** A block counts as speech for the ride when it is at most this far below the speaker's level, LU. */
  speechGateLu: number;
}

/** The ride's defaults: gentle, slow, ±6 dB. */
export const DEFAULT_RIDE: Readonly<RideSettings> = {
  rangeDb: 6,
  ratio: 0.5,
  windowSec: 2,
  attackSec: 0.8,
  releaseSec: 2,
  speechGateLu: 15,
};

/** The static gains stay within this, dB: a speaker who is that far off is a wrong turn, not a soft voice. */
export const MAX_STATIC_GAIN_DB = 20;
/** Speech (gated 400 ms blocks) a speaker needs on their source to be levelled, s. */
export const MIN_SPEECH_SEC = 2;

/**
 * Streaming per-block energies of several sources and of their pairs, K-weighted (BS.1770),
 * channels summed with G = 1. Push each source's samples for the same output span.
 *
 * @example
 * const a = new LevellingAnalysis(2, 1, 48000);
 * a.push([[micA], [micB]]); // planar: source → channel → samples
 * a.sourceEnergies(0); // Float64Array of 100 ms energies of mic A
 */
export class LevellingAnalysis {
  readonly sources: number;
  readonly channels: number;
  readonly blockSamples: number;
  /** Pairs (i ≤ j) in row order: index of (i, j). */
  private readonly pairs: number;
  private blocks: Float64Array;
  /** Per block and source: the highest sample (unweighted). */
  private peaks: Float64Array;
  private readonly currentPeaks: Float64Array;
  private blockCount = 0;
  private filled = 0;
  private readonly current: Float64Array;
  private readonly filters: ReturnType<typeof kWeightingFilters>;
  /** Per source and channel: shelf x₁, x₂, y₁, y₂, high-pass z₁, z₂. */
  private readonly state: Float64Array[];
  private weighted: Float64Array[] = [];

  constructor(sources: number, channels: number, sampleRate: number) {
    this.sources = sources;
    this.channels = channels;
    this.blockSamples = Math.round(sampleRate * LEVELLING_BLOCK_SEC);
    this.pairs = (sources * (sources + 1)) / 2;
    this.blocks = new Float64Array(this.pairs * 1024);
    this.current = new Float64Array(this.pairs);
    this.peaks = new Float64Array(sources * 1024);
    this.currentPeaks = new Float64Array(sources);
    this.filters = kWeightingFilters(sampleRate);
    this.state = Array.from({ length: sources * channels }, () => new Float64Array(6));
  }

  /** Index of the pair (i, j), i ≤ j, in a block's row. */
  pairIndex(i: number, j: number): number {
    const [a, b] = i <= j ? [i, j] : [j, i];
    return a * this.sources - (a * (a - 1)) / 2 + (b - a);
  }

  /** The next samples of every source: `planes[source][channel]`, all the same length. */
  push(planes: readonly (readonly Float32Array[])[]): void {
    const n = planes[0]?.[0]?.length ?? 0;
    if (this.weighted.length === 0 || this.weighted[0]!.length < n)
      this.weighted = Array.from({ length: this.sources * this.channels }, () => new Float64Array(n));
    for (let s = 0; s < this.sources; s++)
      for (let c = 0; c < this.channels; c++)
        this.kWeight(planes[s]![c]!, this.state[s * this.channels + c]!, this.weighted[s * this.channels + c]!);
    let at = 0;
    while (at < n) {
      const span = Math.min(n - at, this.blockSamples - this.filled);
      for (let i = 0; i < this.sources; i++) {
        let peak = this.currentPeaks[i]!;
        for (const x of planes[i]!) for (let k = at; k < at + span; k++) peak = Math.max(peak, Math.abs(x[k]!));
        this.currentPeaks[i] = peak;
      }
      for (let i = 0; i < this.sources; i++)
        for (let j = i; j < this.sources; j++) {
          let sum = 0;
          for (let c = 0; c < this.channels; c++) {
            const x = this.weighted[i * this.channels + c]!;
            const y = this.weighted[j * this.channels + c]!;
            for (let k = at; k < at + span; k++) sum += x[k]! * y[k]!;
          }
          this.current[this.pairIndex(i, j)]! += sum;
        }
      this.filled += span;
      at += span;
      if (this.filled === this.blockSamples) this.closeBlock();
    }
  }

  /** Closes a last partial block (its energies are per sample, like the others). */
  finish(): void {
    if (this.filled > 0) this.closeBlock();
  }

  /** Number of 100 ms blocks so far. */
  get length(): number {
    return this.blockCount;
  }

  /** Energy of pair (i, j) in block b: mean over the block of Σ_c y_i·y_j (K-weighted). */
  pairEnergy(b: number, i: number, j: number): number {
    return this.blocks[b * this.pairs + this.pairIndex(i, j)]!;
  }

  /**
   * The highest sample of Σ gain_s[b]·source_s over all blocks, at most (the sum of each
   * source's block peak times its gain): where this stays under a ceiling, no limiter acts.
   */
  mixPeakBound(gains: readonly Float64Array[]): number {
    let worst = 0;
    for (let b = 0; b < this.blockCount; b++) {
      let sum = 0;
      for (let i = 0; i < this.sources; i++) sum += Math.abs(gains[i]![b]!) * this.peaks[b * this.sources + i]!;
      worst = Math.max(worst, sum);
    }
    return worst;
  }

  /**
   * Per block: the highest sample of the mix Σ gain_s[b]·source_s, estimated as the mix's RMS
   * (exact from the pair energies, so a voice heard on two mics counts once or twice as it
   * really adds up) times the sources' crest factors (peak over RMS), weighted by each one's
   * share of the mix's energy; never above {@link mixPeakBound}'s sum of peaks. Summing the peaks
   * instead would take a voice's bleed on another mic as adding peak to peak, which it rarely
   * does (it arrives milliseconds late).
   */
  mixBlockPeaks(gains: readonly Float64Array[]): Float64Array {
    const mix = this.mixEnergies(gains);
    const out = new Float64Array(this.blockCount);
    for (let b = 0; b < this.blockCount; b++) {
      let bound = 0;
      let share = 0;
      let crest = 0;
      for (let i = 0; i < this.sources; i++) {
        const g = Math.abs(gains[i]![b]!);
        const peak = this.peaks[b * this.sources + i]!;
        const e = this.blocks[b * this.pairs + this.pairIndex(i, i)]!;
        bound += g * peak;
        if (e > 0) {
          share += g * g * e;
          crest += g * g * e * (peak / Math.sqrt(e));
        }
      }
      out[b] = share > 0 ? Math.min(bound, Math.sqrt(mix[b]!) * (crest / share)) : bound;
    }
    return out;
  }

  /** One source's 100 ms energies. */
  sourceEnergies(source: number): Float64Array {
    const out = new Float64Array(this.blockCount);
    const k = this.pairIndex(source, source);
    for (let b = 0; b < this.blockCount; b++) out[b] = this.blocks[b * this.pairs + k]!;
    return out;
  }

  /**
   * The 100 ms energies of the mix Σ_s gain_s[b]·source_s (linear gains per block): exact
   * where the gains hold over a block.
   */
  mixEnergies(gains: readonly Float64Array[]): Float64Array {
    const out = new Float64Array(this.blockCount);
    for (let b = 0; b < this.blockCount; b++) {
      let e = 0;
      for (let i = 0; i < this.sources; i++)
        for (let j = i; j < this.sources; j++) {
          const g = gains[i]![b]! * gains[j]![b]! * (i === j ? 1 : 2);
          e += g * this.blocks[b * this.pairs + this.pairIndex(i, j)]!;
        }
      out[b] = Math.max(0, e);
    }
    return out;
  }

  private kWeight(x: Float32Array, s: Float64Array, out: Float64Array): void {
    const { b0, b1, b2, a1, a2 } = this.filters.shelf;
    const h = this.filters.highPass;
    let x1 = s[0]!;
    let x2 = s[1]!;
    let y1 = s[2]!;
    let y2 = s[3]!;
    let z1 = s[4]!;
    let z2 = s[5]!;
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!;
      const y = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
      const z = y - 2 * y1 + y2 - h.a1 * z1 - h.a2 * z2;
      x2 = x1;
      x1 = v;
      y2 = y1;
      y1 = y;
      z2 = z1;
      z1 = z;
      out[i] = z;
    }
    s.set([x1, x2, y1, y2, z1, z2]);
  }

  private closeBlock(): void {
    if ((this.blockCount + 1) * this.pairs > this.blocks.length) {
      const bigger = new Float64Array(this.blocks.length * 2);
      bigger.set(this.blocks);
      this.blocks = bigger;
      const biggerPeaks = new Float64Array(this.peaks.length * 2);
      biggerPeaks.set(this.peaks);
      this.peaks = biggerPeaks;
    }
    this.peaks.set(this.currentPeaks, this.blockCount * this.sources);
    this.currentPeaks.fill(0);
    const n = this.filled;
    for (let k = 0; k < this.pairs; k++) this.blocks[this.blockCount * this.pairs + k] = this.current[k]! / n;
    this.blockCount++;
    this.current.fill(0);
    this.filled = 0;
  }
}

/** The 400 ms (momentary) energies from 100 ms ones: block b is the mean of b‥b+3 (fewer at the end). */
export function momentaryEnergies(blocks: Float64Array): Float64Array {
  const out = new Float64Array(Math.max(0, blocks.length - 3));
  for (let b = 0; b < out.length; b++) out[b] = (blocks[b]! + blocks[b + 1]! + blocks[b + 2]! + blocks[b + 3]!) / 4;
  return out;
}

/** Integrated loudness (BS.1770 gating) of 100 ms energies, LUFS; −Infinity when nothing passes. */
export function integratedFromBlocks(blocks: Float64Array): number {
  return gatedLoudness(momentaryEnergies(blocks));
}

/** A stretch of one speaker's speech on a source, in the timeline the blocks index (ms). */
export interface SpeechTurn {
  speaker: string;
  startMs: number;
  endMs: number;
}

/** What {@link planLevelling} needs. */
export interface LevellingInput {
  /** Per source: its 100 ms K-weighted energies (all the same length). */
  energies: readonly Float64Array[];
  /**
   * Where each block's middle falls on the timeline the turns use (reference ms), or NaN where
   * it falls nowhere (output joins): the output skips removed ranges, the turns do not.
   */
  blockTimesMs: Float64Array;
  /** Per source: the turns of the speakers recorded on it (its own mic's speaker, or all of a single mix). */
  speech: readonly (readonly SpeechTurn[])[];
  ride?: Partial<RideSettings>;
}

/** One speaker as levelled on one source. */
export interface SpeakerLevel {
  speaker: string;
  /** Their speech's loudness on the source before levelling (gated), LUFS; null when too little. */
  speechLufs: number | null;
  /** The static gain set for them, dB (0 when they spoke too little to measure). */
  gainDb: number;
  /** Seconds of their speech that passed the gates. */
  speechSec: number;
}

/** The levelling of all sources. */
export interface LevellingPlan {
  /** Per source, per block: the levelling gain, dB (static + ride). */
  gainsDb: Float32Array[];
  /** Per source: its speakers' levels. */
  speakers: SpeakerLevel[][];
  /** The speech loudness every speaker is levelled to (before the master gain), LUFS; null when no speaker could be measured. */
  speechTargetLufs: number | null;
  /** Per source, per block: whose gain the block carries (the speaker speaking, or the last one), or null. */
  holders: (string | null)[][];
}

/**
 * Which speaker of `turns` holds each block (by its middle), or null; where turns overlap, the
 * one that started last.
 */
export function blockSpeakers(blockTimesMs: Float64Array, turns: readonly SpeechTurn[]): (string | null)[] {
  const sorted = [...turns].sort((a, b) => a.startMs - b.startMs);
  const out: (string | null)[] = [];
  for (const t of blockTimesMs) {
    let who: string | null = null;
    if (!Number.isNaN(t)) for (const u of sorted) if (u.startMs <= t && t < u.endMs) who = u.speaker;
    out.push(who);
  }
  return out;
}

/**
 * How much more (dB) a speaker must stand out over the other speakers on a source than on any
 * other source, for it to be their own mic.
 */
export const OWN_MIC_CONTRAST_DB = 6;

/**
 * Which source carries whom, from the audio: with one source, every speaker (a single mix);
 * with several, each speaker goes to the source where they stand out most over the other
 * speakers (their level against the others', over blocks where they alone speak), if they stand
 * out there by {@link OWN_MIC_CONTRAST_DB} more than on any other source: their close mic. A speaker with no such source (room sound,
 * cameras far off) is not levelled. Returns, per source, the turns of the speakers it carries.
 */
export function assignSpeakers(
  energies: readonly Float64Array[],
  blockTimesMs: Float64Array,
  turns: readonly SpeechTurn[],
): SpeechTurn[][] {
  if (energies.length === 1) return [[...turns]];
  const speakers = [...new Set(turns.map((t) => t.speaker))];
  const result: SpeechTurn[][] = energies.map(() => []);
  // Per block: the one speaker speaking at its middle, or null (nobody, or several).
  const sole = Array.from(blockTimesMs, (t) => {
    let who: string | null = null;
    for (const u of turns)
      if (u.startMs <= t && t < u.endMs) {
        if (who !== null && who !== u.speaker) return null;
        who = u.speaker;
      }
    return who;
  });
  const mean = speakers.map((k) =>
    energies.map((e) => {
      let sum = 0;
      let n = 0;
      for (let b = 0; b < e.length; b++)
        if (sole[b] === k) {
          sum += e[b]!;
          n++;
        }
      return n > 0 ? sum / n : 0;
    }),
  );
  const db = (e: number): number => 10 * Math.log10(Math.max(e, 1e-12));
  speakers.forEach((k, i) => {
    // How much louder k is than the other speakers, on each source; a close mic stands out.
    const contrast = energies.map((_, s) => {
      const others = mean.filter((_, j) => j !== i).map((m) => m[s]!);
      const rest = others.length > 0 ? db(others.reduce((a, b) => a + b, 0) / others.length) : 0;
      return db(mean[i]![s]!) - rest;
    });
    const order = contrast.map((_, s) => s).sort((a, b) => contrast[b]! - contrast[a]!);
    const [best, second] = [order[0]!, order[1]!];
    if (contrast[best]! - contrast[second]! >= OWN_MIC_CONTRAST_DB)
      result[best]!.push(...turns.filter((t) => t.speaker === k));
  });
  return result;
}

/**
 * Static gains and the ride per source (see the module doc). Sources without turns keep 0 dB.
 *
 * @example
 * const plan = planLevelling({ energies: [a.sourceEnergies(0), a.sourceEnergies(1)], blockTimesMs, speech: [[...turnsOfA], [...turnsOfB]] });
 * plan.speakers[1][0].gainDb; // +6 for a mic recorded 12 dB lower than the other
 */
export function planLevelling(input: LevellingInput): LevellingPlan {
  const ride: RideSettings = { ...DEFAULT_RIDE, ...input.ride };
  const blocks = input.blockTimesMs.length;
  const owners = input.speech.map((turns) => blockSpeakers(input.blockTimesMs, turns));
  // Each speaker's speech loudness on their source: the 400 ms blocks that lie in their turns.
  const measured = input.speech.map((turns, s) => {
    const momentary = momentaryEnergies(input.energies[s]!);
    const names = [...new Set(turns.map((t) => t.speaker))];
    return names.map((speaker) => {
      const own = owners[s]!;
      const picked: number[] = [];
      for (let b = 0; b < momentary.length; b++)
        if (own[b] === speaker && own[b + 3] === speaker) picked.push(momentary[b]!);
      const energies = Float64Array.from(picked);
      const lufs = gatedLoudness(energies);
      const threshold = lufsToEnergy(lufs - 10);
      const speechSec = energies.filter((e) => e > threshold).length * LEVELLING_BLOCK_SEC;
      return { speaker, lufs, speechSec };
    });
  });
  const usable = measured.flat().filter((m) => Number.isFinite(m.lufs) && m.speechSec >= MIN_SPEECH_SEC);
  const speechTarget = usable.length > 0 ? usable.reduce((s, m) => s + m.lufs, 0) / usable.length : null;
  const speakers: SpeakerLevel[][] = measured.map((list) =>
    list.map((m) => {
      const ok = speechTarget !== null && Number.isFinite(m.lufs) && m.speechSec >= MIN_SPEECH_SEC;
      const gainDb = ok ? clamp(speechTarget - m.lufs, -MAX_STATIC_GAIN_DB, MAX_STATIC_GAIN_DB) : 0;
      return {
        speaker: m.speaker,
        speechLufs: Number.isFinite(m.lufs) ? m.lufs : null,
        gainDb,
        speechSec: Math.round(m.speechSec * 10) / 10,
      };
    }),
  );

  const step = LEVELLING_BLOCK_SEC;
  const windowAlpha = 1 - Math.exp(-step / ride.windowSec);
  const attack = 1 - Math.exp(-step / ride.attackSec);
  const release = 1 - Math.exp(-step / ride.releaseSec);
  const holders: (string | null)[][] = input.energies.map(() => []);
  const gainsDb = input.energies.map((energies, s) => {
    const out = new Float32Array(blocks);
    const levels = new Map(
      speakers[s]!.map((k, i) => {
        const m = measured[s]![i]!;
        return [
          k.speaker,
          { level: k, lufs: m.lufs, levelled: Number.isFinite(m.lufs) && m.speechSec >= MIN_SPEECH_SEC },
        ];
      }),
    );
    // Per speaker: the recent level (energy) and the ride (dB), held while someone else speaks.
    const state = new Map<string, { recent: number; rideDb: number }>();
    let current: string | null = null;
    const momentary = momentaryEnergies(energies);
    for (let b = 0; b < blocks; b++) {
      const who = owners[s]![b] ?? null;
      if (who !== null) current = who;
      const entry = current === null ? undefined : levels.get(current);
      holders[s]!.push(entry ? current : null);
      if (!entry || current === null) {
        out[b] = 0;
        continue;
      }
      const measuredLufs = entry.lufs;
      if (who !== null && entry.levelled && speechTarget !== null) {
        let st = state.get(who);
        if (!st) state.set(who, (st = { recent: lufsToEnergy(measuredLufs), rideDb: 0 }));
        // The 400 ms block centred here (blocks b − 2 ‥ b + 1), as a speech/pause gate and the recent level's input.
        const e = momentary[Math.max(0, Math.min(momentary.length - 1, b - 2))] ?? 0;
        if (e > lufsToEnergy(measuredLufs - ride.speechGateLu)) {
          st.recent += windowAlpha * (e - st.recent);
          const recentLufs = -0.691 + 10 * Math.log10(st.recent);
          const want = clamp(ride.ratio * (measuredLufs - recentLufs), -ride.rangeDb, ride.rangeDb);
          st.rideDb += (want < st.rideDb ? attack : release) * (want - st.rideDb);
        }
      }
      out[b] = entry.level.gainDb + (state.get(current)?.rideDb ?? 0);
    }
    return out;
  });
  return { gainsDb, speakers, speechTargetLufs: speechTarget, holders };
}

/** The master gain that brings a mix of integrated loudness `mixLufs` to `targetLufs`, dB (0 for silence). */
export function masterGainDb(mixLufs: number, targetLufs: number): number {
  return Number.isFinite(mixLufs) ? targetLufs - mixLufs : 0;
}

/** What {@link masterForLimiter} needs. */
export interface MasterInput {
  /** The analysis of the sources as they enter the mix (after their compressors). */
  analysis: LevellingAnalysis;
  /** Per source, per block: the linear gains before the master gain (levelling, mix weight, a person's gain). */
  gains: readonly Float64Array[];
  targetLufs: number;
  /** The limiter's ceiling, dBTP. */
  ceilingDbtp: number;
  /** Per block: the speaker speaking (whose speech is kept level), or null. */
  owners: readonly (string | null)[];
  /** Per speaker: the person's gain on their source, dB (−Infinity: muted, not kept level); the voices stay that far apart. */
  trimOf: ReadonlyMap<string, number>;
  /** Per source, per block: whose step the block's gain takes. */
  holders: readonly (readonly (string | null)[])[];
}

/**
 * The 100 ms energies of the mix Σ gain_s·source_s, with a master gain of `masterDb`, after a
 * true-peak limiter at `ceilingDbtp` as {@link expectedLimiterFactors} expects it to act.
 */
export function expectedLimitedEnergies(
  analysis: LevellingAnalysis,
  gains: readonly Float64Array[],
  masterDb: number,
  ceilingDbtp: number,
): Float64Array {
  const scale = 10 ** (masterDb / 20);
  const scaled = gains.map((g) => g.map((x) => x * scale));
  const factors = expectedLimiterFactors(analysis.mixBlockPeaks(scaled), 10 ** (ceilingDbtp / 20), LEVELLING_BLOCK_SEC);
  return analysis.mixEnergies(scaled).map((e, b) => e * factors[b]!);
}

/**
 * Each speaker's speech loudness in a mix's 100 ms energies (the 400 ms blocks wholly in their
 * turns, gated), less the person's gain on their source: muted speakers are left out.
 */
export function speakerLoudness(
  blocks: Float64Array,
  owners: readonly (string | null)[],
  trimOf: ReadonlyMap<string, number>,
): Map<string, number> {
  const momentary = momentaryEnergies(blocks);
  const bySpeaker = new Map<string, number>();
  for (const k of new Set(owners.filter((o): o is string => o !== null))) {
    // A muted speaker is only bleed on the others' mics: nothing to keep level.
    const trim = trimOf.get(k) ?? 0;
    if (!Number.isFinite(trim)) continue;
    const picked = momentary.filter((_, b) => owners[b] === k && owners[b + 3] === k);
    // Less the person's gain, so that steps towards the mean keep the voices that far apart.
    const lufs = gatedLoudness(picked) - trim;
    if (Number.isFinite(lufs)) bySpeaker.set(k, lufs);
  }
  return bySpeaker;
}

/** Rounds of {@link masterForLimiter}'s speaker steps, and of its master-gain search in each, at most (block arithmetic). */
const SPEAKER_ROUNDS = 4;
const MASTER_STEPS = 8;
/** The most {@link masterForLimiter} moves a speaker for what the limiter takes from them, dB. */
export const MAX_SPEAKER_STEP_DB = 3;

/**
 * The master gain that brings the mix, after the true-peak limiter, to the target, and each
 * speaker's step that keeps their speech where the levelling put it after the limiter (which
 * takes more from a louder or peakier voice): the limiter's effect on each 100 ms block is
 * estimated from the block's peak ({@link LevellingAnalysis.mixBlockPeaks},
 * {@link expectedLimiterFactors}), so no pass runs the limiter to measure it. For given gains
 * the master gain is found by secant steps (the limiter gives back less than it is given); then
 * each speaker is stepped towards the others (at most ±{@link MAX_SPEAKER_STEP_DB} dB in all: a
 * voice the limiter keeps taking from is not chased), and the master gain found again. Returns
 * the gains (before the master gain, the steps applied), the master gain and each speaker's
 * total step, dB.
 */
export function masterForLimiter(input: MasterInput): {
  gains: Float64Array[];
  masterGainDb: number;
  speakerStepsDb: Map<string, number>;
  /** The limited mix's loudness as estimated, LUFS. */
  limitedLufs: number;
} {
  const { analysis, owners, trimOf } = input;
  let gains = input.gains.map((g) => Float64Array.from(g));
  const steps = new Map<string, number>();
  /** The limited mix's 100 ms energies with master gain `db`. */
  const limitedBlocks = (db: number): Float64Array => expectedLimitedEnergies(analysis, gains, db, input.ceilingDbtp);
  /** The master gain that brings the limited mix to the target, for the current gains. */
  const solveMaster = (start: number): { master: number; blocks: Float64Array; lufs: number } => {
    let master = start;
    let blocks = limitedBlocks(master);
    let lufs = integratedFromBlocks(blocks);
    let previous: { master: number; lufs: number } | null = null;
    for (let k = 0; k < MASTER_STEPS && Number.isFinite(lufs); k++) {
      const error = input.targetLufs - lufs;
      if (Math.abs(error) < 0.02) break;
      const slope = previous && lufs !== previous.lufs ? (master - previous.master) / (lufs - previous.lufs) : 1;
      previous = { master, lufs };
      master += error * clamp(slope, 1, 5);
      blocks = limitedBlocks(master);
      lufs = integratedFromBlocks(blocks);
    }
    return { master, blocks, lufs };
  };
  let solved = solveMaster(masterGainDb(integratedFromBlocks(analysis.mixEnergies(gains)), input.targetLufs));
  for (let round = 0; round < SPEAKER_ROUNDS && Number.isFinite(solved.lufs); round++) {
    const bySpeaker = speakerLoudness(solved.blocks, owners, trimOf);
    const mean = [...bySpeaker.values()].reduce((a, b) => a + b, 0) / Math.max(1, bySpeaker.size);
    const deltas = new Map<string, number>();
    for (const [k, l] of bySpeaker) {
      const total = steps.get(k) ?? 0;
      const next = clamp(total + mean - l, -MAX_SPEAKER_STEP_DB, MAX_SPEAKER_STEP_DB);
      deltas.set(k, next - total);
      steps.set(k, next);
    }
    if ([...deltas.values()].every((d) => Math.abs(d) < 0.05)) break;
    gains = gains.map((g, s) => g.map((x, b) => x * 10 ** ((deltas.get(input.holders[s]![b] ?? '') ?? 0) / 20)));
    solved = solveMaster(solved.master);
  }
  return { gains, masterGainDb: solved.master, speakerStepsDb: steps, limitedLufs: solved.lufs };
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
