/**
 * The H.264 fallback for browsers without a WebCodecs video encoder: frames are collected as
 * RGBA in chunks (at most 128 MiB or 2 s of frames), each chunk is encoded by ffmpeg.wasm's
 * libx264 (veryfast, no B-frames, threaded core when cross-origin isolated with
 * `-x264-params threads=2:lookahead-threads=1`, whose memory is fixed at 1 GiB) to an Annex B
 * stream, and the access units come back as length-prefixed packets with an `avcC` decoder
 * configuration for mediabunny. Every chunk starts with a key frame.
 *
 * @module
 */
import { FFmpeg } from '@ffmpeg/ffmpeg';

/** One encoded frame, AVCC (4-byte lengths). */
export interface H264Packet {
  data: Uint8Array;
  key: boolean;
  /** Output frame index. */
  frame: number;
}

const CHUNK_BYTES = 128 * 1024 * 1024;

/** Encodes RGBA frames with ffmpeg.wasm's libx264, chunk by chunk. */
export class FfmpegH264Encoder {
  private ff: FFmpeg | null = null;
  private buffer: Uint8Array;
  private count = 0;
  private firstFrame = 0;
  private readonly frameBytes: number;
  readonly framesPerChunk: number;
  /** Set after the first chunk: the codec string and `avcC` box of the stream. */
  decoderConfig: { codec: string; codedWidth: number; codedHeight: number; description: Uint8Array } | null = null;
  private threaded = false;
  private seq = 0;

  constructor(
    readonly width: number,
    readonly height: number,
    readonly fps: number,
    readonly bitrate: number,
    private readonly wasmBase: string,
  ) {
    this.frameBytes = width * height * 4;
    this.framesPerChunk = Math.max(1, Math.min(Math.ceil(fps * 2), Math.floor(CHUNK_BYTES / this.frameBytes)));
    this.buffer = new Uint8Array(this.frameBytes * this.framesPerChunk);
  }

  private async load(): Promise<FFmpeg> {
    if (this.ff) return this.ff;
    this.threaded = globalThis.crossOriginIsolated === true;
    const core = this.threaded ? 'ffmpeg-core-mt' : 'ffmpeg-core';
    const base = new URL(`${core}/`, new URL(this.wasmBase, globalThis.location.href)).href;
    const ff = new FFmpeg();
    await ff.load({
      coreURL: `${base}ffmpeg-core.js`,
      wasmURL: `${base}ffmpeg-core.wasm`,
      ...(this.threaded ? { workerURL: `${base}ffmpeg-core.worker.js` } : {}),
    });
    this.ff = ff;
    return ff;
  }

  /** Adds one frame (RGBA, width·height·4 bytes); returns the packets of a chunk when one was encoded. */
  async add(rgba: Uint8ClampedArray | Uint8Array, signal: AbortSignal): Promise<H264Packet[]> {
    this.buffer.set(rgba, this.count * this.frameBytes);
    this.count++;
    return this.count === this.framesPerChunk ? this.flush(signal) : [];
  }

  /** Encodes the frames collected so far. */
  async flush(signal: AbortSignal): Promise<H264Packet[]> {
    if (this.count === 0) return [];
    const ff = await this.load();
    const onAbort = () => this.dispose();
    signal.addEventListener('abort', onAbort, { once: true });
    const n = this.count;
    const inPath = `/frames${++this.seq}.rgba`;
    const outPath = `/chunk${this.seq}.h264`;
    const log: string[] = [];
    const onLog = ({ message }: { message: string }) => void (log.length < 100 && log.push(message));
    ff.on('log', onLog);
    try {
      // writeFile transfers (detaches) the buffer to ffmpeg's worker: take a fresh one for the next chunk.
      const frames = this.buffer.subarray(0, n * this.frameBytes);
      this.buffer = new Uint8Array(this.frameBytes * this.framesPerChunk);
      await ff.writeFile(inPath, frames);
      const args = [
        '-nostdin',
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgba',
        '-s',
        `${this.width}x${this.height}`,
        '-r',
        String(this.fps),
        '-i',
        inPath,
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-profile:v',
        'high',
        '-pix_fmt',
        'yuv420p',
        '-bf',
        '0',
        '-g',
        String(n),
        '-b:v',
        String(this.bitrate),
        ...(this.threaded ? ['-x264-params', 'threads=2:lookahead-threads=1'] : []),
        '-f',
        'h264',
        '-y',
        outPath,
      ];
      const code = await ff.exec(args);
      if (code !== 0) throw new Error(`ffmpeg.wasm libx264 failed (exit ${code}): ${log.slice(-3).join(' | ')}`);
      const data = await ff.readFile(outPath);
      if (typeof data === 'string') throw new Error('ffmpeg.wasm returned text instead of H.264');
      const packets = this.toPackets(data, this.firstFrame);
      if (packets.length !== n) throw new Error(`ffmpeg.wasm libx264 returned ${packets.length} frames for ${n}`);
      this.firstFrame += n;
      this.count = 0;
      return packets;
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (this.ff === ff) {
        ff.off('log', onLog);
        await ff.deleteFile(inPath).catch(() => undefined);
        await ff.deleteFile(outPath).catch(() => undefined);
      }
    }
  }

  dispose(): void {
    this.ff?.terminate();
    this.ff = null;
  }

  /** Splits an Annex B stream into one AVCC packet per picture; records SPS/PPS as `avcC`. */
  private toPackets(stream: Uint8Array, firstFrame: number): H264Packet[] {
    const nals = splitAnnexB(stream);
    let sps: Uint8Array | null = null;
    let pps: Uint8Array | null = null;
    const packets: H264Packet[] = [];
    for (const nal of nals) {
      const type = nal[0]! & 0x1f;
      if (type === 7) sps ??= nal;
      else if (type === 8) pps ??= nal;
      else if (type === 1 || type === 5) {
        // x264 writes one slice per picture by default: one VCL NAL unit is one frame.
        const data = new Uint8Array(4 + nal.length);
        new DataView(data.buffer).setUint32(0, nal.length);
        data.set(nal, 4);
        packets.push({ data, key: type === 5, frame: firstFrame + packets.length });
      }
    }
    if (!this.decoderConfig) {
      if (!sps || !pps) throw new Error('ffmpeg.wasm libx264 output has no SPS/PPS');
      const hex = (b: number) => b.toString(16).padStart(2, '0');
      const avcC = new Uint8Array(11 + sps.length + pps.length);
      avcC.set([1, sps[1]!, sps[2]!, sps[3]!, 0xff, 0xe1, sps.length >> 8, sps.length & 0xff]);
      avcC.set(sps, 8);
      avcC.set([1, pps.length >> 8, pps.length & 0xff], 8 + sps.length);
      avcC.set(pps, 11 + sps.length);
      this.decoderConfig = {
        codec: `avc1.${hex(sps[1]!)}${hex(sps[2]!)}${hex(sps[3]!)}`,
        codedWidth: this.width,
        codedHeight: this.height,
        description: avcC,
      };
    }
    return packets;
  }
}

/** NAL units of an Annex B byte stream (start codes 00 00 01 or 00 00 00 01 removed). */
export function splitAnnexB(s: Uint8Array): Uint8Array[] {
  const starts: Array<{ at: number; len: number }> = [];
  for (let i = 0; i + 2 < s.length; i++) {
    if (s[i] === 0 && s[i + 1] === 0 && s[i + 2] === 1) {
      const four = i > 0 && s[i - 1] === 0;
      starts.push({ at: i + 3, len: four ? 4 : 3 });
      i += 2;
    }
  }
  const out: Uint8Array[] = [];
  for (let k = 0; k < starts.length; k++) {
    const begin = starts[k]!.at;
    const end = k + 1 < starts.length ? starts[k + 1]!.at - starts[k + 1]!.len : s.length;
    if (end > begin) out.push(s.subarray(begin, end));
  }
  return out;
}
