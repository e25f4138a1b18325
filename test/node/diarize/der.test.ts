import { describe, expect, test } from 'vitest';
import { diarizationErrorRate } from '../../../src/analysis/diarize/der.ts';
import { assignMinCost } from '../../../src/analysis/diarize/hungarian.ts';

const t = (speaker: string, startMs: number, endMs: number) => ({ speaker, startMs, endMs });

describe('assignMinCost', () => {
  test('finds the optimum where greedy would not', () => {
    // Greedy gives row 0 its cheapest column (0) and leaves row 1 the 100; the optimum swaps.
    expect(
      assignMinCost([
        [1, 2],
        [2, 100],
      ]),
    ).toEqual([1, 0]);
    expect(
      assignMinCost([
        [1, 2, 3],
        [2, 4, 6],
        [3, 6, 9],
      ]).reduce(
        (s, j, i) =>
          s +
          [
            [1, 2, 3],
            [2, 4, 6],
            [3, 6, 9],
          ][i]![j]!,
        0,
      ),
    ).toBe(10);
  });
  test('leaves extra rows unassigned', () => {
    const a = assignMinCost([[5], [1], [3]]);
    expect(a.filter((j) => j >= 0)).toEqual([0]);
    expect(a[1]).toBe(0);
  });
});

describe('diarizationErrorRate', () => {
  test('perfect hypothesis with other labels scores 0', () => {
    const ref = [t('A', 0, 1000), t('B', 1000, 3000)];
    const hyp = [t('SPEAKER_01', 0, 1000), t('SPEAKER_00', 1000, 3000)];
    const s = diarizationErrorRate(ref, hyp);
    expect(s.der).toBe(0);
    expect(s.mapping).toEqual({ A: 'SPEAKER_01', B: 'SPEAKER_00' });
  });

  test('counts miss, false alarm and confusion in ms', () => {
    const ref = [t('A', 0, 1000), t('B', 1000, 2000)];
    // A correct for 0-800, missed 800-1000; B labelled A for 1000-1500 (confusion), B right 1500-2000, FA 2000-2200.
    const hyp = [t('x', 0, 800), t('x', 1000, 1500), t('y', 1500, 2200)];
    const s = diarizationErrorRate(ref, hyp);
    expect(s.scored).toBe(2000);
    expect(s.missed).toBe(200);
    expect(s.falseAlarm).toBe(200);
    expect(s.confusion).toBe(500);
    expect(s.der).toBeCloseTo(0.45, 10);
  });

  test('overlap is scored once per reference speaker', () => {
    const ref = [t('A', 0, 2000), t('B', 1000, 2000)];
    const hyp = [t('a', 0, 2000)];
    const s = diarizationErrorRate(ref, hyp);
    expect(s.scored).toBe(3000);
    expect(s.missed).toBe(1000);
    expect(s.der).toBeCloseTo(1 / 3, 10);
  });

  test('a collar removes errors near reference boundaries only', () => {
    const ref = [t('A', 0, 1000), t('B', 1000, 2000)];
    const hyp = [t('a', 0, 1200), t('b', 1200, 2000)];
    expect(diarizationErrorRate(ref, hyp).confusion).toBe(200);
    const s = diarizationErrorRate(ref, hyp, { collarMs: 250 });
    expect(s.der).toBe(0);
    expect(s.scored).toBe(2000 - 250 - 500 - 250);
  });

  test('an empty hypothesis misses everything', () => {
    expect(diarizationErrorRate([t('A', 0, 500)], []).der).toBe(1);
  });
});
