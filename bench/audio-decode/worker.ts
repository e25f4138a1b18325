/**
 * Times each phase of decoding a file's audio track the way the media worker does
 * (src/media/mediabunny-decoder.ts): demuxing alone, decoding, copying and downmixing, and
 * resampling. Each phase runs the whole file again, so the differences are the phases' costs.
 *
 * @module
 */
import { expose } from 'comlink';
import { ALL_FORMATS, AudioSampleSink, BlobSource, EncodedPacketSink, Input } from 'mediabunny';
import { StreamingResampler } from '../../src/analysis/signal/signal-resample.ts';
import { decodeWithMediabunny } from '../../src/media/mediabunny-decoder.ts';

/** Milliseconds per phase, and the media's length. */
export interface PhaseTimes {
  durationSec: number;
  demuxMs: number;
  decodeMs: number;
  copyMs: number;
  resampleMs: number;
  /** The media worker's own function, end to end. */
  decoderMs: number;
}

export interface AudioDecodeBenchApi {
  phases(file: File, rate: number): Promise<PhaseTimes>;
}

async function run(file: File, phase: 'demux' | 'decode' | 'copy' | 'resample', rate: number): Promise<number> {
  const input = new Input({ source: new BlobSource(file), formats: ALL_FORMATS });
  const t0 = performance.now();
  const track = await input.getPrimaryAudioTrack();
  if (!track) throw new Error('no audio track');
  if (phase === 'demux') {
    for await (const packet of new EncodedPacketSink(track).packets()) void packet.byteLength;
    input.dispose();
    return performance.now() - t0;
  }
  const inRate = await track.getSampleRate();
  const resampler = phase === 'resample' ? new StreamingResampler(inRate, rate) : null;
  let scratch = new Float32Array(0);
  let mix = new Float32Array(0);
  for await (const sample of new AudioSampleSink(track).samples()) {
    if (phase !== 'decode') {
      const frames = sample.numberOfFrames;
      if (mix.length < frames) {
        mix = new Float32Array(frames);
        scratch = new Float32Array(frames);
      }
      const m = mix.subarray(0, frames);
      m.fill(0);
      for (let c = 0; c < sample.numberOfChannels; c++) {
        sample.copyTo(scratch, { planeIndex: c, format: 'f32-planar', frameCount: frames });
        for (let i = 0; i < frames; i++) m[i]! += scratch[i]!;
      }
      resampler?.push(m);
    }
    sample.close();
  }
  input.dispose();
  return performance.now() - t0;
}

expose({
  async phases(file, rate) {
    const input = new Input({ source: new BlobSource(file), formats: ALL_FORMATS });
    const durationSec = await input.computeDuration();
    input.dispose();
    const demuxMs = await run(file, 'demux', rate);
    const decodeMs = await run(file, 'decode', rate);
    const copyMs = await run(file, 'copy', rate);
    const resampleMs = await run(file, 'resample', rate);
    const t0 = performance.now();
    await decodeWithMediabunny(file, rate, 'bench', new AbortController().signal);
    const decoderMs = performance.now() - t0;
    return { durationSec, demuxMs, decodeMs, copyMs, resampleMs, decoderMs };
  },
} satisfies AudioDecodeBenchApi);
