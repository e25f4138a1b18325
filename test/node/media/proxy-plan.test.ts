/**
 * The proxy's plan (frame size, bitrate, keyframes) and how the muxer's positioned writes reach
 * an append-only store (appends plus head patches). Pure.
 */
import { describe, expect, test } from 'vitest';
import {
  AppendWithHeadPatches,
  PROXY_BITRATE,
  PROXY_KEYFRAME_S,
  PROXY_SHORT_SIDE,
  proxyPlan,
} from '../../../src/media/proxy-plan.ts';

describe('proxyPlan', () => {
  test('scales the short side to 360, keeps the aspect ratio and even sides; never scales up', () => {
    expect(proxyPlan({ width: 3840, height: 2160 })).toEqual({
      width: 640,
      height: 360,
      bitrate: PROXY_BITRATE,
      keyFrameIntervalS: PROXY_KEYFRAME_S,
    });
    expect(proxyPlan({ width: 1920, height: 1080 })).toMatchObject({ width: 640, height: 360 });
    // A phone held upright: its short side is the width.
    expect(proxyPlan({ width: 1080, height: 1920 })).toMatchObject({ width: 360, height: 640 });
    // 4:3 and an odd result rounded to even.
    expect(proxyPlan({ width: 1440, height: 1080 })).toMatchObject({ width: 480, height: 360 });
    expect(proxyPlan({ width: 1001, height: 720 })).toMatchObject({ width: 500, height: 360 });
    // Smaller than a proxy already: kept (made even).
    expect(proxyPlan({ width: 320, height: 241 })).toMatchObject({ width: 320, height: 242 });
    expect(PROXY_SHORT_SIDE).toBe(360);
    expect(PROXY_KEYFRAME_S).toBeLessThanOrEqual(1);
    expect(() => proxyPlan({ width: 0, height: 1080 })).toThrow(/positive/);
  });
});

describe('AppendWithHeadPatches', () => {
  const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

  test('writes in order are appended; a rewrite of the first bytes becomes a patch applied later', () => {
    const writes = new AppendWithHeadPatches(16);
    expect(writes.accept(bytes(1, 2, 3, 4), 0)).toEqual(bytes(1, 2, 3, 4));
    expect(writes.accept(bytes(5, 6), 4)).toEqual(bytes(5, 6));
    // The muxer patches the mdat size at byte 1 once the file is whole.
    expect(writes.accept(bytes(9, 9), 1)).toBeNull();
    // A write that overlaps the end: its first part is a patch, the rest appended.
    expect(writes.accept(bytes(7, 8, 10), 5)).toEqual(bytes(8, 10));
    expect(writes.size).toBe(8);
    expect(writes.patches).toEqual([
      { position: 1, data: bytes(9, 9) },
      { position: 5, data: bytes(7) },
    ]);
    const stored = bytes(1, 2, 3, 4, 5, 6, 8, 10);
    expect(AppendWithHeadPatches.apply(stored, writes.patches)).toEqual(bytes(1, 9, 9, 4, 5, 7, 8, 10));
    // The stored bytes themselves are left as they are (a copy is patched).
    expect(stored).toEqual(bytes(1, 2, 3, 4, 5, 6, 8, 10));
  });

  test('refuses a gap, and a rewrite beyond the head it may patch', () => {
    const writes = new AppendWithHeadPatches(4);
    writes.accept(new Uint8Array(10), 0);
    expect(() => writes.accept(bytes(1), 11)).toThrow(/gap after 10 bytes/);
    expect(() => writes.accept(bytes(1, 2), 3)).toThrow(/beyond the first 4 bytes/);
    expect(() => AppendWithHeadPatches.apply(bytes(1, 2), [{ position: 1, data: bytes(1, 2) }])).toThrow(
      /past the head read/,
    );
  });
});
