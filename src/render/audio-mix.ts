/**
 * The audio of a render, produced chunk by chunk in output order: every audio source is read
 * at the synced time of each output sample (offset and drift applied, linear interpolation),
 * the sources are averaged, and the kept ranges are joined with equal-power crossfades
 * ({@link rangeGain}). Memory holds a few seconds of decoded audio per source, whatever the
 * length of the footage. Every output chunk passes through a BS.1770 loudness meter
 * (src/analysis/loudness.ts) on its way out, so the job can say how loud the render is.
 *
 * @module
 */
import { AudioSampleSink, type AudioSample, type InputAudioTrack } from 'mediabunny';
import { LoudnessMeter, type LoudnessSummary } from '../analysis/loudness.ts';
import { toSourceTime, type ClockMapping } from '../analysis/sync.ts';
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

/** Mixes the sources into output chunks. */
export class AudioMixer {
  readonly channels: number;
  readonly totalSamples: number;
  private produced = 0;
  /** Measures every chunk handed out (the mix as the encoder receives it). */
  private readonly meter: LoudnessMeter;

  constructor(
    private readonly readers: readonly SourceAudioReader[],
    private readonly ranges: readonly AudioRange[],
    keptMs: number,
  ) {
    this.channels = Math.min(2, Math.max(1, ...readers.map((r) => r.channels)));
    this.totalSamples = Math.round((keptMs / 1000) * OUTPUT_SAMPLE_RATE);
    this.meter = new LoudnessMeter(OUTPUT_SAMPLE_RATE, this.channels);
  }

  /** The loudness of the mix handed out so far (all of it once {@link done}). */
  loudness(): LoudnessSummary {
    return this.meter.summary();
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
    const count = Math.min(n, this.totalSamples - s0);
    const out = Array.from({ length: this.channels }, () => new Float32Array(Math.max(0, count)));
    if (count <= 0) return out;
    const msPerSample = 1000 / OUTPUT_SAMPLE_RATE;
    const weight = 1 / Math.max(1, this.readers.length);
    for (const r of this.ranges) {
      const span = rangeSpan(r);
      const i0 = Math.max(0, Math.ceil(span.startMs / msPerSample) - s0);
      const i1 = Math.min(count, Math.ceil(span.endMs / msPerSample) - s0);
      if (i1 <= i0) continue;
      const refAt = (i: number): number => r.refStartMs + ((s0 + i) * msPerSample - r.outStartMs);
      for (const reader of this.readers) {
        const a = toSourceTime(refAt(i0), reader.clock) / 1000;
        const b = toSourceTime(refAt(i1 - 1), reader.clock) / 1000;
        await reader.ensure(a, b);
        for (let i = i0; i < i1; i++) {
          const g = rangeGain(r, (s0 + i) * msPerSample) * weight;
          if (g === 0) continue;
          const sec = toSourceTime(refAt(i), reader.clock) / 1000;
          for (let c = 0; c < this.channels; c++) out[c]![i]! += g * reader.valueAt(c, sec);
        }
      }
    }
    this.produced += count;
    this.meter.push(out);
    return out;
  }
}
