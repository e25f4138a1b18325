/**
 * 16-bit PCM WAV files as Blobs: the one header writer, the mono file the spec serves as a
 * job's `audioUrl`, and the interleaved file the AAC encoder (aac-ffmpeg.ts) reads.
 *
 * @module
 */

/** The 44-byte header of a 16-bit PCM WAV file holding `dataBytes` bytes of samples. */
export function wavHeader(sampleRate: number, channels: number, dataBytes: number): ArrayBuffer {
  const header = new DataView(new ArrayBuffer(44));
  const text = (offset: number, value: string): void => {
    for (let i = 0; i < value.length; i++) header.setUint8(offset + i, value.charCodeAt(i));
  };
  text(0, 'RIFF');
  header.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, channels, true);
  header.setUint32(24, sampleRate, true);
  header.setUint32(28, sampleRate * channels * 2, true);
  header.setUint16(32, channels * 2, true);
  header.setUint16(34, 16, true);
  text(36, 'data');
  header.setUint32(40, dataBytes, true);
  return header.buffer;
}

/** Encodes mono samples (−1..1) as 16-bit PCM WAV, in slices so no second full copy is made at once. */
export function monoWavBlob(samples: Float32Array, sampleRate: number): Blob {
  const parts: BlobPart[] = [wavHeader(sampleRate, 1, samples.length * 2)];
  const slice = 1 << 20;
  for (let start = 0; start < samples.length; start += slice) {
    const end = Math.min(samples.length, start + slice);
    const pcm = new Int16Array(end - start);
    for (let i = start; i < end; i++) {
      const x = Math.max(-1, Math.min(1, samples[i]!));
      pcm[i - start] = Math.round(x < 0 ? x * 0x8000 : x * 0x7fff);
    }
    parts.push(pcm.buffer);
  }
  return new Blob(parts, { type: 'audio/wav' });
}

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
    const blob = new Blob([wavHeader(this.sampleRate, this.channels, bytes), ...this.parts], { type: 'audio/wav' });
    this.parts = [];
    return blob;
  }
}
