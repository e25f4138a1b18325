/**
 * The job's audio: the mix of the channels on the reference timeline as a mono 16-bit WAV, and
 * its quiet ranges (for silence removal); and, in the same pass, each channel's 100 ms
 * K-weighted energies (how loud each source was recorded, src/analysis/audio/recorded-levels.ts).
 * In memory, or a block at a time from channels in scratch files, with the same result.
 *
 * @module
 */
import { SourceEnergies } from '../analysis/audio/recorded-levels.ts';
import { envelopeDb, measureMix, type MixMeasures } from '../analysis/speech/energy.ts';
import { mixDown } from '../analysis/signal/signal-mix.ts';
import type { ScratchSamples, ScratchSpace } from '../media/scratch.ts';
import { monoPcm16, monoWavBlob } from '../media/wav.ts';
import { release } from './signals.ts';

/** The job's audio, what the cut planner is given of the mix (its quiet stretches), and each channel's loudness blocks. */
export interface MixedAudio {
  audio: Blob;
  mix: MixMeasures;
  /** Per channel: its 100 ms K-weighted energies, before speaker detection filters the channels. */
  energies: Float64Array[];
}

/**
 * The channels' mix as WAV (the job's audio) and its measures (quiet ranges). The mix itself is not kept:
 * with several channels it is let go before the VAD (an hour of it is 0.2 GB).
 */
export function mixOf(channels: readonly Float32Array[], sampleRate: number): MixedAudio {
  const energies = new SourceEnergies(channels.length, sampleRate);
  channels.forEach((c, i) => energies.push(i, c));
  const mix = channels.length > 1 ? mixDown(channels) : channels[0]!; // every channel is lengthMs long
  const out = {
    audio: monoWavBlob(mix, sampleRate),
    mix: measureMix(envelopeDb(mix, sampleRate)),
    energies: energies.finish(),
  };
  if (channels.length > 1) release(mix);
  return out;
}

/** Envelope frames (10 ms) mixed, written and measured at once from channels on disk. */
const MIX_BLOCK_FRAMES = 4096;

/**
 * {@link mixOf} of channels on disk, a block at a time: the same mix, WAV and measures
 * (blocks are whole envelope frames), the WAV written to the scratch folder.
 */
export async function mixOfStored(
  channels: readonly ScratchSamples[],
  sampleRate: number,
  scratch: ScratchSpace,
): Promise<MixedAudio> {
  const length = channels[0]!.length;
  const hop = Math.round(sampleRate / 100);
  const block = hop * MIX_BLOCK_FRAMES;
  const wav = await scratch.wav('mix.wav', sampleRate);
  const envelope = new Float32Array(Math.floor(length / hop));
  const energies = new SourceEnergies(channels.length, sampleRate);
  for (let at = 0; at < length; at += block) {
    const pieces = channels.map((c) => c.read(at, at + block));
    pieces.forEach((p, i) => energies.push(i, p));
    const mix = mixDown(pieces);
    wav.append(monoPcm16(mix));
    envelope.set(envelopeDb(mix, sampleRate), at / hop);
  }
  return { audio: await wav.finish(), mix: measureMix(envelope), energies: energies.finish() };
}
