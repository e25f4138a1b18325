/** The interleaved 16-bit WAV Blob writer (src/media/wav.ts): header, interleaving, clipping. */
import { describe, expect, test } from 'vitest';
import { WavBlobWriter } from '../../../src/media/wav.ts';

describe('WavBlobWriter', () => {
  test('appended planar chunks become one interleaved s16 WAV with a correct header', async () => {
    const w = new WavBlobWriter(48_000, 2);
    w.append([Float32Array.of(0, 0.5), Float32Array.of(-0.5, 1)]);
    w.append([Float32Array.of(2), Float32Array.of(-2)]);
    const bytes = new DataView(await w.finish().arrayBuffer());
    const text = (o: number) => String.fromCharCode(...new Uint8Array(bytes.buffer, o, 4));
    expect([text(0), text(8), text(12), text(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
    expect(bytes.getUint16(22, true)).toBe(2);
    expect(bytes.getUint32(24, true)).toBe(48_000);
    expect(bytes.getUint32(40, true)).toBe(3 * 2 * 2);
    expect(bytes.getUint32(4, true)).toBe(36 + 12);
    const pcm = Array.from({ length: 6 }, (_, i) => bytes.getInt16(44 + 2 * i, true));
    // Interleaved L R L R …, out-of-range values clipped.
    expect(pcm).toEqual([0, -16383, 16384, 32767, 32767, -32767]);
  });

  test('a mono mix fed to a stereo file is copied to both channels', async () => {
    const w = new WavBlobWriter(8000, 2);
    w.append([Float32Array.of(0.25)]);
    const bytes = new DataView(await w.finish().arrayBuffer());
    expect([bytes.getInt16(44, true), bytes.getInt16(46, true)]).toEqual([8192, 8192]);
  });
});
