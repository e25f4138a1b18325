/**
 * 16-bit PCM WAV files as Blobs: the one header writer (the scratch folder's WAV writer uses it
 * too, scratch.ts) and the mono file the spec serves as a job's `audioUrl` (speaker detection
 * writes it, src/speakers/mix.ts).
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

/** Mono samples (−1..1) as 16-bit PCM, the samples of {@link monoWavBlob}. */
export function monoPcm16(samples: Float32Array): Int16Array {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const x = Math.max(-1, Math.min(1, samples[i]!));
    pcm[i] = Math.round(x < 0 ? x * 0x8000 : x * 0x7fff);
  }
  return pcm;
}

/** Encodes mono samples (−1..1) as 16-bit PCM WAV, in slices so no second full copy is made at once. */
export function monoWavBlob(samples: Float32Array, sampleRate: number): Blob {
  const parts: BlobPart[] = [wavHeader(sampleRate, 1, samples.length * 2)];
  const slice = 1 << 20;
  for (let start = 0; start < samples.length; start += slice)
    parts.push(monoPcm16(samples.subarray(start, Math.min(samples.length, start + slice))).buffer as ArrayBuffer);
  return new Blob(parts, { type: 'audio/wav' });
}
