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

/** Where the optional ffmpeg core is served. */
export interface AacEncoderOptions {
  /** URL of the folder holding `ffmpeg-core/`, e.g. `https://host/wasm/`. */
  wasmBase: string;
}

/**
 * Encodes a WAV Blob to AAC-LC (ADTS bytes) with ffmpeg.wasm. An abort terminates the ffmpeg
 * worker (the only way to stop a running command).
 */
export async function encodeAacWithFfmpeg(
  wav: Blob,
  bitrate: number,
  signal: AbortSignal,
  options: AacEncoderOptions,
): Promise<Uint8Array> {
  signal.throwIfAborted();
  const base = new URL('ffmpeg-core/', new URL(options.wasmBase, globalThis.location.href)).href;
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
