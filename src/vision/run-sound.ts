/**
 * A camera's own sound, stretch by stretch, for the active-speaker model: decoded from the
 * same file as its pictures (so in sync with them by construction; it hears the room, as the
 * model's training footage does), mixed to mono and resampled to 16 kHz.
 *
 * @module
 */
import { AudioSampleSink, type Input } from 'mediabunny';
import { ASD_SAMPLE_RATE } from '../analysis/faces/asd-features.ts';
import { resample } from '../analysis/signal/signal-resample.ts';
import { canDecodeAudio } from '../media/prompt-audio-decoder.ts';
import type { RunSound } from './face-probe.ts';

/** Decoded this much before and after a stretch, so the resampler's filter has its context. */
const MARGIN_S = 0.05;

/**
 * The reader of `input`'s primary audio track, or why there is none (a sentence for the
 * metrics: no track, or a codec this browser cannot decode).
 *
 * @example
 * const sound = await openRunSound(input);
 * if (typeof sound !== 'string') const mono16k = await sound(tMs, 16000); // 1 s
 */
export async function openRunSound(input: Input): Promise<RunSound | string> {
  const track = await input.getPrimaryAudioTrack();
  if (!track) return 'the camera has no audio track';
  if (!(await canDecodeAudio(track)))
    return `this browser cannot decode the camera's audio (${(await track.getCodec()) ?? 'unknown codec'})`;
  const sink = new AudioSampleSink(track);
  const inRate = await track.getSampleRate();
  return async (fromMs, samples) => {
    const from = fromMs / 1000;
    const until = from + samples / ASD_SAMPLE_RATE;
    const parts: Float32Array[] = [];
    let startS: number | undefined;
    let scratch = new Float32Array(0);
    for await (const sample of sink.samples(Math.max(0, from - MARGIN_S), until + MARGIN_S)) {
      try {
        const frames = sample.numberOfFrames;
        startS ??= sample.timestamp;
        if (scratch.length < frames) scratch = new Float32Array(frames);
        const mono = new Float32Array(frames);
        for (let c = 0; c < sample.numberOfChannels; c++) {
          sample.copyTo(scratch, { planeIndex: c, format: 'f32-planar', frameCount: frames });
          for (let i = 0; i < frames; i++) mono[i] = mono[i]! + scratch[i]! / sample.numberOfChannels;
        }
        parts.push(mono);
      } finally {
        sample.close();
      }
    }
    const out = new Float32Array(samples);
    if (startS === undefined) return out; // past the sound's end: silence
    let length = 0;
    for (const p of parts) length += p.length;
    const joined = new Float32Array(length);
    length = 0;
    for (const p of parts) {
      joined.set(p, length);
      length += p.length;
    }
    // Consecutive packets of one track: their samples follow each other from the first's time.
    const at16k = resample(joined, inRate, ASD_SAMPLE_RATE);
    const skip = Math.round((from - startS) * ASD_SAMPLE_RATE);
    for (let k = Math.max(0, -skip); k < samples && skip + k < at16k.length; k++) out[k] = at16k[skip + k]!;
    return out;
  };
}
