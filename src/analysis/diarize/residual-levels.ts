/**
 * The levels of what crosstalk cancellation leaves of each channel, measured as the residuals
 * come (an hour of them is never held), for a range of the output: the whole, or a share that
 * another thread measures while this one does the rest. Pure: samples in (arrays, or readers
 * of files), arrays out.
 *
 * @module
 */
import { crosstalkResiduals, type CrosstalkWeights, type ResidualSink } from './crosstalk.ts';
import { FrameLevelMeter } from './edges.ts';
import type { SampleReader } from '../signal/sample-reader.ts';

/** Frame length of the fine grid (the edges'), ms. */
export const FINE_FRAME_MS = 10;

/** The residuals' levels per channel: on the VAD's grid (`coarse`) and at 10 ms (`fine`). */
export interface ResidualLevels {
  coarse: Float64Array[];
  fine: Float64Array[];
}

/**
 * A share of the residual pass: the output samples from `from` to the channels' end, measured
 * on the two grids. `from` is on both grids (a whole number of coarse and of fine frames), so
 * the shares' levels join into those of the whole.
 */
export interface ResidualLevelsJob {
  /** The channels above 80 Hz from absolute sample `origin` (at most `from − 2 · hop`) to their end. */
  channels: Float32Array[];
  origin: number;
  from: number;
  weights: CrosstalkWeights;
  sampleRate: number;
  /** The coarse grid's frame, ms (its samples are the weights' hop). */
  frameMs: number;
  /** Coarse frames to measure from `from` (the rest of the VAD's frames). */
  frames: number;
  /** Where the levels go, when the caller provides the arrays (shared memory): filled in place. */
  out?: ResidualLevels;
}

/** Samples in a frame of `frameMs` at `sampleRate`. */
function frameSamples(sampleRate: number, frameMs: number): number {
  return Math.round((sampleRate * frameMs) / 1000);
}

/**
 * The residual levels of the output samples [`from`, `to`) (`to`: the end by default).
 * `progress` hears each block measured (a helper thread's heartbeat).
 */
export function residualLevels(job: ResidualLevelsJob, to?: number, progress?: () => void): ResidualLevels {
  const meters = shareMeters(job, job.channels.length, progress);
  crosstalkResiduals(job.channels, job.weights, meters.sink, {
    from: job.from,
    origin: job.origin,
    ...(to === undefined ? {} : { to }),
  });
  return meters.levels();
}

/** The two grids' meters of a share's `n` channels: the sink the residuals go to, and their levels at the end. */
function shareMeters(
  job: Omit<ResidualLevelsJob, 'channels' | 'origin'>,
  n: number,
  progress: (() => void) | undefined,
): { sink: ResidualSink; levels(): ResidualLevels } {
  const coarse = Array.from({ length: n }, () => new FrameLevelMeter(job.sampleRate, job.frameMs, job.frames));
  const fine = Array.from({ length: n }, () => new FrameLevelMeter(job.sampleRate, FINE_FRAME_MS));
  return {
    sink: (_, blocks) => {
      blocks.forEach((block, i) => {
        coarse[i]!.push(block);
        fine[i]!.push(block);
      });
      progress?.();
    },
    levels() {
      const levels = { coarse: coarse.map((m) => m.levels()), fine: fine.map((m) => m.levels()) };
      if (job.out) {
        levels.coarse.forEach((l, i) => job.out!.coarse[i]!.set(l));
        levels.fine.forEach((l, i) => job.out!.fine[i]!.set(l));
      }
      return levels;
    },
  };
}

/** Output samples of a share measured at once when its channels are read by range (about 1 min at 16 kHz). */
export const RESIDUAL_READ_SAMPLES = 1 << 20;

/**
 * A share of the residual pass over channels read by range (in memory, or files): the output
 * samples from `from` to `length` (every channel's length).
 */
export interface ResidualShareJob extends Omit<ResidualLevelsJob, 'channels' | 'origin'> {
  /** The channels above 80 Hz, whole (the share reads from 2 · hop before `from`). */
  channels: readonly SampleReader[];
  length: number;
}

/**
 * {@link residualLevels} of the output samples [`job.from`, `to`) of channels read by range:
 * a piece at a time, each read with the 2 · hop samples before and after it that its frames
 * reach, so that only a piece is ever held. The same levels to the bit (crosstalkResiduals of
 * a range is the whole pass's there).
 */
export function residualLevelsRead(
  job: ResidualShareJob,
  to = job.length,
  options: { progress?: () => void; pieceSamples?: number } = {},
): ResidualLevels {
  const meters = shareMeters(job, job.channels.length, options.progress);
  const reach = 2 * job.weights.hop;
  const piece = options.pieceSamples ?? RESIDUAL_READ_SAMPLES;
  const end = Math.min(to, job.length);
  for (let a = job.from; a < end; a += piece) {
    const b = Math.min(end, a + piece);
    const origin = Math.max(0, a - reach);
    const read = job.channels.map((c) => c.read(origin, Math.min(job.length, b + reach)));
    crosstalkResiduals(read, job.weights, meters.sink, { from: a, to: b, origin });
  }
  return meters.levels();
}

/** How many fine frames a share from `from` to `length` measures. */
export function fineFrames(sampleRate: number, from: number, length: number): number {
  return Math.floor((length - from) / frameSamples(sampleRate, FINE_FRAME_MS));
}

/**
 * Where to cut the residual pass in two for a second thread: the first multiple of both grids'
 * frames at or after the middle, within the VAD's frames; `length` (no cut) when there is no
 * such point.
 */
export function residualSplit(sampleRate: number, frameMs: number, frames: number, length: number): number {
  const a = frameSamples(sampleRate, frameMs);
  const b = frameSamples(sampleRate, FINE_FRAME_MS);
  let unit = a;
  while (unit % b !== 0) unit += a;
  const cut = Math.ceil(length / 2 / unit) * unit;
  return cut > 0 && cut < length && cut <= frames * a ? cut : length;
}

/**
 * Runs a share of the residual pass on another thread: started when called, its levels collected
 * by the function it returns (which waits for them), or `null` where that thread cannot take it.
 */
export type ResidualHelper = (job: ResidualShareJob) => (() => ResidualLevels) | null;

/**
 * The residual levels of the whole output, with the second half measured by `helper` (when
 * given, and the output long enough to cut) while this thread measures the first. The
 * channels are read a piece at a time.
 */
export function residualLevelsSplit(
  channels: readonly SampleReader[],
  weights: CrosstalkWeights,
  grid: { sampleRate: number; frameMs: number; frames: number },
  helper?: ResidualHelper,
): ResidualLevels {
  const { sampleRate, frameMs, frames } = grid;
  const length = Math.max(...channels.map((c) => c.length));
  const whole: ResidualShareJob = { channels, length, from: 0, weights, sampleRate, frameMs, frames };
  const cut = helper ? residualSplit(sampleRate, frameMs, frames, length) : length;
  if (cut >= length) return residualLevelsRead(whole);
  const coarseBefore = cut / frameSamples(sampleRate, frameMs);
  const collect = helper!({ ...whole, from: cut, frames: frames - coarseBefore });
  if (!collect) return residualLevelsRead(whole);
  const first = residualLevelsRead({ ...whole, frames: coarseBefore }, cut);
  const second = collect();
  const join = (a: Float64Array, b: Float64Array): Float64Array => {
    const out = new Float64Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  };
  return {
    coarse: first.coarse.map((a, i) => join(a, second.coarse[i]!)),
    fine: first.fine.map((a, i) => join(a, second.fine[i]!)),
  };
}
