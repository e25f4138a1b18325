import { describe, expect, test } from 'vitest';
import {
  ENVELOPE_FLOOR_DB,
  adaptiveQuietThresholdDb,
  envelopeDb,
  findQuietRanges,
} from '../../../src/analysis/speech/energy.ts';

describe('envelopeDb', () => {
  test('a full-scale sine is about −3 dBFS, digital silence is the floor', () => {
    const rate = 16_000;
    const samples = new Float32Array(rate); // 1 s: 0.5 s sine, 0.5 s zeros
    for (let i = 0; i < rate / 2; i++) samples[i] = Math.sin((2 * Math.PI * 1000 * i) / rate);
    const db = envelopeDb(samples, rate);
    expect(db.length).toBe(100);
    expect(db[10]!).toBeCloseTo(-3.01, 1);
    expect(db[80]!).toBe(ENVELOPE_FLOOR_DB);
  });
});

describe('findQuietRanges', () => {
  const env = (parts: Array<[number, number]>): Float32Array =>
    Float32Array.from(parts.flatMap(([db, frames]) => Array<number>(frames).fill(db)));

  test('quiet frames become ranges in ms, shifted by offsetMs', () => {
    const e = env([
      [-20, 100],
      [-60, 50],
      [-20, 100],
    ]);
    expect(findQuietRanges(e, { offsetMs: 1000 })).toEqual([{ startMs: 2000, endMs: 2500 }]);
  });

  test('quiet runs shorter than minQuietMs are dropped; short blips are bridged', () => {
    const e = env([
      [-20, 50],
      [-60, 10], // 100 ms: too short
      [-20, 50],
      [-60, 30],
      [-20, 3], // 30 ms click
      [-60, 30],
      [-20, 50],
    ]);
    expect(findQuietRanges(e)).toEqual([{ startMs: 1100, endMs: 1730 }]);
  });

  test('the adaptive threshold sits between room tone and speech', () => {
    const e = env([
      [-20, 500],
      [-55, 500],
    ]);
    const th = adaptiveQuietThresholdDb(e);
    expect(th).toBeGreaterThan(-55);
    expect(th).toBeLessThan(-20);
    expect(adaptiveQuietThresholdDb(env([[-50, 100]]))).toBe(-50); // all room tone: all quiet
    expect(findQuietRanges(env([[-50, 100]]))).toEqual([{ startMs: 0, endMs: 1000 }]);
  });

  test('an explicit threshold is used as given', () => {
    const e = env([
      [-30, 50],
      [-40, 50],
    ]);
    expect(findQuietRanges(e, { thresholdDb: -35 })).toEqual([{ startMs: 500, endMs: 1000 }]);
    expect(findQuietRanges(e, { thresholdDb: -45 })).toEqual([]);
  });
});
