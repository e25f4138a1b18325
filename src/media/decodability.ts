/**
 * Whether the browser can decode a source, and what the job says when it cannot (issue 52).
 *
 * The probe asks WebCodecs about each stream's decoder config ({@link DecoderCapability}: the
 * browser's `VideoDecoder.isConfigSupported` / `AudioDecoder.isConfigSupported`, a test double
 * in Node) and records the answer on the probe. The syncing stage then calls
 * {@link undecodableSourceMessage}, a pure function of that answer and of whether the host app
 * opted in to the ffmpeg core, before any audio is decoded:
 *
 * - sound the browser cannot decode (AC-3 in Chromium, for example) is decoded by the ffmpeg core
 *   where the app opted in; where it did not, the job fails at once naming the file, the codec,
 *   and how to turn the core on (per host) or convert the file;
 * - pictures the browser cannot decode (HEVC where the platform has no decoder, ProRes, DNxHD)
 *   fail the job at once whether or not the core is on: the camera map and the render read
 *   pictures through WebCodecs only (the core decodes sound for this project, never pictures),
 *   and a camera is never silently left out. The fix is to convert the file, or to add it as a
 *   mic (its sound only).
 *
 * @module
 */
import type { MediaEngine } from './protocol.ts';

/** What the browser says it can decode; a test double stands in for it in Node. */
export interface DecoderCapability {
  video(config: VideoDecoderConfig): Promise<boolean>;
  audio(config: AudioDecoderConfig): Promise<boolean>;
}

/** The browser's own answer: WebCodecs' `isConfigSupported` (no WebCodecs: nothing is decodable). */
export const webCodecsCapability: DecoderCapability = {
  async video(config) {
    if (typeof VideoDecoder === 'undefined') return false;
    try {
      return (await VideoDecoder.isConfigSupported(config)).supported === true;
    } catch {
      return false; // a config the browser cannot even parse
    }
  },
  async audio(config) {
    if (typeof AudioDecoder === 'undefined') return false;
    try {
      return (await AudioDecoder.isConfigSupported(config)).supported === true;
    } catch {
      return false;
    }
  },
};

/** mediabunny's PCM codecs: it reads them itself, with no decoder. */
export function isPcmCodec(codec: string): boolean {
  return codec.startsWith('pcm-') || codec === 'ulaw' || codec === 'alaw';
}

/** Whether a track's video decodes here; false when it has no decoder config (a codec mediabunny does not know). */
export async function videoDecodable(
  track: { getDecoderConfig(): Promise<VideoDecoderConfig | null> },
  capability: DecoderCapability = webCodecsCapability,
): Promise<boolean> {
  try {
    const config = await track.getDecoderConfig();
    return config !== null && (await capability.video(config));
  } catch {
    return false;
  }
}

/** Whether a track's audio decodes here: PCM always (mediabunny reads it), else as the capability says. */
export async function audioDecodable(
  track: { getDecoderConfig(): Promise<AudioDecoderConfig | null> },
  capability: DecoderCapability = webCodecsCapability,
): Promise<boolean> {
  try {
    const config = await track.getDecoderConfig();
    if (!config) return false;
    return isPcmCodec(config.codec) || (await capability.audio(config));
  } catch {
    return false;
  }
}

/** One stream of a probed source, as the decision needs it. */
export interface ProbedStream {
  /** mediabunny's codec name (`hevc`, `prores`, `ac3`…) or ffprobe's (`hevc`, `prores`, `ac3`…). */
  codec: string | null;
  /** The container's own name for it (an MP4 sample entry such as `hvc1`, a Matroska `CodecID` such as `A_AC3`). */
  codecId?: string;
  /** What WebCodecs said; absent when not asked (the ffmpeg core probed the file). */
  decodable?: boolean;
}

/** What {@link undecodableSourceMessage} decides on: one probed source and the host's choice. */
export interface DecodeCheck {
  /** The source's name in messages, e.g. `"Cam B"` (quoted, as the stage names sources). */
  name: string;
  /** `video`: a camera, whose pictures the camera map and the render read; `audio`: a mic. */
  kind: 'video' | 'audio';
  /** Which engine probed it: `ffmpeg.wasm` when the browser's reader did not recognise the container. */
  engine: MediaEngine;
  container: string;
  video: ProbedStream | null;
  audio: ProbedStream | null;
  /** The host app opted in to the ffmpeg core (`assets.ffmpegWasmBase`). */
  ffmpegCore: boolean;
}

/** Codec names (mediabunny's, ffprobe's, containers' ids) in plain words. */
const VIDEO_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/^(avc|h264|avc1|avc3|V_MPEG4\/ISO\/AVC)$/i, 'H.264 (AVC)'],
  [/^(hevc|h265|hvc1|hev1|V_MPEGH\/ISO\/HEVC)$/i, 'HEVC (H.265)'],
  [/^(prores|apc[hnso]|ap4[hx]|aprn|aprh|V_PRORES)$/i, 'ProRes'],
  [/^(dnxhd|dnxhr|avdn|avdh|AVdn|AVdh)$/i, 'DNxHD/DNxHR'],
  [/^(vp8|V_VP8)$/i, 'VP8'],
  [/^(vp9|vp09|V_VP9)$/i, 'VP9'],
  [/^(av1|av01|V_AV1)$/i, 'AV1'],
  [/^(mpeg2video|V_MPEG2)$/i, 'MPEG-2'],
  [/^(mpeg4|mp4v|xvid|divx|V_MPEG4\/ISO\/(SP|ASP))$/i, 'MPEG-4 Part 2'],
  [/^(mjpeg|mjpa|mjpb|jpeg|V_MJPEG)$/i, 'Motion JPEG'],
  [/^(cfhd|CineForm)$/i, 'CineForm'],
];
const AUDIO_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/^(aac|mp4a|A_AAC.*)$/i, 'AAC'],
  [/^(opus|Opus|A_OPUS)$/i, 'Opus'],
  [/^(mp3|\.mp3|A_MPEG\/L3)$/i, 'MP3'],
  [/^(vorbis|A_VORBIS)$/i, 'Vorbis'],
  [/^(flac|fLaC|A_FLAC)$/i, 'FLAC'],
  [/^(ac3|ac-3|A_AC3)$/i, 'AC-3 (Dolby Digital)'],
  [/^(eac3|ec-3|A_EAC3)$/i, 'E-AC-3 (Dolby Digital Plus)'],
  [/^(dts|dtsc|dtsh|dtsl|A_DTS)$/i, 'DTS'],
  [/^(truehd|mlpa|A_TRUEHD)$/i, 'Dolby TrueHD'],
  [/^(alac|A_ALAC)$/i, 'ALAC (Apple Lossless)'],
  [/^(pcm.*|ulaw|alaw|sowt|twos|lpcm|in24|in32|fl32|fl64|A_PCM.*)$/i, 'PCM'],
];

/**
 * A stream's codec in plain words: `HEVC (H.265) video`, `ProRes video`, `AC-3 (Dolby Digital) audio`;
 * an unknown codec by its name in the file, e.g. `video in the codec "xyz1"`.
 *
 * @example
 * codecInWords('audio', { codec: 'ac3' }); // 'AC-3 (Dolby Digital) audio'
 */
export function codecInWords(kind: 'video' | 'audio', stream: Pick<ProbedStream, 'codec' | 'codecId'>): string {
  const table = kind === 'video' ? VIDEO_WORDS : AUDIO_WORDS;
  for (const name of [stream.codec, stream.codecId]) {
    if (!name) continue;
    const hit = table.find(([pattern]) => pattern.test(name));
    if (hit) return `${hit[1]} ${kind}`;
  }
  const raw = stream.codec ?? stream.codecId;
  return raw ? `${kind} in the codec "${raw}"` : `${kind} in a codec the file does not name`;
}

/** How each host turns the ffmpeg core on, for messages (docs/sync.md says more). */
export const FFMPEG_CORE_STEPS =
  'an app installs it (`npm install @ffmpeg/core`, then `multicam({ ffmpeg: true })` in vite.config or ' +
  "`npx multicam init <publicDir> --ffmpeg`) and passes `assets: { ffmpegWasmBase: '/wasm/' }` to startMulticam; " +
  'the demo and `multicam edit` have it on';

/** The fix for sound the browser cannot decode, in one clause. */
export const FFMPEG_CORE_HOW = `turn on the optional ffmpeg decoder (GPL-2.0-or-later), which decodes it: ${FFMPEG_CORE_STEPS}`;

/**
 * Why a probed source cannot be used in this browser, as the job's error message; null when it
 * can. Pure: the capability answer is already on the probe (`decodable`).
 *
 * @example
 * undecodableSourceMessage({
 *   name: '"Recorder"', kind: 'audio', engine: 'mediabunny', container: 'Matroska',
 *   video: null, audio: { codec: 'ac3', decodable: false }, ffmpegCore: false,
 * });
 * // 'source "Recorder" has AC-3 (Dolby Digital) audio, which this browser cannot decode: turn on …'
 */
export function undecodableSourceMessage(check: DecodeCheck): string | null {
  const { name, video, audio } = check;
  if (check.kind === 'video' && video) {
    const words = codecInWords('video', video);
    // The camera map and the render read pictures through the browser's reader and WebCodecs only.
    const why =
      check.engine === 'ffmpeg.wasm'
        ? `is in a container this browser cannot open for its pictures (${check.container}, ${words})`
        : video.decodable === false
          ? `is ${words}, which this browser cannot decode`
          : null;
    if (why !== null)
      return (
        `source ${name} ${why}, so its pictures cannot be used for the camera map or the render (the optional ` +
        'ffmpeg decoder reads only sound): convert it to H.264 in MP4, e.g. `ffmpeg -i IN -c:v libx264 -crf 18 ' +
        '-c:a aac OUT.mp4`' +
        (/HEVC/.test(words)
          ? ', or open the job in a browser that decodes HEVC (Safari; Chrome or Edge on macOS or Windows)'
          : '') +
        ', or add the file as a mic (its sound only)'
      );
  }
  if (audio && audio.decodable === false && !check.ffmpegCore)
    return (
      `source ${name} has ${codecInWords('audio', audio)}, which this browser cannot decode: ${FFMPEG_CORE_HOW}; ` +
      'or convert its sound, e.g. `ffmpeg -i IN -c:v copy -c:a aac OUT.mp4`'
    );
  return null;
}
