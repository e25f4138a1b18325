/**
 * `renderEdit`: renders the current cuts minus the removed ranges to one video file, inside
 * the browser. Frames come from each cut's source at the synced time, decoded forward through
 * each segment with mediabunny (WebCodecs), re-timed as they are when already the output size, else scaled onto an OffscreenCanvas,
 * and encoded with WebCodecs (H.264 by default; VP9/AV1 on request), or by ffmpeg.wasm's libx264
 * where the browser has no H.264 encoder (src/render/x264-ffmpeg.ts). Audio is the mix of the
 * audio sources with equal-power crossfades at every join (src/render/audio-mix.ts), encoded
 * along the way to AAC-LC (WebCodecs where the browser has an AAC encoder, else the bundled
 * WebAssembly encoder `@mediabunny/aac-encoder`) or, when asked, to Opus. mediabunny muxes to
 * MP4 without fast start (or WebM) and streams the file to the caller's sink in chunks.
 *
 * @module
 */
import {
  ALL_FORMATS,
  AudioSample,
  AudioSampleSource,
  BlobSource,
  EncodedPacket,
  EncodedVideoPacketSource,
  Input,
  Mp4OutputFormat,
  Output,
  StreamTarget,
  VideoSample,
  VideoSampleSink,
  VideoSampleSource,
  WebMOutputFormat,
  canEncodeVideo,
  type InputVideoTrack,
  type StreamTargetChunk,
} from 'mediabunny';
import type { ClockMapping } from '../analysis/sync/sync.ts';
import { toSourceTime } from '../analysis/sync/sync.ts';
import { SOURCE_GAIN_RANGE } from '../contract/types.ts';
import { detectFrameRate } from '../media/mediabunny-decoder.ts';
import { canDecodeAudio } from '../media/prompt-audio-decoder.ts';
import { planAudio, type AudioPlan } from './audio-plan.ts';
import { AudioMixer, masteringOf, OUTPUT_SAMPLE_RATE, SourceAudioReader } from './audio-mix.ts';
import { FfmpegH264Encoder } from './x264-ffmpeg.ts';
import { frameReferenceTime, planRender, RenderPlanError, type RenderPlan } from './plan.ts';
import type { RenderOutputOptions, RenderProgress, RenderRequest, RenderResult, RenderSink } from './protocol.ts';

/** A render failed; the message names the field or file at fault. */
export class RenderError extends Error {
  override readonly name = 'RenderError';
}

/** The render was cancelled by its AbortSignal. */
export class RenderAbortError extends Error {
  override readonly name = 'AbortError';
}

/** Everything {@link renderEdit} takes. */
export interface RenderEditInput extends RenderRequest {
  sink: RenderSink;
  onProgress?: (p: RenderProgress) => void;
  signal?: AbortSignal;
}

/** Seconds of audio the muxer is kept ahead of the video, so tracks interleave. */
const AUDIO_LEAD_SEC = 0.5;
/** Audio produced per step, samples (1 s). */
const AUDIO_CHUNK = OUTPUT_SAMPLE_RATE;

/**
 * H.264 High profile at the lowest level that fits the frame size and rate
 * (3.1 for 720p30, 4.0 for 1080p30, 4.2 for 1080p60, 5.1 above).
 */
export function avcCodecString(width: number, height: number, fps: number): string {
  const mbs = Math.ceil(width / 16) * Math.ceil(height / 16);
  const rate = mbs * fps;
  const levels: Array<[number, number, string]> = [
    [3600, 108_000, '1f'], // 3.1
    [8192, 245_760, '28'], // 4.0
    [8704, 522_240, '2a'], // 4.2
    [22_080, 589_824, '32'], // 5.0
    [36_864, 983_040, '33'], // 5.1
  ];
  for (const [maxFs, maxRate, hex] of levels) if (mbs <= maxFs && rate <= maxRate) return `avc1.6400${hex}`;
  return 'avc1.640034';
}

/**
 * Renders the edit and streams the file into `sink`.
 *
 * @example
 * const result = await renderEdit({ cuts, removedRanges, sources, sink, onProgress: (p) => bar(p.fraction), signal });
 */
export async function renderEdit(input: RenderEditInput): Promise<RenderResult> {
  const t0 = performance.now();
  const signal = input.signal ?? new AbortController().signal;
  const report = input.onProgress ?? (() => undefined);
  const checkAbort = () => {
    if (signal.aborted) throw new RenderAbortError('render cancelled');
  };
  const o = input.output ?? {};
  const { container, videoCodec } = checkRenderInput(input);
  const sources = new SourceInputs(input);
  const disposers: Array<() => Promise<void> | void> = [];
  let output: Output | null = null;
  let sinkDone = false;
  try {
    report({ fraction: 0, stage: 'starting', frames: 0 });
    const { plan, videoTracks, fps } = await planWithTracks(input, sources);
    const video = await chooseVideoEncoding(o, videoCodec, videoTracks.get(plan.mainSourceId!)!, fps, input.ffmpeg);
    const readers = await openAudioReaders(input, sources, [...videoTracks.keys()]);
    disposers.push(() => Promise.all(readers.map((r) => r.dispose())).then(() => undefined));
    const mixer =
      readers.length > 0
        ? new AudioMixer(
            readers,
            plan.audio,
            plan.keptMs,
            input.audio ? masteringOf(input.audio) : null,
            input.audioGains ?? {},
          )
        : null;
    await mixer?.prepare(checkAbort);
    const audioPlan = mixer ? await chooseAudio(container, o, mixer.channels) : null;
    const target = await streamTarget(input.sink);
    output = new Output({
      format:
        container === 'mp4'
          ? new Mp4OutputFormat({ fastStart: target.sequential ? 'fragmented' : false })
          : new WebMOutputFormat(),
      target: target.target,
    });
    // A fragmented MP4 goes out head first, before its length is known: this tag's udta box is
    // the room the rendering stage rewrites into an mehd once the file is whole (src/media/fmp4-duration.ts).
    if (container === 'mp4' && target.sequential)
      output.setMetadataTags({ comment: 'Edited by multicam in the browser' });
    const writer = video.useFfmpeg
      ? ffmpegVideoWriter(output, video, fps, input, signal, disposers)
      : webCodecsVideoWriter(output, video, videoCodec, fps);
    const steps = { signal, report, checkAbort, disposers };
    const audio =
      !mixer || !audioPlan ? NO_AUDIO : streamingAudioWriter(output, mixer, audioPlan, o.audioBitrate ?? 128_000);
    await output.start();
    const framesDone = await renderFrames(plan, videoTracks, sources.clocks, fps, writer, audio, steps);
    await writer.finish();
    await audio.pump(Infinity);
    audio.close();
    report({ fraction: 0.99, stage: 'finalizing', frames: framesDone });
    await output.finalize();
    sinkDone = true;
    await input.sink.close();
    report({ fraction: 1, stage: 'done', frames: framesDone });
    return {
      container,
      mimeType: container === 'mp4' ? 'video/mp4' : 'video/webm',
      width: video.width,
      height: video.height,
      fps,
      videoCodec,
      videoEncoder: video.useFfmpeg ? 'ffmpeg.wasm' : 'webcodecs',
      videoCodecString: writer.codecString(),
      audioCodec: audioPlan?.codec ?? null,
      audioEncoder: audio.encoder,
      loudness: mixer ? mixer.loudness() : null,
      levels: mixer ? mixer.levels() : null,
      frames: framesDone,
      durationMs: plan.durationMs,
      keptMs: plan.keptMs,
      bytes: target.bytes(),
      segments: plan.segments.map((s) => ({ outStartMs: s.outStartMs, outEndMs: s.outEndMs, sourceId: s.sourceId })),
      joinsMs: plan.audio.slice(1).map((r) => r.outStartMs),
      elapsedMs: performance.now() - t0,
    };
  } catch (e) {
    if (output && output.state !== 'finalized' && output.state !== 'canceled')
      await output.cancel().catch(() => undefined);
    if (!sinkDone) await input.sink.abort?.(e instanceof Error ? e.message : String(e));
    if (signal.aborted) throw new RenderAbortError('render cancelled');
    throw e;
  } finally {
    for (const d of disposers) await Promise.resolve(d()).catch(() => undefined);
    sources.dispose();
  }
}

/** What the steps of a render share: cancellation, progress and the clean-ups to run at the end. */
interface RenderSteps {
  signal: AbortSignal;
  report: (p: RenderProgress) => void;
  checkAbort: () => void;
  disposers: Array<() => Promise<void> | void>;
}

/** The container and codecs of the output, after checking the request's options and sources. */
function checkRenderInput(input: RenderEditInput): {
  container: RenderResult['container'];
  videoCodec: RenderResult['videoCodec'];
} {
  const o = input.output ?? {};
  const container = o.container ?? 'mp4';
  if (container !== 'mp4' && container !== 'webm')
    throw new RenderError(`output.container must be mp4 or webm (got ${String(container)})`);
  const videoCodec = o.videoCodec ?? (container === 'webm' ? 'vp9' : 'avc');
  if (!['avc', 'vp9', 'av1'].includes(videoCodec))
    throw new RenderError(`output.videoCodec must be avc, vp9 or av1 (got ${String(videoCodec)})`);
  if (container === 'webm' && videoCodec === 'avc')
    throw new RenderError('output.videoCodec: a webm output takes vp9 or av1');
  const audioCodec = o.audioCodec;
  if (audioCodec !== undefined && audioCodec !== 'aac' && audioCodec !== 'opus')
    throw new RenderError(`output.audioCodec must be aac or opus (got ${String(audioCodec)})`);
  if (container === 'webm' && audioCodec === 'aac')
    throw new RenderError('output.audioCodec: a webm output takes opus');
  if (input.ffmpeg !== undefined && typeof input.ffmpeg.wasmBase !== 'string')
    throw new RenderError('ffmpeg.wasmBase must be the URL of the folder that holds ffmpeg-core/');

  input.sources.forEach((src, i) => {
    if (!(src.blob instanceof Blob)) throw new RenderError(`sources[${i}].blob must be a Blob`);
    if (!Number.isFinite(src.offsetMs))
      throw new RenderError(`sources[${i}].offsetMs must be a finite number (got ${src.offsetMs})`);
    if (!(Number.isFinite(src.driftPpm) && Math.abs(src.driftPpm) < 10_000))
      throw new RenderError(`sources[${i}].driftPpm must be a number from -10000 to 10000 (got ${src.driftPpm})`);
  });
  input.audioSourceIds?.forEach((id, i) => {
    if (!input.sources.some((src) => src.id === id)) throw new RenderError(`audioSourceIds[${i}]: no source "${id}"`);
  });
  for (const [id, gain] of Object.entries(input.audioGains ?? {})) {
    if (!input.sources.some((src) => src.id === id)) throw new RenderError(`audioGains.${id}: no source "${id}"`);
    const [min, max] = SOURCE_GAIN_RANGE;
    if (gain !== 'mute' && !(typeof gain === 'number' && gain >= min && gain <= max))
      throw new RenderError(`audioGains.${id} must be a number from ${min} to ${max} (dB) or "mute"`);
  }
  return { container, videoCodec };
}

/** Whether WebCodecs encodes AAC-LC at the output rate with `channels` here. */
async function canEncodeAacWithWebCodecs(channels: number, bitrate: number): Promise<boolean> {
  if (typeof AudioEncoder === 'undefined') return false;
  try {
    const { supported } = await AudioEncoder.isConfigSupported({
      codec: 'mp4a.40.2',
      sampleRate: OUTPUT_SAMPLE_RATE,
      numberOfChannels: channels,
      bitrate,
    });
    return supported === true;
  } catch {
    return false;
  }
}

/**
 * The audio codec and encoder (src/render/audio-plan.ts), or a RenderError saying why none fits
 * the request. Where the plan takes the WebAssembly AAC encoder, it is loaded and registered
 * with mediabunny here: registered encoders take precedence over WebCodecs in this worker, so
 * only a browser without an AAC encoder of its own registers it.
 */
async function chooseAudio(
  container: RenderResult['container'],
  o: RenderOutputOptions,
  channels: number,
): Promise<AudioPlan> {
  const webCodecsAac =
    container === 'mp4' && o.audioCodec !== 'opus'
      ? await canEncodeAacWithWebCodecs(channels, o.audioBitrate ?? 128_000)
      : false;
  const plan = planAudio({ container, requested: o.audioCodec, webCodecsAac });
  if (typeof plan === 'string') throw new RenderError(plan);
  if (plan.encoder === 'aac-wasm') {
    const { registerAacEncoder } = await import('@mediabunny/aac-encoder');
    registerAacEncoder();
  }
  return plan;
}

/** The sources of a render: each file opened once (a file mediabunny cannot read is named), and each one's clock. */
class SourceInputs {
  readonly byId: Map<string, { s: RenderEditInput['sources'][number]; i: number }>;
  readonly clocks: Map<string, ClockMapping>;
  private readonly inputs = new Map<string, Input>();
  constructor(input: RenderEditInput) {
    this.byId = new Map(input.sources.map((s, i) => [s.id, { s, i }]));
    this.clocks = new Map<string, ClockMapping>(
      input.sources.map((s) => [s.id, { offsetMs: s.offsetMs, driftPpm: s.driftPpm }]),
    );
  }

  /** The index of source `id` in the request. */
  indexOf(id: string): number {
    return this.byId.get(id)!.i;
  }

  async open(id: string): Promise<Input> {
    const found = this.byId.get(id);
    if (!found) throw new RenderError(`sources: no source "${id}"`);
    let inp = this.inputs.get(id);
    if (!inp) {
      inp = new Input({ source: new BlobSource(found.s.blob), formats: ALL_FORMATS });
      try {
        await inp.getFormat();
      } catch (e) {
        throw new RenderError(`sources[${found.i}] (${id}): the file cannot be read (${(e as Error).message})`);
      }
      this.inputs.set(id, inp);
    }
    return inp;
  }

  dispose(): void {
    for (const inp of this.inputs.values()) inp.dispose();
  }
}

/**
 * The render plan at the output rate, and the video track of every cut source. The plan is
 * made at a provisional rate first to find the main camera, whose rate is the default.
 */
async function planWithTracks(
  input: RenderEditInput,
  sources: SourceInputs,
): Promise<{ plan: RenderPlan; videoTracks: Map<string, InputVideoTrack>; fps: number }> {
  const o = input.output ?? {};
  const planAt = (fps: number): RenderPlan =>
    planRender(input.cuts, input.removedRanges, {
      fps,
      clocks: sources.clocks,
      ...(o.fadeMs !== undefined ? { fadeMs: o.fadeMs } : {}),
    });
  let plan: RenderPlan;
  try {
    plan = planAt(o.fps ?? 30);
  } catch (e) {
    if (e instanceof RenderPlanError) throw new RenderError(e.message);
    throw e;
  }
  if (plan.frameCount === 0 || plan.mainSourceId === null)
    throw new RenderError('cuts: nothing to render (the cuts minus the removed ranges are empty)');
  const videoTracks = new Map<string, InputVideoTrack>();
  for (const seg of plan.segments) {
    if (videoTracks.has(seg.sourceId)) continue;
    const track = await (await sources.open(seg.sourceId)).getPrimaryVideoTrack();
    const i = sources.indexOf(seg.sourceId);
    if (!track) throw new RenderError(`sources[${i}] (${seg.sourceId}): a cut names it but it has no video track`);
    if (!(await track.canDecode()))
      throw new RenderError(
        `sources[${i}] (${seg.sourceId}): this browser cannot decode its video (${(await track.getCodec()) ?? 'unknown codec'})`,
      );
    videoTracks.set(seg.sourceId, track);
  }
  const main = videoTracks.get(plan.mainSourceId)!;
  let fps = o.fps;
  if (fps === undefined) {
    // The main camera's exact rate (30000/1001, not 29.97), as the probe and the exports read it;
    // a variable-rate camera its nominal whole rate (its average, 26.67 fps for a phone dropping
    // frames, is no rate a player or an editor expects), its frames picked by timestamp.
    const detected = await detectFrameRate(main);
    fps = detected ? detected.rate.num / detected.rate.den : 30;
  }
  if (fps !== (o.fps ?? 30)) plan = planAt(fps);
  return { plan, videoTracks, fps };
}

/** The output frame and how the video is encoded. */
interface VideoEncoding {
  width: number;
  height: number;
  /** The full codec string (H.264 only). */
  codecString: string | undefined;
  bitrate: number;
  /** ffmpeg.wasm's libx264 instead of WebCodecs. */
  useFfmpeg: boolean;
}

/** Output size (the main camera's by default), bitrate, and WebCodecs or the ffmpeg.wasm fallback. */
async function chooseVideoEncoding(
  o: RenderOutputOptions,
  videoCodec: RenderResult['videoCodec'],
  main: InputVideoTrack,
  fps: number,
  ffmpeg: RenderRequest['ffmpeg'],
): Promise<VideoEncoding> {
  const width = even(o.width ?? (await main.getDisplayWidth()));
  const height = even(o.height ?? (await main.getDisplayHeight()));
  if (!(width >= 16 && width <= 7680 && height >= 16 && height <= 4320))
    throw new RenderError(`output.width and output.height must be from 16×16 to 7680×4320 (got ${width}×${height})`);
  const codecString = videoCodec === 'avc' ? avcCodecString(width, height, fps) : undefined;
  const videoBitrate = o.videoBitrate ?? Math.round(width * height * fps * 0.1);
  const videoEncoderChoice = o.videoEncoder ?? 'auto';
  if (!['auto', 'webcodecs', 'ffmpeg.wasm'].includes(videoEncoderChoice))
    throw new RenderError(
      `output.videoEncoder must be auto, webcodecs or ffmpeg.wasm (got ${String(videoEncoderChoice)})`,
    );
  let useFfmpegVideo = videoEncoderChoice === 'ffmpeg.wasm';
  if (
    !useFfmpegVideo &&
    !(await canEncodeVideo(videoCodec, {
      width,
      height,
      bitrate: videoBitrate,
      ...(codecString ? { fullCodecString: codecString } : {}),
    }))
  ) {
    if (videoEncoderChoice === 'auto' && videoCodec === 'avc' && ffmpeg) useFfmpegVideo = true;
    else if (videoEncoderChoice === 'auto' && videoCodec === 'avc')
      throw new RenderError(
        `output.videoCodec: this browser cannot encode ${codecString} at ${width}×${height}, and the app did not enable the optional ffmpeg core (its libx264 is the fallback): enable the core, or render webm (vp9)`,
      );
    else
      throw new RenderError(
        `output.videoCodec: this browser cannot encode ${codecString ?? videoCodec} at ${width}×${height}`,
      );
  }
  if (useFfmpegVideo && videoCodec !== 'avc')
    throw new RenderError('output.videoEncoder: the ffmpeg.wasm fallback encodes avc (H.264) only');
  if (useFfmpegVideo && !ffmpeg)
    throw new RenderError('output.videoEncoder ffmpeg.wasm: the app did not enable the optional ffmpeg core');
  return { width, height, codecString, bitrate: videoBitrate, useFfmpeg: useFfmpegVideo };
}

/** Audio sources: the given ones, else every audio-only source, else the cut cameras; each one's reader. */
async function openAudioReaders(
  input: RenderEditInput,
  sources: SourceInputs,
  cutCameraIds: readonly string[],
): Promise<SourceAudioReader[]> {
  const audioIds =
    input.audioSourceIds && input.audioSourceIds.length > 0
      ? input.audioSourceIds
      : input.sources.some((s) => s.kind === 'audio')
        ? input.sources.filter((s) => s.kind === 'audio').map((s) => s.id)
        : cutCameraIds;
  const readers: SourceAudioReader[] = [];
  for (const id of audioIds) {
    const track = await (await sources.open(id)).getPrimaryAudioTrack();
    if (!track) {
      if (input.audioSourceIds?.includes(id))
        throw new RenderError(`audioSourceIds: source "${id}" has no audio track`);
      continue;
    }
    if (!(await canDecodeAudio(track)))
      throw new RenderError(`sources[${sources.indexOf(id)}] (${id}): this browser cannot decode its audio`);
    readers.push(
      new SourceAudioReader(
        track,
        await track.getSampleRate(),
        Math.min(2, await track.getNumberOfChannels()),
        sources.clocks.get(id)!,
        id,
      ),
    );
  }
  return readers;
}

/** Output: positioned writes straight to the sink, in chunks of 4 MiB; how many bytes it got. */
async function streamTarget(
  sink: RenderSink,
): Promise<{ target: StreamTarget; sequential: boolean; bytes: () => number }> {
  let bytes = 0;
  const writable = new WritableStream<StreamTargetChunk>({
    async write(chunk) {
      bytes = Math.max(bytes, chunk.position + chunk.data.byteLength);
      await sink.write(chunk.data, chunk.position);
    },
  });
  // Read through `await`: across comlink the sink is a proxy and its properties are promises.
  const sequential = (await (sink.sequential as unknown)) === true;
  const target = new StreamTarget(writable, { chunked: true, chunkSize: 4 * 1024 * 1024 });
  return { target, sequential, bytes: () => bytes };
}

/** The video track of the output: frames in, the codec string it ended up with. */
interface VideoWriter {
  /** Adds output frame `k` showing `frame` (black when null). */
  addFrame(frame: VideoSample | null, k: number): Promise<void>;
  finish(): Promise<void>;
  codecString(): string;
}

/** A 2D canvas of the output size. */
function outputCanvas(
  width: number,
  height: number,
  readBack: boolean,
): { canvas: OffscreenCanvas; ctx: OffscreenCanvasRenderingContext2D } {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d', { alpha: false, willReadFrequently: readBack });
  if (!ctx) throw new RenderError('OffscreenCanvas 2D context is not available in this browser');
  return { canvas, ctx };
}

/** The video track encoded by ffmpeg.wasm's libx264: every frame goes through the canvas as RGBA. */
function ffmpegVideoWriter(
  output: Output,
  video: VideoEncoding,
  fps: number,
  input: RenderEditInput,
  signal: AbortSignal,
  disposers: Array<() => Promise<void> | void>,
): VideoWriter {
  const { width, height } = video;
  const { ctx } = outputCanvas(width, height, true);
  const frameSec = 1 / fps;
  let usedCodecString = video.codecString ?? 'avc';
  const x264 = new FfmpegH264Encoder(width, height, fps, video.bitrate, input.ffmpeg!.wasmBase);
  disposers.push(() => x264.dispose());
  const packetSource = new EncodedVideoPacketSource('avc');
  output.addVideoTrack(packetSource, { frameRate: fps });
  let firstPacket = true;
  const addPackets = async (packets: Awaited<ReturnType<FfmpegH264Encoder['flush']>>) => {
    for (const p of packets) {
      const meta = firstPacket && x264.decoderConfig ? { decoderConfig: x264.decoderConfig } : undefined;
      await packetSource.add(new EncodedPacket(p.data, p.key ? 'key' : 'delta', p.frame * frameSec, frameSec), meta);
      firstPacket = false;
    }
    if (x264.decoderConfig) usedCodecString = x264.decoderConfig.codec;
  };
  return {
    addFrame: async (frame) => {
      // libx264 takes raw RGBA: every frame goes through the canvas.
      ctx.fillStyle = '#000';
      ctx.fillRect(0, 0, width, height);
      if (frame) frame.drawWithFit(ctx, { fit: 'contain' });
      await addPackets(await x264.add(ctx.getImageData(0, 0, width, height).data, signal));
    },
    finish: async () => {
      await addPackets(await x264.flush(signal));
      packetSource.close();
    },
    codecString: () => usedCodecString,
  };
}

/** The video track encoded by WebCodecs: frames of the output size re-timed, others drawn onto the canvas. */
function webCodecsVideoWriter(
  output: Output,
  video: VideoEncoding,
  videoCodec: RenderResult['videoCodec'],
  fps: number,
): VideoWriter {
  const { width, height, codecString } = video;
  const { canvas, ctx } = outputCanvas(width, height, false);
  const frameSec = 1 / fps;
  const videoSource = new VideoSampleSource({
    codec: videoCodec,
    bitrate: video.bitrate,
    keyFrameInterval: 2,
    latencyMode: 'quality',
    ...(codecString ? { fullCodecString: codecString } : {}),
  });
  output.addVideoTrack(videoSource, { frameRate: fps });
  return {
    addFrame: async (current, k) => {
      let frame: VideoSample;
      if (
        current &&
        current.displayWidth === width &&
        current.displayHeight === height &&
        current.rotation === 0 &&
        !current.flip
      ) {
        // Already the output size: re-time the decoded frame itself (no copy through a canvas).
        frame = current.clone();
        frame.setTimestamp(k * frameSec);
        frame.setDuration(frameSec);
      } else {
        ctx.fillStyle = '#000';
        ctx.fillRect(0, 0, width, height);
        if (current) current.drawWithFit(ctx, { fit: 'contain' });
        frame = new VideoSample(canvas, { timestamp: k * frameSec, duration: frameSec });
      }
      try {
        await videoSource.add(frame);
      } finally {
        frame.close();
      }
    },
    finish: async () => videoSource.close(),
    codecString: () => codecString ?? videoCodec,
  };
}

/** The audio track of the output: who encodes it, and packets fed up to a given output time. */
interface AudioWriter {
  encoder: RenderResult['audioEncoder'];
  /** Adds the audio up to `untilSec` of output time. */
  pump(untilSec: number): Promise<void>;
  close(): void;
}

/** No audio source: no audio track. */
const NO_AUDIO: AudioWriter = { encoder: null, pump: async () => undefined, close: () => undefined };

/**
 * FFmpeg's AAC encoder (the WebAssembly one) primes with 1024 samples, and
 * `@mediabunny/aac-encoder` stamps its packets from the first sample's time on: the mix is fed
 * that much early, so the priming packet lies before 0 and the muxer trims it with an edit
 * list (also in a fragmented MP4): output time t is mix sample t·48 000, as the video is.
 */
const WASM_AAC_PRIMING_SEC = 1024 / OUTPUT_SAMPLE_RATE;

/** The audio track, the mix encoded along the way (WebCodecs, or the WebAssembly AAC encoder). */
function streamingAudioWriter(output: Output, mixer: AudioMixer, plan: AudioPlan, audioBitrate: number): AudioWriter {
  const source = new AudioSampleSource({ codec: plan.codec, bitrate: audioBitrate });
  output.addAudioTrack(source);
  const shift = plan.encoder === 'aac-wasm' ? WASM_AAC_PRIMING_SEC : 0;
  const pump = async (untilSec: number): Promise<void> => {
    while (!mixer.done && mixer.position / OUTPUT_SAMPLE_RATE <= untilSec) {
      const ts = mixer.position / OUTPUT_SAMPLE_RATE - shift;
      const planes = await mixer.next(AUDIO_CHUNK);
      const n = planes[0]!.length;
      const data = new Float32Array(n * planes.length);
      planes.forEach((p, c) => data.set(p, c * n));
      const sample = new AudioSample({
        data,
        format: 'f32-planar',
        numberOfChannels: planes.length,
        sampleRate: OUTPUT_SAMPLE_RATE,
        timestamp: ts,
      });
      try {
        await source.add(sample);
      } finally {
        sample.close();
      }
    }
  };
  return { encoder: plan.encoder, pump, close: () => source.close() };
}

/**
 * Every output frame, segment by segment: each segment's source decoded forward from the
 * frame shown at its start, the audio kept {@link AUDIO_LEAD_SEC} ahead. Returns the frame count.
 */
async function renderFrames(
  plan: RenderPlan,
  videoTracks: ReadonlyMap<string, InputVideoTrack>,
  clocks: ReadonlyMap<string, ClockMapping>,
  fps: number,
  writer: VideoWriter,
  audio: AudioWriter,
  steps: RenderSteps,
): Promise<number> {
  const { report, checkAbort } = steps;
  const frameSec = 1 / fps;
  let framesDone = 0;
  const sinks = new Map<string, VideoSampleSink>();
  for (const seg of plan.segments) {
    checkAbort();
    const track = videoTracks.get(seg.sourceId)!;
    let sink = sinks.get(seg.sourceId);
    if (!sink) {
      sink = new VideoSampleSink(track);
      sinks.set(seg.sourceId, sink);
    }
    const clock = clocks.get(seg.sourceId)!;
    // Decode forward through the segment: one iterator from the frame shown at its start.
    const iterator = sink.samples(Math.max(0, seg.srcStartMs / 1000), seg.srcEndMs / 1000 + frameSec);
    let current: VideoSample | null = null;
    let next: VideoSample | null = null;
    let ended = false;
    try {
      for (let k = seg.firstFrame; k < seg.firstFrame + seg.frameCount; k++) {
        checkAbort();
        const srcSec = toSourceTime(frameReferenceTime(seg, k, fps), clock) / 1000;
        // Advance to the last decoded frame at or before the wanted instant (half a millisecond of slack).
        for (;;) {
          if (!next && !ended) {
            const r = await iterator.next();
            if (r.done) ended = true;
            else next = r.value;
          }
          if (next && next.timestamp <= srcSec + 0.0005) {
            current?.close();
            current = next;
            next = null;
          } else break;
        }
        await audio.pump(k * frameSec + AUDIO_LEAD_SEC);
        // Before the source's first frame (it started recording later) the output is black.
        await writer.addFrame(current && srcSec >= 0 ? current : null, k);
        framesDone++;
        if (framesDone % 10 === 0)
          report({ fraction: 0.98 * (framesDone / plan.frameCount), stage: 'video', frames: framesDone });
      }
    } finally {
      current?.close();
      next?.close();
      await iterator.return();
    }
  }
  return framesDone;
}

function even(n: number): number {
  return 2 * Math.round(n / 2);
}
