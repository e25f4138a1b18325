/**
 * The exact frame rate from packet timestamps (src/media/frame-rate.ts), as containers write
 * them: exact ticks (90000), rounded milliseconds (Matroska), a phone's 600, B-frames out of
 * order, a dropped frame, and a variable-rate phone clip.
 */
import { describe, expect, test } from 'vitest';
import { frameRateOfTimestamps, nearestFrameRate } from '../../../src/media/frame-rate.ts';

/** `count` frame times at `num/den` fps, each rounded to the timescale `resolution` as a muxer does. */
function timestamps(num: number, den: number, resolution: number, count = 240): number[] {
  return Array.from({ length: count }, (_, i) => Math.round((i * den * resolution) / num) / resolution);
}

describe('frameRateOfTimestamps', () => {
  test.each([
    { num: 30000, den: 1001, resolution: 90_000 },
    { num: 30000, den: 1001, resolution: 1_000 },
    { num: 30000, den: 1001, resolution: 600 },
    { num: 24000, den: 1001, resolution: 1_000 },
    { num: 24000, den: 1001, resolution: 24_000 },
    { num: 25, den: 1, resolution: 1_000 },
    { num: 30, den: 1, resolution: 1_000 },
    { num: 60000, den: 1001, resolution: 90_000 },
    { num: 50, den: 1, resolution: 12_800 },
  ])('$num/$den fps at timescale $resolution is exact and constant', ({ num, den, resolution }) => {
    expect(frameRateOfTimestamps(timestamps(num, den, resolution), resolution)).toEqual({
      rate: { num, den },
      variable: false,
    });
  });

  test('B-frames (presentation order differs from decode order) and a dropped frame change nothing', () => {
    const ts = timestamps(30000, 1001, 1_000);
    const reordered = ts.map((_, i) => ts[i % 3 === 1 ? i + 1 : i % 3 === 2 ? i - 1 : i] ?? ts[i]!);
    reordered.splice(100, 1); // one frame missing
    expect(frameRateOfTimestamps(reordered, 1_000)).toEqual({ rate: { num: 30000, den: 1001 }, variable: false });
  });

  test('a phone’s variable frame rate is flagged, its rate the nearest standard one to the average', () => {
    // About 30 fps with durations from 25 to 42 ms (timescale 600, as iPhones write).
    let t = 0;
    const ts: number[] = [];
    for (let i = 0; i < 240; i++) {
      ts.push(Math.round(t * 600) / 600);
      t += (25 + ((i * 37) % 18)) / 1000;
    }
    const found = frameRateOfTimestamps(ts, 600)!;
    expect(found.variable).toBe(true);
    expect(found.rate).toEqual({ num: 30, den: 1 });
  });

  test('a rate of its own stays exact; fewer than two frames give null', () => {
    // 70 ms a frame (14.29 fps) is no standard rate: 1000/70 = 100/7.
    expect(frameRateOfTimestamps(timestamps(1000, 70, 1_000), 1_000)).toEqual({
      rate: { num: 100, den: 7 },
      variable: false,
    });
    expect(frameRateOfTimestamps([0], 1_000)).toBeNull();
    expect(frameRateOfTimestamps([], 1_000)).toBeNull();
  });

  test('nearestFrameRate snaps a number to a standard rate, else keeps thousandths', () => {
    expect(nearestFrameRate(29.97)).toEqual({ num: 30000, den: 1001 });
    expect(nearestFrameRate(23.98)).toEqual({ num: 24000, den: 1001 });
    expect(nearestFrameRate(37.5)).toEqual({ num: 75, den: 2 });
  });
});
