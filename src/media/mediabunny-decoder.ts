/**
 * Probe and audio decode through mediabunny: demuxing in JS, decoding with WebCodecs'
 * AudioDecoder (or mediabunny's own PCM reader), reading the Blob in slices.
 *
 * @module
 */
import {
  ALL_FORMATS,
  AudioSampleSink,
  BlobSource,
  EncodedPacketSink,
  Input,
  type InputTrack,
  type InputVideoTrack,
} from 'mediabunny';
import { canDecodeAudio } from './prompt-audio-decoder.ts';
import { audioDecodable, videoDecodable, webCodecsCapability, type DecoderCapability } from './decodability.ts';
import { StreamingResampler } from '../analysis/signal/signal-resample.ts';
import { MediaAbortError, NoAudioTrackError } from './errors.ts';
import { frameRateOfTimestamps, nearestFrameRate, type DetectedFrameRate } from './frame-rate.ts';
import { MonoWriter, type MonoOutput } from './mono-writer.ts';
import type { AudioRange, DecodedAudio, MediaProbe, MediaProgress, StreamInfo } from './protocol.ts';
import { taggedTimecode, tmcdTimecode } from './timecode.ts';

/** Thrown (internally) when mediabunny cannot handle the input, so the caller may fall back. */
export class MediabunnyUnsupported extends Error {
  override readonly name = 'MediabunnyUnsupported';
}

function openInput(blob: Blob): Input {
  return new Input({ source: new BlobSource(blob), formats: ALL_FORMATS });
}

/**
 * Probes `blob`; throws {@link MediabunnyUnsupported} when the format is not recognised. Each
 * stream's `decodable` is what `capability` (the browser's WebCodecs) says of its decoder config.
 */
export async function probeWithMediabunny(
  blob: Blob,
  signal: AbortSignal,
  capability: DecoderCapability = webCodecsCapability,
): Promise<MediaProbe> {
  const input = openInput(blob);
  try {
    const probe = await probeInput(input, signal, capability);
    const timecode = await startTimecode(blob, input, probe).catch(() => null); // a damaged tmcd is no timecode
    return timecode ? { ...probe, timecode } : probe;
  } finally {
    input.dispose();
  }
}

/** The start timecode: MP4/MOV from the `tmcd` track, Matroska/WebM from a `TIMECODE` tag. */
async function startTimecode(blob: Blob, input: Input, probe: MediaProbe): Promise<MediaProbe['timecode'] | null> {
  if (/mp4|quicktime|mov/i.test(probe.container)) {
    const read = async (at: number, length: number): Promise<Uint8Array> =>
      new Uint8Array(await blob.slice(at, Math.min(blob.size, at + length)).arrayBuffer());
    return tmcdTimecode(read, blob.size);
  }
  if (/matroska|webm/i.test(probe.container)) {
    const raw = (await input.getMetadataTags()).raw ?? {};
    const key = Object.keys(raw).find((k) => k.toUpperCase() === 'TIMECODE');
    const tag = key === undefined ? undefined : raw[key];
    return typeof tag === 'string' ? taggedTimecode(tag, probe.video?.frameRateExact ?? null) : null;
  }
  return null;
}

/** Packets whose timestamps give the frame rate: about 8 s at 30 fps, read without their data. */
const RATE_PACKETS = 240;

/**
 * The video track's exact frame rate from its first packets' timestamps (mediabunny's average
 * when they give none); a variable-rate track gets its nominal whole rate. The probe and the
 * render's default output rate both use it.
 */
export async function detectFrameRate(v: InputVideoTrack): Promise<DetectedFrameRate | null> {
  const timestamps: number[] = [];
  const sink = new EncodedPacketSink(v);
  for await (const packet of sink.packets(undefined, undefined, { metadataOnly: true })) {
    timestamps.push(packet.timestamp);
    if (timestamps.length >= RATE_PACKETS) break;
  }
  const detected = frameRateOfTimestamps(timestamps, await v.getTimeResolution());
  if (detected) return detected;
  const stats = await v.computePacketStats(RATE_PACKETS);
  return stats.averagePacketRate > 0 ? { rate: nearestFrameRate(stats.averagePacketRate), variable: false } : null;
}

/** The container's own codec name, as text (a WAVE format tag or MPEG-TS stream type is a number). */
async function codecIdOf(track: InputTrack): Promise<{ codecId?: string }> {
  const id = await track.getInternalCodecId().catch(() => null);
  return typeof id === 'string' || typeof id === 'number' ? { codecId: String(id) } : {};
}

async function probeInput(input: Input, signal: AbortSignal, capability: DecoderCapability): Promise<MediaProbe> {
  let format;
  try {
    format = await input.getFormat();
  } catch (e) {
    throw new MediabunnyUnsupported(`format not recognised (${(e as Error).message})`);
  }
  signal.throwIfAborted();
  const tracks = await input.getTracks();
  // A recognised container with no tracks is damaged (e.g. an MP4 cut before its index); let
  // ffmpeg.wasm have a go, then report it unreadable.
  if (tracks.length === 0) throw new MediabunnyUnsupported(`${format.name} container with no readable tracks`);
  const streams: StreamInfo[] = [];
  for (const t of tracks) {
    streams.push({
      type: t.isVideoTrack() ? 'video' : t.isAudioTrack() ? 'audio' : 'other',
      codec: (await t.getCodec()) ?? null,
    });
  }
  const durationSec = await input.computeDuration();
  signal.throwIfAborted();
  const v = await input.getPrimaryVideoTrack();
  const a = await input.getPrimaryAudioTrack();
  let video: MediaProbe['video'] = null;
  if (v) {
    const detected = await detectFrameRate(v);
    video = {
      codec: (await v.getCodec()) ?? null,
      ...(await codecIdOf(v)),
      decodable: await videoDecodable(v, capability),
      width: await v.getDisplayWidth(),
      height: await v.getDisplayHeight(),
      rotation: await v.getRotation(),
      frameRate: detected ? detected.rate.num / detected.rate.den : null,
      frameRateExact: detected?.rate ?? null,
      variableFrameRate: detected?.variable ?? false,
    };
  }
  const audio: MediaProbe['audio'] = a
    ? {
        codec: (await a.getCodec()) ?? null,
        ...(await codecIdOf(a)),
        decodable: await audioDecodable(a, capability),
        sampleRate: await a.getSampleRate(),
        channels: await a.getNumberOfChannels(),
      }
    : null;
  return {
    engine: 'mediabunny',
    container: format.name,
    mimeType: await input.getMimeType().catch(() => format.mimeType),
    durationMs: durationSec * 1000,
    video,
    audio,
    streams,
  };
}

/**
 * Decodes the primary audio track to mono at `sampleRate`, slice by slice: each decoded
 * AudioSample is downmixed and pushed through a streaming resampler, then closed, so memory
 * holds the output and a few slices, never the file. With `range`, only that stretch is read
 * (the demuxer seeks to it): `samples[0]` is at `range.startMs`. With `output`, the samples go
 * there (a file, say) instead of into memory.
 */
export async function decodeWithMediabunny(
  blob: Blob,
  sampleRate: number,
  label: string,
  signal: AbortSignal,
  onProgress?: (p: MediaProgress) => void,
  range?: AudioRange,
  output?: MonoOutput,
): Promise<DecodedAudio> {
  const input = openInput(blob);
  try {
    return await decodeInput(input, sampleRate, label, signal, onProgress, range, output);
  } finally {
    input.dispose();
  }
}

async function decodeInput(
  input: Input,
  sampleRate: number,
  label: string,
  signal: AbortSignal,
  onProgress?: (p: MediaProgress) => void,
  range?: AudioRange,
  output?: MonoOutput,
): Promise<DecodedAudio> {
  try {
    await input.getFormat();
  } catch (e) {
    throw new MediabunnyUnsupported(`format not recognised (${(e as Error).message})`);
  }
  const track = await input.getPrimaryAudioTrack();
  if (!track && (await input.getTracks()).length === 0)
    throw new MediabunnyUnsupported('container with no readable tracks');
  if (!track) throw new NoAudioTrackError(`${label}: the file has no audio track`);
  if (!(await canDecodeAudio(track)))
    throw new MediabunnyUnsupported(`this browser cannot decode ${(await track.getCodec()) ?? 'the audio codec'}`);
  const fullSec = await input.computeDuration();
  const startSec = range ? Math.min(range.startMs / 1000, fullSec) : 0;
  const endSec = range ? Math.min(range.endMs / 1000, fullSec) : fullSec;
  const durationSec = endSec - startSec;
  const inRate = await track.getSampleRate();
  const resampler = inRate === sampleRate ? null : new StreamingResampler(inRate, sampleRate);
  const out = output ?? new MonoWriter(Math.ceil(durationSec * sampleRate) + sampleRate);
  const sink = new AudioSampleSink(track);
  let scratch = new Float32Array(0);
  let mix = new Float32Array(0);
  // Input-rate frames written so far, on the media timeline (a range starts at its start).
  let nextInputFrame = Math.round(startSec * inRate);
  const firstFrame = nextInputFrame;
  let lastReport = 0;
  const maxFrame = range ? Math.round(endSec * inRate) : Math.ceil((fullSec + 1) * inRate);
  for await (const sample of range ? sink.samples(startSec, endSec) : sink.samples()) {
    try {
      if (signal.aborted) throw new MediaAbortError(`${label}: audio decoding was cancelled`);
      const frames = sample.numberOfFrames;
      const channels = sample.numberOfChannels;
      if (mix.length < frames) {
        mix = new Float32Array(frames);
        scratch = new Float32Array(frames);
      }
      const m = mix.subarray(0, frames);
      m.fill(0);
      for (let c = 0; c < channels; c++) {
        sample.copyTo(scratch, { planeIndex: c, format: 'f32-planar', frameCount: frames });
        for (let i = 0; i < frames; i++) m[i]! += scratch[i]!;
      }
      if (channels > 1) for (let i = 0; i < frames; i++) m[i]! /= channels;
      // Place the slice at its timestamp: pad a late start (or a gap) with silence, drop what
      // lies before media time 0 (codec priming) or overlaps what is already written. A frame or
      // two of rounding jitter is ignored (the next slice is compared with its own timestamp, so
      // nothing accumulates); a gap never extends past the container's duration.
      const startFrame = Math.min(Math.round(sample.timestamp * inRate), maxFrame);
      let slice = m;
      if (startFrame > nextInputFrame + 2) {
        pushInput(new Float32Array(startFrame - nextInputFrame));
        nextInputFrame = startFrame;
      } else if (startFrame < nextInputFrame - 2) {
        const skip = Math.min(frames, nextInputFrame - startFrame);
        slice = m.subarray(skip);
      }
      pushInput(slice);
      nextInputFrame += slice.length;
      const mediaMs = (sample.timestamp + sample.duration) * 1000;
      if (onProgress && mediaMs - lastReport >= 1000) {
        lastReport = mediaMs;
        const done = mediaMs / 1000 - startSec;
        onProgress({ fraction: durationSec > 0 ? Math.max(0, Math.min(1, done / durationSec)) : 0, mediaMs });
      }
    } finally {
      sample.close();
    }
  }
  if (resampler) out.write(resampler.flush());
  onProgress?.({ fraction: 1, mediaMs: endSec * 1000 });
  // A range ends at its end: the last packet may run past it.
  const wanted = Math.round(((maxFrame - firstFrame) / inRate) * sampleRate);
  return { engine: 'mediabunny', samples: out.finish(range ? wanted : Infinity), sampleRate };

  function pushInput(x: Float32Array): void {
    // `out` copies what it is given, so the reused scratch buffers are safe to pass.
    out.write(resampler ? resampler.push(x) : x);
  }
}
