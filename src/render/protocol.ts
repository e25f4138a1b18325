/**
 * The typed protocol of the render worker (workers/render.worker.ts) and the input of
 * {@link renderEdit} (src/render/render.ts). Callers in a page use {@link createRenderClient}
 * (src/render/client.ts), which turns an AbortSignal into the worker's `abort(requestId)`.
 *
 * @module
 */
import type { SpeechTurn } from '../analysis/audio/levelling.ts';
import type { LoudnessSummary } from '../analysis/audio/loudness.ts';
import type { MixLevels } from './audio-mix.ts';
import type { AudioPlan } from './audio-plan.ts';
import type { Cut, SourceGain, TimeRange } from '../contract/types.ts';

/** One recorded file the render may read. */
export interface RenderSource {
  id: string;
  kind: 'video' | 'audio';
  blob: Blob;
  /** Where the source's t = 0 falls on the reference timeline, ms (src/analysis/sync/sync.ts). */
  offsetMs: number;
  /** Clock drift against the reference, ppm. */
  driftPpm: number;
  /** Length of its media in its own time, ms. */
  durationMs: number;
}

/** What to produce. Size and frame rate default to the main camera's (the one with the most cut time). */
export interface RenderOutputOptions {
  width?: number;
  height?: number;
  fps?: number;
  /** Default `avc` (H.264). */
  videoCodec?: 'avc' | 'vp9' | 'av1';
  /**
   * Default in MP4: AAC-LC, from the browser's WebCodecs encoder where it has one (Chrome on
   * macOS and Windows, Safari), else from the WebAssembly encoder bundled with the render
   * worker (`@mediabunny/aac-encoder`, MPL-2.0; Linux Chromium, Firefox). `opus` only when
   * asked for. WebM: Opus.
   */
  audioCodec?: 'aac' | 'opus';
  /** Default `mp4`. WebM takes VP9 or AV1 with Opus. */
  container?: 'mp4' | 'webm';
  /**
   * Who encodes the video. `auto` (default): WebCodecs, or ffmpeg.wasm's libx264 (H.264 only)
   * when the browser has no encoder for the codec and size. `ffmpeg.wasm` forces the fallback.
   */
  videoEncoder?: 'auto' | 'webcodecs' | 'ffmpeg.wasm';
  /** Video bitrate, bits/s. Default: about 0.1 bit per pixel per frame. */
  videoBitrate?: number;
  /** Audio bitrate, bits/s. Default 128000. */
  audioBitrate?: number;
  /** Crossfade at every audio join, ms. Default 16. */
  fadeMs?: number;
}

/** The serialisable part of a render request. */
export interface RenderRequest {
  cuts: Cut[];
  removedRanges: TimeRange[];
  sources: RenderSource[];
  /** Sources whose audio is mixed into the output (else every audio source, else the cut cameras). */
  audioSourceIds?: string[];
  output?: RenderOutputOptions;
  /**
   * The optional ffmpeg core (GPL-2.0-or-later; the app opts in): `wasmBase` is the folder that
   * holds `ffmpeg-core/` (and `ffmpeg-core-mt/`), e.g. `https://host/wasm/`. It encodes H.264
   * where the browser has no H.264 encoder (the audio never needs it). Without it the core is
   * never fetched.
   */
  ffmpeg?: { wasmBase: string };
  /**
   * The sound's mastering: each speaker levelled from their speech, the mix brought to
   * `loudnessLufs` and held under `truePeakDbtp` (src/render/audio-mix.ts). Absent: the sources
   * are mixed as recorded (an average, no limiter).
   */
  audio?: RenderAudioOptions;
  /**
   * A person's gain per audio source id, dB, or `mute` (the Job's `audio.gains`): added to the
   * levelling before the master gain and the limiter, so the render still meets its target;
   * without {@link audio}, applied to the plain average. Sources not listed: 0 dB.
   */
  audioGains?: Record<string, SourceGain>;
}

/** {@link RenderRequest.audio}. */
export interface RenderAudioOptions {
  /** Target integrated loudness, LUFS (e.g. −16). */
  loudnessLufs: number;
  /** True-peak ceiling, dBTP (e.g. −1). */
  truePeakDbtp: number;
  /**
   * Per audio source id: the turns of the speakers recorded on it, reference ms (a close mic:
   * its speaker's turns; a single mix: every speaker's). Sources not listed are not levelled.
   */
  speech?: Record<string, SpeechTurn[]>;
  /**
   * Every speaker's turns (reference ms), when `speech` is not given: the render finds which
   * source is whose close mic from the audio (a single source carries everyone).
   */
  turns?: SpeechTurn[];
}

/** Receives the output file as positioned writes (an MP4 without fast start patches its header at the end). */
export interface RenderSink {
  /**
   * True when the sink can only append (e.g. a store that writes a stream): the MP4 is then
   * written fragmented (fMP4), strictly in order, instead of patching its header at the end.
   */
  readonly sequential?: boolean;
  write(data: Uint8Array, position: number): Promise<void> | void;
  /** The file is complete. */
  close(): Promise<void> | void;
  /** The render failed or was cancelled: drop what was written. */
  abort?(reason: string): Promise<void> | void;
}

/** Progress of a render. */
export interface RenderProgress {
  /** 0‥1 */
  fraction: number;
  stage: 'starting' | 'audio' | 'video' | 'finalizing' | 'done';
  /** Output frames encoded so far. */
  frames: number;
}

/** What a finished render reports. */
export interface RenderResult {
  container: 'mp4' | 'webm';
  mimeType: string;
  width: number;
  height: number;
  fps: number;
  videoCodec: 'avc' | 'vp9' | 'av1';
  /** Which encoder made the video. */
  videoEncoder: 'webcodecs' | 'ffmpeg.wasm';
  /** The codec string the encoder was configured with, e.g. `avc1.640028`. */
  videoCodecString: string;
  audioCodec: 'aac' | 'opus' | null;
  /**
   * Which encoder made the audio: the browser's (`webcodecs`) or, for AAC where the browser has
   * none, the bundled WebAssembly one (`aac-wasm`, `@mediabunny/aac-encoder`).
   */
  audioEncoder: AudioPlan['encoder'] | null;
  /**
   * The loudness of the audio as it went to the encoder (BS.1770-4 / EBU R128, measured while
   * it streamed past); null when the render has no audio.
   */
  loudness: LoudnessSummary | null;
  /** What the mastering did (each source's loudness before and after levelling, the master gain); null without {@link RenderRequest.audio}. */
  levels: MixLevels | null;
  frames: number;
  durationMs: number;
  /** The kept timeline (cut coverage minus removed ranges), ms. */
  keptMs: number;
  bytes: number;
  /** Output segments (for checks): output span and source. */
  segments: Array<{ outStartMs: number; outEndMs: number; sourceId: string }>;
  /** Output times of the audio joins (where a removed range was skipped), ms. */
  joinsMs: number[];
  elapsedMs: number;
}

/** The render worker's API. `onProgress` and `sink` must be comlink proxies. */
export interface RenderWorkerApi {
  render(
    request: RenderRequest,
    sink: RenderSink,
    onProgress?: (p: RenderProgress) => void,
    requestId?: string,
  ): Promise<RenderResult>;
  /** Cancels the render started with this `requestId`; it rejects with `AbortError`. */
  abort(requestId: string): void;
  /** Heap in use by the worker, bytes, when the browser reports it (for memory checks). */
  heapBytes(): number | null;
}
