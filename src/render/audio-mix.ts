/**
 * The audio of a render, produced chunk by chunk in output order: every audio source is read
 * at the synced time of each output sample (offset and drift applied, linear interpolation),
 * the sources are averaged, and the kept ranges are joined with equal-power crossfades
 * ({@link rangeGain}). Memory holds a few seconds of decoded audio per source, whatever the
 * length of the footage. Every output chunk passes through a BS.1770 loudness meter
 * (src/analysis/audio/loudness.ts) on its way out, so the job can say how loud the render is.
 *
 * With mastering ({@link MasteringOptions}), {@link AudioMixer.prepare} first reads the sources
 * once to plan each speaker's levelling and the master gain (src/analysis/audio/levelling.ts); the
 * mix then applies those gains and passes a true-peak limiter (src/analysis/audio/limiter.ts). A
 * person's gain per source (the review editor's, the Job's `audio.gains`) is added to the
 * levelling before the master gain, so a nudged voice sits that much above or below the others
 * and the render still meets its target.
 *
 * @module
 */
import { AudioSampleSink, type AudioSample, type InputAudioTrack } from 'mediabunny';
import {
  assignSpeakers,
  blockSpeakers,
  integratedFromBlocks,
  LEVELLING_BLOCK_SEC,
  LevellingAnalysis,
  masterForLimiter,
  planLevelling,
  type SpeechTurn,
} from '../analysis/audio/levelling.ts';
import { SpeechCompressor, type CompressorSettings } from '../analysis/audio/compressor.ts';
import { TruePeakLimiter } from '../analysis/audio/limiter.ts';
import { LoudnessMeter, type LoudnessSummary } from '../analysis/audio/loudness.ts';
import { toSourceTime, type ClockMapping } from '../analysis/sync/sync.ts';
import type { SourceGain } from '../contract/types.ts';
import type { RenderAudioOptions } from './protocol.ts';
import { rangeGain, rangeSpan, type AudioRange } from './plan.ts';

/** Output sample rate of every render. */
export const OUTPUT_SAMPLE_RATE = 48_000;

/**
 * A forward-reading window over one source's decoded audio. Reads that go backwards or jump
 * far ahead restart the decoder at the new position (cheap for audio: every packet is a key).
 */
export class SourceAudioReader {
  private iterator: AsyncGenerator<AudioSample, void, unknown> | null = null;
  private data: Float32Array[] = [];
  /** Absolute source frame index of data[c][0]. */
  private startFrame = 0;
  private length = 0;
  private ended = false;
  private scratch = new Float32Array(0);
  readonly rate: number;
  readonly channels: number;
  private readonly sink: AudioSampleSink;

  constructor(
    track: InputAudioTrack,
    rate: number,
    channels: number,
    readonly clock: ClockMapping,
    /** The source's id (for the mastering report). */
    readonly sourceId = '',
  ) {
    this.sink = new AudioSampleSink(track);
    this.rate = rate;
    this.channels = channels;
    this.data = Array.from({ length: channels }, () => new Float32Array(rate * 4));
  }

  /** Makes source seconds [startSec, endSec] available (as far as the file has them). */
  async ensure(startSec: number, endSec: number): Promise<void> {
    const first = Math.floor(startSec * this.rate) - 2;
    const last = Math.ceil(endSec * this.rate) + 2;
    const bufEnd = this.startFrame + this.length;
    if (this.iterator === null || first < this.startFrame || first > bufEnd + this.rate * 2) {
      await this.restart(Math.max(0, startSec - 0.05));
    }
    this.dropBefore(first - Math.round(this.rate * 0.05));
    while (!this.ended && this.startFrame + this.length < last) {
      const next = await this.iterator!.next();
      if (next.done) {
        this.ended = true;
        break;
      }
      const sample = next.value;
      try {
        this.append(sample);
      } finally {
        sample.close();
      }
    }
  }

  /** Sample of channel `c` at source second `sec`, linearly interpolated; 0 where the file has nothing. */
  valueAt(c: number, sec: number): number {
    const x = sec * this.rate - this.startFrame;
    const i = Math.floor(x);
    if (i < 0 || i >= this.length) return 0;
    const d = this.data[Math.min(c, this.channels - 1)]!;
    if (i + 1 >= this.length) return d[i]!;
    const f = x - i;
    return d[i]! * (1 - f) + d[i + 1]! * f;
  }

  async dispose(): Promise<void> {
    await this.iterator?.return();
    this.iterator = null;
  }

  private async restart(atSec: number): Promise<void> {
    await this.iterator?.return();
    this.iterator = this.sink.samples(atSec);
    this.ended = false;
    this.length = 0;
    this.startFrame = Math.max(0, Math.round(atSec * this.rate));
  }

  private dropBefore(frame: number): void {
    const drop = Math.min(this.length, frame - this.startFrame);
    if (drop <= 0) return;
    for (const d of this.data) d.copyWithin(0, drop, this.length);
    this.startFrame += drop;
    this.length -= drop;
  }

  private append(sample: AudioSample): void {
    const frames = sample.numberOfFrames;
    let at = Math.round(sample.timestamp * this.rate);
    let skip = 0;
    const end = this.startFrame + this.length;
    if (this.length === 0 && at > this.startFrame) this.startFrame = at;
    else if (at > end) {
      // A gap in the file: silence.
      this.grow(at - end);
      for (const d of this.data) d.fill(0, this.length, this.length + (at - end));
      this.length += at - end;
    } else if (at < end) {
      skip = Math.min(frames, end - at);
      at = end;
    }
    if (this.length === 0 && at < this.startFrame) {
      skip = Math.max(skip, this.startFrame - at);
    }
    const n = frames - skip;
    if (n <= 0) return;
    this.grow(n);
    if (this.scratch.length < frames) this.scratch = new Float32Array(frames);
    const srcChannels = sample.numberOfChannels;
    for (let c = 0; c < this.channels; c++) {
      sample.copyTo(this.scratch, {
        planeIndex: Math.min(c, srcChannels - 1),
        format: 'f32-planar',
        frameCount: frames,
      });
      this.data[c]!.set(this.scratch.subarray(skip, frames), this.length);
    }
    this.length += n;
  }

  private grow(n: number): void {
    const need = this.length + n;
    if (need <= this.data[0]!.length) return;
    const size = Math.max(need, this.data[0]!.length * 2);
    this.data = this.data.map((d) => {
      const bigger = new Float32Array(size);
      bigger.set(d.subarray(0, this.length));
      return bigger;
    });
  }
}

/** The sound of a render: a loudness target with voice levelling and a true-peak ceiling. */
export interface MasteringOptions {
  /** Target integrated loudness of the render, LUFS. */
  targetLufs: number;
  /** True-peak ceiling, dBTP. */
  truePeakDbtp: number;
  /** Per source id: the turns of the speakers recorded on it (its speaker's, or every speaker's on a single mix), reference ms. */
  speech: Readonly<Record<string, readonly SpeechTurn[]>>;
  /**
   * Every speaker's turns, reference ms, when `speech` does not say who is on which source: the
   * analysis pass finds it from the audio ({@link assignSpeakers}).
   */
  turns?: readonly SpeechTurn[];
  /** The sources' compressors' settings, where they differ from the defaults (src/analysis/audio/compressor.ts; for tuning them). */
  compressor?: Partial<CompressorSettings>;
}

/** The mixer's mastering from the render request's `audio`. */
export function masteringOf(audio: RenderAudioOptions): MasteringOptions {
  if (!Number.isFinite(audio.loudnessLufs) || audio.loudnessLufs >= 0 || audio.loudnessLufs < -70)
    throw new RangeError(`audio.loudnessLufs must be a number from -70 to 0 LUFS (got ${audio.loudnessLufs})`);
  if (!Number.isFinite(audio.truePeakDbtp) || audio.truePeakDbtp > 0 || audio.truePeakDbtp < -20)
    throw new RangeError(`audio.truePeakDbtp must be a number from -20 to 0 dBTP (got ${audio.truePeakDbtp})`);
  return {
    targetLufs: audio.loudnessLufs,
    truePeakDbtp: audio.truePeakDbtp,
    speech: audio.speech ?? {},
    ...(audio.turns ? { turns: audio.turns } : {}),
  };
}

/**
 * The limiter aims this far under the ceiling: the AAC or Opus encoder after it moves the
 * peaks of the decoded file by a few tenths of a dB.
 */
export const ENCODER_PEAK_MARGIN_DB = 1.5;

/** One source's loudness before and after levelling (as it sits in the render, before the limiter). */
export interface SourceLevels {
  sourceId: string;
  /** The person's gain on this source ({@link AudioMixer}'s `gainsDb`), dB; null when muted. */
  sourceGainDb: number | null;
  integratedLufsBefore: number | null;
  integratedLufsAfter: number | null;
  /** What its compressor took off on average, dB (over the whole render, pauses included). */
  compressorMeanReductionDb: number;
  speakers: Array<{
    speaker: string;
    /** Their speech on this source before levelling, LUFS. */
    speechLufsBefore: number | null;
    /** Their speech as it sits in the render (levelling, mix weight and master gain), LUFS. */
    speechLufsAfter: number | null;
    /** The static levelling gain, dB. */
    gainDb: number;
    /** The ride's lowest and highest gain on top of it, dB. */
    rideDb: [number, number];
    speechSec: number;
  }>;
}

/** What the mastering did. */
export interface MixLevels {
  targetLufs: number;
  truePeakDbtp: number;
  /** The levelled mix's integrated loudness before the master gain, LUFS (from the analysis pass). */
  mixLufsBefore: number | null;
  masterGainDb: number;
  /** The most the limiter turned the sound down, dB. */
  limiterMaxReductionDb: number;
  /** The most any source's compressor turned it down, dB (in the analysis pass; the mix's is the same). */
  compressorMaxReductionDb: number;
  sources: SourceLevels[];
}

/** Rounds of {@link nudgeVoices} at most. */
const NUDGE_ROUNDS = 6;

/**
 * Where a person set gains, moves each speaker's levelling until their speech, as it sits in the
 * levelled mix, is that many dB off the others: a source's gain alone moves its voice less, since
 * the voice also reaches the other mics (bleed). A speaker's step applies to every source while
 * they speak (a ride on the whole mix during their turns). Exact for the mix before the master
 * gain (the analysis keeps every pair of sources' energies); muted speakers are left out. Changes
 * `gains` (linear, per source and block) in place; returns what it added per speaker, dB.
 */
export function nudgeVoices(
  analysis: LevellingAnalysis,
  gains: Float64Array[],
  blockTimesMs: Float64Array,
  speech: readonly (readonly SpeechTurn[])[],
  trimOf: ReadonlyMap<string, number>,
): Map<string, number> {
  const owners = blockSpeakers(blockTimesMs, speech.flat());
  const added = new Map<string, number>();
  for (let round = 0; round < NUDGE_ROUNDS; round++) {
    const mix = analysis.mixEnergies(gains);
    // Each speaker's speech in the mix, less the gain asked for them.
    const level = new Map<string, number>();
    for (const [k, trim] of trimOf) {
      if (!Number.isFinite(trim)) continue;
      const lufs = integratedFromBlocks(mix.map((e, b) => (owners[b] === k ? e : 0))) - trim;
      if (Number.isFinite(lufs)) level.set(k, lufs);
    }
    if (level.size < 2) break;
    const mean = [...level.values()].reduce((a, b) => a + b, 0) / level.size;
    const deltas = new Map([...level].map(([k, l]) => [k, Math.max(-6, Math.min(6, mean - l))]));
    if ([...deltas.values()].every((d) => Math.abs(d) < 0.05)) break;
    for (const [k, d] of deltas) added.set(k, (added.get(k) ?? 0) + d);
    // While k speaks, every source moves by k's step: their voice reaches the other mics too,
    // so moving only their own mic's gain (or the block's holder's) can leave it where it was.
    for (const g of gains)
      for (let b = 0; b < g.length; b++) {
        const d = deltas.get(owners[b] ?? '');
        if (d !== undefined) g[b] = g[b]! * 10 ** (d / 20);
      }
  }
  return added;
}

/** Mixes the sources into output chunks. */
export class AudioMixer {
  readonly channels: number;
  readonly totalSamples: number;
  private produced = 0;
  /** Measures every chunk handed out (the mix as the encoder receives it). */
  private readonly meter: LoudnessMeter;
  /** Per reader, per 100 ms block: linear gain (levelling, mix weight, master gain); null: the plain average. */
  private gains: Float32Array[] | null = null;
  private limiter: TruePeakLimiter | null = null;
  /** Per reader, with mastering: the compressor ahead of its gains in the mix. */
  private compressors: SpeechCompressor[] | null = null;
  /** The output sample the compressors' output has reached. */
  private compressedTo = 0;
  private report: Omit<MixLevels, 'limiterMaxReductionDb'> | null = null;
  /** Per reader: the person's gain, dB (−Infinity: muted). */
  private readonly trimsDb: number[];

  /**
   * `gainsDb`: a person's gain per source id, dB or `mute` (the Job's `audio.gains`). With
   * mastering it is added to the levelling before the master gain and the limiter, so the mix
   * still meets the target and the source sits that much above or below the others; without,
   * it scales the source in the plain average.
   */
  constructor(
    private readonly readers: readonly SourceAudioReader[],
    private readonly ranges: readonly AudioRange[],
    keptMs: number,
    private readonly mastering: MasteringOptions | null = null,
    gainsDb: Readonly<Record<string, SourceGain>> = {},
  ) {
    this.channels = Math.min(2, Math.max(1, ...readers.map((r) => r.channels)));
    this.totalSamples = Math.round((keptMs / 1000) * OUTPUT_SAMPLE_RATE);
    this.meter = new LoudnessMeter(OUTPUT_SAMPLE_RATE, this.channels);
    this.trimsDb = readers.map((r) => {
      const g = gainsDb[r.sourceId] ?? 0;
      return g === 'mute' ? -Infinity : g;
    });
  }

  /**
   * With mastering: one pass over the sources (decoded, not mixed) that plans the levelling and
   * the master gain (src/analysis/audio/levelling.ts), then primes the limiter. Call once before
   * {@link next}; without mastering it does nothing. `onProgress` is called after every second
   * of audio read (each pass from 0 to 1); it may throw to cancel.
   */
  async prepare(onProgress?: (fraction: number) => void): Promise<void> {
    const m = this.mastering;
    if (!m || this.produced > 0 || this.gains) return;
    // The levelling is planned on the compressed sources (the mix hears them so), and the
    // recorded ones are measured beside them for the report.
    const analysis = new LevellingAnalysis(this.readers.length, this.channels, OUTPUT_SAMPLE_RATE);
    const recorded = this.readers.map(() => new LevellingAnalysis(1, this.channels, OUTPUT_SAMPLE_RATE));
    // The compressors' output lags by their look-ahead: they read that far ahead of the blocks.
    const compressors = this.newCompressors();
    const lag = compressors[0]?.latency ?? 0;
    const primer = await this.sourcePlanes(0, lag);
    primer.forEach((p, s) => {
      compressors[s]!.process(p);
      recorded[s]!.push([p.map((x) => x.subarray(0, Math.min(lag, this.totalSamples)))]);
    });
    const chunk = OUTPUT_SAMPLE_RATE;
    for (let s0 = 0; s0 < this.totalSamples; s0 += chunk) {
      const count = Math.min(chunk, this.totalSamples - s0);
      const planes = await this.sourcePlanes(s0 + lag, count);
      const left = Math.max(0, Math.min(count, this.totalSamples - s0 - lag));
      planes.forEach((p, s) => recorded[s]!.push([p.map((x) => x.subarray(0, left))]));
      analysis.push(planes.map((p, s) => compressors[s]!.process(p)));
      onProgress?.(Math.min(1, (s0 + chunk) / this.totalSamples));
    }
    analysis.finish();
    for (const r of recorded) r.finish();
    const blocks = analysis.length;
    const blockTimesMs = new Float64Array(blocks);
    for (let b = 0; b < blocks; b++) blockTimesMs[b] = this.refTimeAt((b + 0.5) * LEVELLING_BLOCK_SEC * 1000);
    const energies = this.readers.map((_, i) => analysis.sourceEnergies(i));
    const recordedEnergies = recorded.map((r) => r.sourceEnergies(0));
    const given = this.readers.some((r) => m.speech[r.sourceId] !== undefined);
    const speech =
      given || !m.turns
        ? this.readers.map((r) => [...(m.speech[r.sourceId] ?? [])])
        : assignSpeakers(recordedEnergies, blockTimesMs, m.turns);
    const plan = planLevelling({ energies, blockTimesMs, speech });
    const recordedSpeech = planLevelling({ energies: recordedEnergies, blockTimesMs, speech }).speakers;
    const weight = 1 / Math.max(1, this.readers.length);
    // The person's gain on top of the levelling (10^(−∞) is 0: a muted source leaves the mix).
    let levelled: Float64Array[] = plan.gainsDb.map((db, s) =>
      Float64Array.from(db, (g) => weight * 10 ** ((g + this.trimsDb[s]!) / 20)),
    );
    // Per speaker: the person's gain on their source; the master step below keeps it between voices.
    const trimOf = new Map<string, number>();
    speech.forEach((turns, s) => {
      for (const t of turns) if (!trimOf.has(t.speaker)) trimOf.set(t.speaker, this.trimsDb[s]!);
    });
    // Each speaker's levelling trimmed afterwards (dB), for the report.
    const trims = new Map<string, number>();
    const nudged = this.trimsDb.some((t) => t !== 0);
    if (nudged) for (const [k, d] of nudgeVoices(analysis, levelled, blockTimesMs, speech, trimOf)) trims.set(k, d);
    const mixLufs = integratedFromBlocks(analysis.mixEnergies(levelled));
    // The limiter takes a little loudness where it acts, more from a louder or peakier voice:
    // estimated from each block's peak, not measured by a pass through it (masterForLimiter).
    const ceiling = m.truePeakDbtp - ENCODER_PEAK_MARGIN_DB;
    const owners = blockSpeakers(blockTimesMs, speech.flat());
    const mastered = masterForLimiter({
      analysis,
      gains: levelled,
      targetLufs: m.targetLufs,
      ceilingDbtp: ceiling,
      owners,
      trimOf,
      // With a person's gains, a speaker's step goes to every source while they speak (see nudgeVoices).
      holders: nudged ? this.readers.map(() => owners) : plan.holders,
    });
    const master = mastered.masterGainDb;
    levelled = mastered.gains;
    for (const [k, d] of mastered.speakerStepsDb) trims.set(k, (trims.get(k) ?? 0) + d);
    this.gains = levelled.map((g) => Float32Array.from(g, (x) => x * 10 ** (master / 20)));
    const round = (x: number): number | null => (Number.isFinite(x) ? Math.round(x * 100) / 100 : null);
    this.report = {
      targetLufs: m.targetLufs,
      truePeakDbtp: m.truePeakDbtp,
      mixLufsBefore: round(mixLufs),
      masterGainDb: round(master) ?? 0,
      compressorMaxReductionDb: round(Math.max(0, ...compressors.map((c) => c.maxReductionDb))) ?? 0,
      sources: this.readers.map((_, i) => {
        const after = energies[i]!.map((e, b) => e * this.gains![i]![b]! ** 2);
        const owners = plan.speakers[i]!.length > 0 ? blockSpeakers(blockTimesMs, speech[i]!) : [];
        return {
          sourceId: this.readers[i]!.sourceId,
          sourceGainDb: Number.isFinite(this.trimsDb[i]!) ? this.trimsDb[i]! : null,
          integratedLufsBefore: round(integratedFromBlocks(recordedEnergies[i]!)),
          integratedLufsAfter: round(integratedFromBlocks(after)),
          compressorMeanReductionDb: round(compressors[i]!.meanReductionDb) ?? 0,
          speakers: plan.speakers[i]!.map((k, j) => {
            const own = owners.map((o) => o === k.speaker);
            const ride = plan.gainsDb[i]!.filter((_, b) => own[b]).map((g) => g - k.gainDb);
            const before = recordedSpeech[i]![j]!.speechLufs;
            return {
              speaker: k.speaker,
              speechLufsBefore: before === null ? null : round(before),
              speechLufsAfter: round(integratedFromBlocks(after.map((e, b) => (own[b] ? e : 0)))),
              gainDb: round(k.gainDb + (trims.get(k.speaker) ?? 0)) ?? 0,
              rideDb: [round(Math.min(0, ...ride)) ?? 0, round(Math.max(0, ...ride)) ?? 0],
              speechSec: k.speechSec,
            };
          }),
        };
      }),
    };
    this.compressors = this.newCompressors();
    this.compressedTo = 0;
    for (const [s, p] of (await this.sourcePlanes(0, lag)).entries()) this.compressors[s]!.process(p);
    this.limiter = new TruePeakLimiter(this.channels, OUTPUT_SAMPLE_RATE, { ceilingDbtp: ceiling });
    // Prime the limiter's look-ahead: its first outputs are the silence before the start.
    this.limiter.process(await this.mixed(0, this.limiter.latency));
  }

  /** One compressor per source, fresh (the analysis pass and the mix each run their own over the same samples). */
  private newCompressors(): SpeechCompressor[] {
    return this.readers.map(() => new SpeechCompressor(this.channels, OUTPUT_SAMPLE_RATE, this.mastering?.compressor));
  }

  /** The loudness of the mix handed out so far (all of it once {@link done}). */
  loudness(): LoudnessSummary {
    return this.meter.summary();
  }

  /** What the mastering did (after {@link prepare}); null without mastering. */
  levels(): MixLevels | null {
    if (!this.report) return null;
    return {
      ...this.report,
      limiterMaxReductionDb: Math.round((this.limiter?.maxReductionDb ?? 0) * 100) / 100,
    };
  }

  /** Output samples produced so far. */
  get position(): number {
    return this.produced;
  }

  get done(): boolean {
    return this.produced >= this.totalSamples;
  }

  /** The next `n` output samples (fewer at the end), planar: one Float32Array per channel. */
  async next(n: number): Promise<Float32Array[]> {
    const s0 = this.produced;
    const count = Math.max(0, Math.min(n, this.totalSamples - s0));
    if (this.mastering && !this.gains) await this.prepare();
    const out = this.limiter
      ? this.limiter.process(await this.mixed(s0 + this.limiter.latency, count))
      : await this.mixed(s0, count);
    this.produced += count;
    if (count > 0) this.meter.push(out);
    return out;
  }

  /** Output samples [s0, s0 + count) of the mix (silence past the end), before the limiter. */
  private async mixed(s0: number, count: number): Promise<Float32Array[]> {
    const out = Array.from({ length: this.channels }, () => new Float32Array(Math.max(0, count)));
    if (count <= 0) return out;
    const compressors = this.compressors;
    let planes: Float32Array[][];
    if (compressors) {
      // Read sequentially from 0 (the compressors keep state): their look-ahead ahead of s0.
      if (s0 !== this.compressedTo)
        throw new Error(`mixer: compressed output asked at ${s0}, not ${this.compressedTo}`);
      this.compressedTo = s0 + count;
      const raw = await this.sourcePlanes(s0 + (compressors[0]?.latency ?? 0), count);
      planes = raw.map((p, s) => compressors[s]!.process(p));
    } else planes = await this.sourcePlanes(s0, count);
    const weight = 1 / Math.max(1, this.readers.length);
    const blockSamples = LEVELLING_BLOCK_SEC * OUTPUT_SAMPLE_RATE;
    planes.forEach((source, r) => {
      const gains = this.gains?.[r];
      if (!gains) {
        const g = weight * 10 ** (this.trimsDb[r]! / 20);
        if (g === 0) return;
        for (let c = 0; c < this.channels; c++) {
          const o = out[c]!;
          const x = source[c]!;
          for (let i = 0; i < count; i++) o[i]! += g * x[i]!;
        }
        return;
      }
      // The block gains, linear between block middles.
      const last = gains.length - 1;
      for (let i = 0; i < count; i++) {
        const u = (s0 + i) / blockSamples - 0.5;
        const b = Math.floor(u);
        const f = u - b;
        const g0 = gains[Math.max(0, Math.min(last, b))] ?? 0;
        const g1 = gains[Math.max(0, Math.min(last, b + 1))] ?? 0;
        const g = g0 + (g1 - g0) * f;
        for (let c = 0; c < this.channels; c++) out[c]![i]! += g * source[c]![i]!;
      }
    });
    return out;
  }

  /** Each reader's signal at output samples [s0, s0 + count), crossfades applied: [reader][channel]. */
  private async sourcePlanes(s0: number, count: number): Promise<Float32Array[][]> {
    const planes = this.readers.map(() =>
      Array.from({ length: this.channels }, () => new Float32Array(Math.max(0, count))),
    );
    const msPerSample = 1000 / OUTPUT_SAMPLE_RATE;
    for (const r of this.ranges) {
      const span = rangeSpan(r);
      const i0 = Math.max(0, Math.ceil(span.startMs / msPerSample) - s0);
      const i1 = Math.min(count, Math.ceil(span.endMs / msPerSample) - s0);
      if (i1 <= i0) continue;
      const refAt = (i: number): number => r.refStartMs + ((s0 + i) * msPerSample - r.outStartMs);
      for (const [k, reader] of this.readers.entries()) {
        const a = toSourceTime(refAt(i0), reader.clock) / 1000;
        const b = toSourceTime(refAt(i1 - 1), reader.clock) / 1000;
        await reader.ensure(a, b);
        const out = planes[k]!;
        for (let i = i0; i < i1; i++) {
          const g = rangeGain(r, (s0 + i) * msPerSample);
          if (g === 0) continue;
          const sec = toSourceTime(refAt(i), reader.clock) / 1000;
          for (let c = 0; c < this.channels; c++) out[c]![i]! += g * reader.valueAt(c, sec);
        }
      }
    }
    return planes;
  }

  /** The reference time (ms) an output time falls on, or NaN in no range. */
  private refTimeAt(outMs: number): number {
    for (const r of this.ranges)
      if (r.outStartMs <= outMs && outMs < r.outEndMs) return r.refStartMs + (outMs - r.outStartMs);
    return NaN;
  }
}
