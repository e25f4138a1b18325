import { describe, expect, test } from 'vitest';
import { frameLevelsDb, noiseFloorDb, refineSpeechEdges } from '../../../src/analysis/diarize/edges.ts';
import { seededRandom } from '../../../src/analysis/random.ts';

/** 3 s at 16 kHz: faint noise, a 1 kHz tone (the "word") from 1.00 s to 2.00 s. */
function word(): Float32Array {
  const rand = seededRandom(5);
  const x = new Float32Array(48000);
  for (let i = 0; i < x.length; i++) x[i] = (rand() - 0.5) * 2e-3;
  for (let i = 16000; i < 32000; i++) x[i] = x[i]! + 0.3 * Math.sin((2 * Math.PI * 1000 * i) / 16000);
  return x;
}

describe('refineSpeechEdges', () => {
  const levels = frameLevelsDb(word(), 16000);
  const floor = noiseFloorDb(levels);

  test('the noise floor is the quiet part, far below the word', () => {
    expect(floor).toBeLessThan(-55);
    expect(levels[150]! - floor).toBeGreaterThan(40);
  });

  test('moves a late start and an early end out to the word, and a long tail back in', () => {
    expect(refineSpeechEdges([{ startMs: 1090, endMs: 1930 }], levels, floor)).toEqual([{ startMs: 1000, endMs: 2000 }]);
    expect(refineSpeechEdges([{ startMs: 960, endMs: 2120 }], levels, floor)).toEqual([{ startMs: 1000, endMs: 2000 }]);
  });

  test('moves an edge by at most maxShiftMs', () => {
    expect(refineSpeechEdges([{ startMs: 1300, endMs: 1700 }], levels, floor, { maxShiftMs: 100 })).toEqual([{ startMs: 1200, endMs: 1800 }]);
  });

  test('a segment on noise alone disappears; frames the mask forbids are not speech', () => {
    expect(refineSpeechEdges([{ startMs: 200, endMs: 500 }], levels, floor)).toEqual([]);
    const allowed = new Uint8Array(levels.length).fill(1);
    allowed.fill(0, 100, 140); // the first 400 ms of the word belong to someone else
    expect(refineSpeechEdges([{ startMs: 1500, endMs: 1900 }], levels, floor, { maxShiftMs: 1000 }, allowed)).toEqual([{ startMs: 1400, endMs: 2000 }]);
  });
});
