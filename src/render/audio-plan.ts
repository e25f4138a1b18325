/**
 * Which codec and encoder make the render's audio. AAC is what editing software imports, so an
 * MP4 takes AAC wherever it can be had: from the browser's own encoder (WebCodecs; Chrome on
 * macOS and Windows has one, Linux Chromium does not), else from the optional ffmpeg core when
 * the app opted in to it. Otherwise the MP4 carries Opus, and the plan says why. Pure.
 *
 * @module
 */

/** The audio of a render: codec, encoder, and why, when it is not what was asked for. */
export interface AudioPlan {
  codec: 'aac' | 'opus';
  encoder: 'webcodecs' | 'ffmpeg.wasm';
  /** Why the MP4 carries Opus (set only then), for the job and the logs. */
  note: string | null;
}

/** What the plan depends on. */
export interface AudioPlanInput {
  container: 'mp4' | 'webm';
  /** `output.audioCodec` as asked; undefined means the container's default (AAC in MP4). */
  requested: 'aac' | 'opus' | undefined;
  /** Whether WebCodecs can encode AAC-LC here (`AudioEncoder.isConfigSupported`). */
  webCodecsAac: boolean;
  /** Whether the app opted in to the ffmpeg core (a `wasmBase` was given). */
  ffmpegCore: boolean;
}

/** Says why an asked-for AAC cannot be made; thrown as a RenderError by the caller. */
export const NO_AAC_ENCODER =
  'output.audioCodec aac: this browser has no AAC encoder (WebCodecs) and the app did not enable the optional ffmpeg core; ask for opus, or enable the core (README, "The optional ffmpeg core")';

/** The note a default MP4 render carries when its audio is Opus. */
export const OPUS_IN_MP4_NOTE =
  'Opus audio in MP4: this browser has no AAC encoder and the optional ffmpeg core is not enabled (most editing software imports it; some older tools want AAC)';

/**
 * The audio plan, or a string saying why the request cannot be met.
 *
 * @example
 * planAudio({ container: 'mp4', requested: undefined, webCodecsAac: false, ffmpegCore: false });
 * // → { codec: 'opus', encoder: 'webcodecs', note: OPUS_IN_MP4_NOTE }
 */
export function planAudio(input: AudioPlanInput): AudioPlan | string {
  const { container, requested, webCodecsAac, ffmpegCore } = input;
  if (container === 'webm') {
    if (requested === 'aac') return 'output.audioCodec: a webm output takes opus';
    return { codec: 'opus', encoder: 'webcodecs', note: null };
  }
  if (requested === 'opus') return { codec: 'opus', encoder: 'webcodecs', note: null };
  if (webCodecsAac) return { codec: 'aac', encoder: 'webcodecs', note: null };
  if (ffmpegCore) return { codec: 'aac', encoder: 'ffmpeg.wasm', note: null };
  if (requested === 'aac') return NO_AAC_ENCODER;
  return { codec: 'opus', encoder: 'webcodecs', note: OPUS_IN_MP4_NOTE };
}
