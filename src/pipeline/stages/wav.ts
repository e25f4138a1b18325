/**
 * A 16-bit PCM mono WAV file as a Blob (the `audioUrl` the spec serves).
 *
 * @module
 */

/** Encodes mono samples (−1..1) as 16-bit PCM WAV, in slices so no second full copy is made at once. */
export function monoWavBlob(samples: Float32Array, sampleRate: number): Blob {
  const header = new DataView(new ArrayBuffer(44));
  const dataBytes = samples.length * 2;
  const text = (offset: number, value: string): void => {
    for (let i = 0; i < value.length; i++) header.setUint8(offset + i, value.charCodeAt(i));
  };
  text(0, 'RIFF');
  header.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, 1, true); // mono
  header.setUint32(24, sampleRate, true);
  header.setUint32(28, sampleRate * 2, true);
  header.setUint16(32, 2, true);
  header.setUint16(34, 16, true);
  text(36, 'data');
  header.setUint32(40, dataBytes, true);
  const parts: BlobPart[] = [header.buffer];
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
