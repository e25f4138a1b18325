/**
 * The typed protocol of the media worker (workers/media.worker.ts): what `probe` and
 * `decodeAudio` take and return. Callers use {@link createMediaClient} (src/media/client.ts),
 * which wraps the comlink `Remote<MediaWorkerApi>` with AbortSignal support and error classes.
 *
 * @module
 */
import type { FrameRateFraction, SourceTimecode } from '../contract/types.ts';

/** Which decoder did the work: mediabunny (WebCodecs, or its own PCM reader) or ffmpeg.wasm. */
export type MediaEngine = 'mediabunny' | 'ffmpeg.wasm';

/** `auto` tries mediabunny and falls back to ffmpeg.wasm; `ffmpeg.wasm` forces the fallback. */
export type EnginePreference = 'auto' | 'ffmpeg.wasm';

/** One stream (track) of a container. */
export interface StreamInfo {
  type: 'video' | 'audio' | 'other';
  /** Codec name as the engine reports it (mediabunny: `avc`, `aac`, `opus`…; ffmpeg: `h264`, `aac`…). */
  codec: string | null;
}

/** The video stream a source is edited by. */
export interface VideoInfo {
  codec: string | null;
  /** The container's own name for the codec (MP4 sample entry, Matroska `CodecID`), when it gives one. */
  codecId?: string;
  /** Whether this browser's WebCodecs decodes it (`VideoDecoder.isConfigSupported`); absent when the ffmpeg core probed the file. */
  decodable?: boolean;
  width: number;
  height: number;
  /** Frames per second (`frameRateExact` as a number), or null when unknown. */
  frameRate: number | null;
  /** The exact rate from the packets' timestamps (29.97 is 30000/1001), or null when unknown. */
  frameRateExact: FrameRateFraction | null;
  /** Frame durations vary (a phone's variable frame rate); the rate is then the nearest standard one to the average. */
  variableFrameRate: boolean;
  /** Clockwise rotation the frames are shown with (`width`/`height` are after it); 0 when unknown. */
  rotation: number;
}

/** The audio stream a source is synced and diarized by. */
export interface AudioInfo {
  codec: string | null;
  /** The container's own name for the codec (MP4 sample entry, Matroska `CodecID`), when it gives one. */
  codecId?: string;
  /** Whether this browser decodes it (PCM, or `AudioDecoder.isConfigSupported`); absent when the ffmpeg core probed the file. */
  decodable?: boolean;
  sampleRate: number;
  channels: number;
}

/** What {@link MediaWorkerApi.probe} found. */
export interface MediaProbe {
  engine: MediaEngine;
  /** Why mediabunny could not read the file, when ffmpeg.wasm read it instead (`engine` is then `ffmpeg.wasm`). */
  fallbackReason?: string;
  /** Container name, e.g. `MP4`, `QuickTime File Format`, `WebM`, `Matroska`, `WAVE`, `MP3`, `ADTS` (ffmpeg: its format_name). */
  container: string;
  mimeType: string | null;
  durationMs: number;
  video: VideoInfo | null;
  audio: AudioInfo | null;
  streams: StreamInfo[];
  /** The file's start timecode (MP4/MOV `tmcd` track, a `TIMECODE` tag), when it has one. */
  timecode?: SourceTimecode;
}

/** Progress of a long operation. */
export interface MediaProgress {
  /** 0‥1 */
  fraction: number;
  /** Media time reached, ms. */
  mediaMs: number;
}

/** Options of {@link MediaWorkerApi.decodeAudio} (the serialisable part). */
/** A stretch of media time, ms. */
export interface AudioRange {
  startMs: number;
  endMs: number;
}

export interface DecodeAudioOptions {
  /** Output rate in Hz (16000 for analysis, 8000 is enough for sync). */
  sampleRate: number;
  /**
   * Only this stretch of the source's media time (ms): `samples[0]` is at `startMs`, and the
   * output ends at `endMs` or the end of the audio. Default: the whole track.
   */
  range?: AudioRange;
  /** The source's label, used in error messages. */
  label: string;
  engine?: EnginePreference;
  /** Lets {@link MediaWorkerApi.abort} cancel this call. */
  requestId?: string;
  /** {@link FfmpegCoreOption}: the optional ffmpeg core; without it the fallback is off. */
  ffmpegWasmBase?: string;
  /**
   * Write the samples to this file of the origin's private file system (created, 32-bit floats)
   * instead of returning them: an hour of a mic at 16 kHz is 0.23 GB. Where the file cannot be
   * written, they are returned as usual; {@link DecodedAudio.file} says which.
   */
  toFile?: ScratchFileRef;
}

/** A file in a scratch folder of the origin's private file system (src/media/scratch.ts). */
export interface ScratchFileRef {
  folder: string;
  name: string;
}

/** Options of {@link MediaWorkerApi.probe}. */
export interface ProbeOptions {
  label: string;
  engine?: EnginePreference;
  requestId?: string;
  /** {@link FfmpegCoreOption}: the optional ffmpeg core; without it the fallback is off. */
  ffmpegWasmBase?: string;
}

/**
 * Where the optional ffmpeg core (GPL-2.0-or-later, opted in by the app) is served: the folder
 * holding `ffmpeg-core/` (and `ffmpeg-core-mt/`), e.g. `https://host/wasm/`. It reads the files
 * the browser cannot (HEVC, some containers). Without it the core is never fetched, and such a
 * file fails with a message naming the option.
 */
export type FfmpegCoreOption = string;

/** Mono audio, sample 0 at the source's media time 0. */
export interface DecodedAudio {
  engine: MediaEngine;
  /** Why mediabunny could not decode the file, when ffmpeg.wasm decoded it instead. */
  fallbackReason?: string;
  /** The samples; empty when they went to {@link file}. */
  samples: Float32Array;
  sampleRate: number;
  /** Where the samples went, and how many, when the call asked for a file and it was written. */
  file?: ScratchFileRef & { length: number };
  /** Diagnostics of the ffmpeg.wasm path: the core used and how the input was mounted. */
  ffmpeg?: FfmpegRunInfo;
}

/** How an ffmpeg.wasm run read its input (for tests and logs). */
export interface FfmpegRunInfo {
  core: 'ffmpeg-core' | 'ffmpeg-core-mt';
  /** Always `WORKERFS`: the Blob is read in place, never copied into wasm memory. */
  filesystem: 'WORKERFS';
  /** The path ffmpeg opened (inside the WORKERFS mount). */
  inputPath: string;
  /** ffmpeg's own log line naming the input, e.g. `Input #0, mov,mp4,… from '/mnt/…'`. */
  inputLog: string | null;
}

/** Options of {@link MediaWorkerApi.buildProxy}. */
export interface BuildProxyOptions {
  /** The source's label, used in error messages. */
  label: string;
  /** Lets {@link MediaWorkerApi.abort} cancel this call. */
  requestId?: string;
}

/**
 * Where a proxy's bytes go, in order (a comlink proxy of the engine's store writer). Awaiting
 * each append is the build's back-pressure.
 */
export interface ProxySink {
  append(data: Uint8Array): Promise<void>;
}

/** A proxy built: what the sink got, and the head patches to apply once it is stored whole. */
export interface BuiltProxy {
  /** `built`, or `unavailable`: this browser cannot decode the source or encode any proxy (`reason` says which). */
  outcome: 'built' | 'unavailable';
  reason?: string;
  width: number;
  height: number;
  /** Video codec written (`avc`, or `vp9` where the browser has no H.264 encoder). */
  codec: string;
  /** Bytes appended. */
  size: number;
  /** Bytes the muxer rewrote at the start (the mdat's size): apply with `rewriteFileStart`. */
  headPatches: Array<{ position: number; data: Uint8Array }>;
}

/**
 * The media worker's API. Progress callbacks must be comlink proxies (`proxy(fn)`); the
 * decoded samples come back transferred.
 */
export interface MediaWorkerApi {
  probe(blob: Blob, options: ProbeOptions): Promise<MediaProbe & { ffmpeg?: FfmpegRunInfo }>;
  /**
   * Across comlink the progress callback returns a promise (a proxied call); the worker awaits
   * the last one before resolving, so every report arrives before the result.
   */
  decodeAudio(
    blob: Blob,
    options: DecodeAudioOptions,
    onProgress?: (p: MediaProgress) => void | Promise<void>,
  ): Promise<DecodedAudio>;
  /**
   * A camera's proxy (src/media/proxy.ts): the video only, scaled to 360p, about 0.8 Mb/s, a
   * keyframe every second, the source's own frame rate and timing, as an MP4 with its index at
   * the end, appended to `sink`. `unavailable` (not a rejection) where this browser cannot decode
   * the source or encode a proxy.
   */
  buildProxy(
    blob: Blob,
    options: BuildProxyOptions,
    sink: ProxySink,
    onProgress?: (p: MediaProgress) => void | Promise<void>,
  ): Promise<BuiltProxy>;
  /** Cancels the call started with this `requestId`; it rejects with `AbortError`. */
  abort(requestId: string): void;
  /** Stops the ffmpeg.wasm worker, if one was started, to free its memory. */
  dispose(): Promise<void>;
}
