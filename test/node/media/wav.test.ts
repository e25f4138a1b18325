/** The mono 16-bit WAV the spec serves as a job's `audioUrl` (src/media/wav.ts): header, samples, clipping. */
import { describe, expect, test } from 'vitest';
import { monoWavBlob } from '../../../src/media/wav.ts';

describe('monoWavBlob', () => {
  test('mono samples become a 16-bit PCM WAV with a correct header, out-of-range values clipped', async () => {
    const blob = monoWavBlob(Float32Array.of(0, 0.5, -0.5, 2, -2), 16_000);
    expect(blob.type).toBe('audio/wav');
    const bytes = new DataView(await blob.arrayBuffer());
    const text = (o: number) => String.fromCharCode(...new Uint8Array(bytes.buffer, o, 4));
    expect([text(0), text(8), text(12), text(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
    expect(bytes.getUint16(20, true)).toBe(1); // PCM
    expect(bytes.getUint16(22, true)).toBe(1);
    expect(bytes.getUint32(24, true)).toBe(16_000);
    expect(bytes.getUint32(28, true)).toBe(16_000 * 2);
    expect(bytes.getUint16(34, true)).toBe(16);
    expect(bytes.getUint32(40, true)).toBe(5 * 2);
    expect(bytes.getUint32(4, true)).toBe(36 + 10);
    expect(bytes.byteLength).toBe(44 + 10);
    const pcm = Array.from({ length: 5 }, (_, i) => bytes.getInt16(44 + 2 * i, true));
    expect(pcm).toEqual([0, 16384, -16384, 32767, -32768]);
  });
});
