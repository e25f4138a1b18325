/** Codec helpers: the H.264 level chosen from the frame size, and Annex B splitting for the libx264 fallback. */
import { describe, expect, test } from 'vitest';
import { avcCodecString } from '../../../src/render/render.ts';
import { splitAnnexB } from '../../../src/render/x264-ffmpeg.ts';

describe('avcCodecString', () => {
  test('High profile at the lowest level that fits', () => {
    expect(avcCodecString(640, 360, 30)).toBe('avc1.64001f'); // 3.1
    expect(avcCodecString(1280, 720, 30)).toBe('avc1.64001f');
    expect(avcCodecString(1920, 1080, 30)).toBe('avc1.640028'); // 4.0
    expect(avcCodecString(1920, 1080, 60)).toBe('avc1.64002a'); // 4.2
    expect(avcCodecString(3840, 2160, 30)).toBe('avc1.640033'); // 5.1
  });
});

describe('splitAnnexB', () => {
  test('3- and 4-byte start codes, NAL bodies intact', () => {
    const s = Uint8Array.of(0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 9, 9, 9);
    expect(splitAnnexB(s).map((n) => Array.from(n))).toEqual([
      [0x67, 1, 2],
      [0x68, 3],
      [0x65, 9, 9, 9],
    ]);
  });
});
