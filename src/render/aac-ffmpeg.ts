/**
 * AAC for the MP4 output. Chromium's WebCodecs has no AAC encoder here, so the mixed audio is
 * written as a 16-bit WAV Blob (chunk by chunk: the browser may keep large Blobs on disk), which
 * ffmpeg.wasm reads in place through a WORKERFS mount and encodes once, to ADTS, with its native
 * AAC encoder. One encoder run over the whole mix: no priming gaps between chunks. The ADTS
 * result (about 1 MB a minute at 128 kbit/s) is demuxed by mediabunny into packets.
 *
 * The single-threaded core is used: AAC encoding is light, and it keeps wasm memory small.
 *
 * @module
 */
import { FFFSType, FFmpeg } from '@ffmpeg/ffmpeg';

/** Builds a WAV (PCM s16le) Blob from planar float chunks, appended in order. */
export class WavBlobWriter {
  private parts: Blob[] = [];
  private frames = 0;

  constructor(
    readonly sampleRate: number,
    readonly channels: number,
  ) {}

  /** Appends planar samples (one array per channel, equal lengths). */
  append(planes: readonly Float32Array[]): void {
    const n = planes[0]?.length ?? 0;
    const pcm = new Int16Array(n * this.channels);
    for (let c = 0; c < this.channels; c++) {
      const p = planes[Math.min(c, planes.length - 1)]!;
      for (let i = 0; i < n; i++) {
        const v = Math.max(-1, Math.min(1, p[i]!));
        pcm[i * this.channels + c] = Math.round(v * 32767);
      }
    }
    this.parts.push(new Blob([pcm.buffer]));
    this.frames += n;
  }

  /** The finished file. */
  finish(): Blob {
    const bytes = this.frames * this.channels * 2;
    const h = new DataView(new ArrayBuffer(44));
    const ascii = (o: number, s: string) => {
      for (let i = 0; i < s.length; i++) h.setUint8(o + i, s.charCodeAt(i));
    };
    ascii(0, 'RIFF');
    h.setUint32(4, 36 + bytes, true);
    ascii(8, 'WAVE');
    ascii(12, 'fmt ');
    h.setUint32(16, 16, true);
    h.setUint16(20, 1, true);
    h.setUint16(22, this.channels, true);
    h.setUint32(24, this.sampleRate, true);
    h.setUint32(28, this.sampleRate * this.channels * 2, true);
    h.setUint16(32, this.channels * 2, true);
    h.setUint16(34, 16, true);
    ascii(36, 'data');
    h.setUint32(40, bytes, true);
    const blob = new Blob([h.buffer, ...this.parts], { type: 'audio/wav' });
    this.parts = [];
    return blob;
  }
}

/** Where the pinned ffmpeg core is served. */
export interface AacEncoderOptions {
  /** Base URL of the `wasm/` folder. Default: `/wasm/` on the current origin. */
  wasmBase?: string;
}

/**
 * Encodes a WAV Blob to AAC-LC (ADTS bytes) with ffmpeg.wasm. An abort terminates the ffmpeg
 * worker (the only way to stop a running command).
 */
export async function encodeAacWithFfmpeg(
  wav: Blob,
  bitrate: number,
  signal: AbortSignal,
  options: AacEncoderOptions = {},
): Promise<Uint8Array> {
  signal.throwIfAborted();
  const base = new URL('ffmpeg-core/', options.wasmBase ?? new URL('/wasm/', globalThis.location.href)).href;
  const ff = new FFmpeg();
  const onAbort = () => ff.terminate();
  signal.addEventListener('abort', onAbort, { once: true });
  const log: string[] = [];
  try {
    await ff.load({ coreURL: `${base}ffmpeg-core.js`, wasmURL: `${base}ffmpeg-core.wasm` });
    ff.on('log', ({ message }) => {
      if (log.length < 200) log.push(message);
    });
    await ff.createDir('/mix');
    await ff.mount(FFFSType.WORKERFS, { blobs: [{ name: 'mix.wav', data: wav }] }, '/mix');
    const code = await ff.exec([
      '-nostdin',
      '-i',
      '/mix/mix.wav',
      '-c:a',
      'aac',
      '-b:a',
      String(bitrate),
      '-f',
      'adts',
      '-y',
      '/out.aac',
    ]);
    if (code !== 0) throw new Error(`ffmpeg.wasm AAC encoding failed (exit ${code}): ${log.slice(-3).join(' | ')}`);
    const data = await ff.readFile('/out.aac');
    if (typeof data === 'string') throw new Error('ffmpeg.wasm returned text instead of AAC');
    return data;
  } catch (e) {
    if (signal.aborted)
      throw signal.reason instanceof Error ? signal.reason : new DOMException('render cancelled', 'AbortError');
    throw e;
  } finally {
    signal.removeEventListener('abort', onAbort);
    ff.terminate();
  }
}
