/**
 * Which codec and encoder make the render's audio. AAC-LC is what players and editing software
 * take, so an MP4 is AAC unless Opus is asked for: from the browser's own encoder (WebCodecs;
 * Chrome on macOS and Windows, Safari), else from `@mediabunny/aac-encoder` (MPL-2.0:
 * FFmpeg's native AAC encoder compiled to WebAssembly, shipped inside the render worker), so
 * Linux Chromium, Firefox and WebKitGTK render AAC too, without the GPL ffmpeg core. Pure.
 *
 * @module
 */

/** Who encodes the render's audio. */
export type AudioEncoderKind = 'webcodecs' | 'aac-wasm';

/** The audio of a render: codec and encoder. */
export interface AudioPlan {
  codec: 'aac' | 'opus';
  /** `aac-wasm`: `@mediabunny/aac-encoder`, where WebCodecs has no AAC encoder. */
  encoder: AudioEncoderKind;
}

/** What the plan depends on. */
export interface AudioPlanInput {
  container: 'mp4' | 'webm';
  /** `output.audioCodec` as asked; undefined means the container's default (AAC in MP4). */
  requested: 'aac' | 'opus' | undefined;
  /** Whether WebCodecs can encode AAC-LC here (`AudioEncoder.isConfigSupported`). */
  webCodecsAac: boolean;
}

/**
 * The audio plan, or a string saying why the request cannot be met.
 *
 * @example
 * planAudio({ container: 'mp4', requested: undefined, webCodecsAac: false });
 * // → { codec: 'aac', encoder: 'aac-wasm' }
 */
export function planAudio(input: AudioPlanInput): AudioPlan | string {
  const { container, requested, webCodecsAac } = input;
  if (container === 'webm') {
    if (requested === 'aac') return 'output.audioCodec: a webm output takes opus';
    return { codec: 'opus', encoder: 'webcodecs' };
  }
  if (requested === 'opus') return { codec: 'opus', encoder: 'webcodecs' };
  return { codec: 'aac', encoder: webCodecsAac ? 'webcodecs' : 'aac-wasm' };
}
