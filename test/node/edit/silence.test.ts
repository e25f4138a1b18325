import { describe, expect, test } from 'vitest';
import type { TimeRange, Turn } from '../../../src/contract/types.ts';
import {
  checkSilenceSettings,
  findRemovedRanges,
  mergeRanges,
  pausesBetweenTurns,
  resolveSilence,
} from '../../../src/analysis/edit/silence.ts';

describe('resolveSilence', () => {
  test('omitted or null means off with the spec defaults', () => {
    const off = { mode: 'off', minPauseSec: 1.5, keepPauseSec: 0.7, paddingSec: 0.25 };
    expect(resolveSilence(undefined)).toEqual(off);
    expect(resolveSilence(null)).toEqual(off);
  });
  test('given values win over defaults', () => {
    expect(resolveSilence({ mode: 'remove', paddingSec: 0 })).toEqual({
      mode: 'remove',
      minPauseSec: 1.5,
      keepPauseSec: 0.7,
      paddingSec: 0,
    });
  });
});

describe('checkSilenceSettings', () => {
  test('accepts valid settings, including the range ends', () => {
    expect(checkSilenceSettings({ mode: 'off' }, 'silence')).toBeNull();
    expect(
      checkSilenceSettings({ mode: 'tighten', minPauseSec: 0.3, keepPauseSec: 0, paddingSec: 1 }, 'silence'),
    ).toBeNull();
    expect(
      checkSilenceSettings({ mode: 'remove', minPauseSec: 10, keepPauseSec: 3, paddingSec: 0 }, 'silence'),
    ).toBeNull();
  });
  test.each([
    [null, 'silence must be an object with mode (off, tighten, remove)'],
    ['tighten', 'silence must be an object with mode (off, tighten, remove)'],
    [[], 'silence must be an object with mode (off, tighten, remove)'],
    [{}, 'silence.mode must be one of off, tighten, remove'],
    [{ mode: 'shorten' }, 'silence.mode must be one of off, tighten, remove'],
    [{ mode: 'tighten', minPauseSec: 0.29 }, 'silence.minPauseSec must be a number from 0.3 to 10'],
    [{ mode: 'tighten', minPauseSec: 10.5 }, 'silence.minPauseSec must be a number from 0.3 to 10'],
    [{ mode: 'tighten', minPauseSec: '2' }, 'silence.minPauseSec must be a number from 0.3 to 10'],
    [{ mode: 'tighten', keepPauseSec: -0.1 }, 'silence.keepPauseSec must be a number from 0 to 3'],
    [{ mode: 'tighten', keepPauseSec: 3.01 }, 'silence.keepPauseSec must be a number from 0 to 3'],
    [{ mode: 'remove', paddingSec: Number.NaN }, 'silence.paddingSec must be a number from 0 to 1'],
    [{ mode: 'remove', paddingSec: 2 }, 'silence.paddingSec must be a number from 0 to 1'],
    [
      { mode: 'remove', minPause: 2 },
      'silence.minPause is not a silence setting (known: mode, minPauseSec, keepPauseSec, paddingSec)',
    ],
  ])('%j → %s', (value, message) => {
    expect(checkSilenceSettings(value, 'silence')).toBe(message);
  });
  test('names the field it was given', () => {
    expect(checkSilenceSettings({ mode: 'x' }, 'body.silence')).toBe(
      'body.silence.mode must be one of off, tighten, remove',
    );
  });
});

const t = (speaker: string, a: number, b: number): Turn => ({ speaker, startMs: a, endMs: b });

describe('findRemovedRanges', () => {
  const turns = [t('A', 0, 5000), t('B', 9000, 12_000), t('A', 12_500, 20_000), t('B', 11_000, 13_000)];
  const timeline = { startMs: 0, endMs: 30_000 };
  const allQuiet: TimeRange[] = [{ startMs: 0, endMs: 30_000 }];

  test("pauses are the gaps between anyone's turns, not the ends", () => {
    expect(pausesBetweenTurns(turns, 0, 30_000)).toEqual([{ startMs: 5000, endMs: 9000 }]);
  });

  test('tighten keeps keepPauseSec split at both edges', () => {
    const r = findRemovedRanges(turns, timeline, resolveSilence({ mode: 'tighten' }), allQuiet);
    expect(r).toEqual([{ startMs: 5350, endMs: 8650 }]);
  });

  test('tighten keeps at least paddingSec at each edge when keepPauseSec is smaller', () => {
    const r = findRemovedRanges(
      turns,
      timeline,
      resolveSilence({ mode: 'tighten', keepPauseSec: 0.2, paddingSec: 0.3 }),
      allQuiet,
    );
    expect(r).toEqual([{ startMs: 5300, endMs: 8700 }]);
  });

  test('remove keeps paddingSec at both edges', () => {
    const r = findRemovedRanges(turns, timeline, resolveSilence({ mode: 'remove', paddingSec: 0.1 }), allQuiet);
    expect(r).toEqual([{ startMs: 5100, endMs: 8900 }]);
  });

  test('only pauses longer than minPauseSec are touched', () => {
    expect(findRemovedRanges(turns, timeline, resolveSilence({ mode: 'remove', minPauseSec: 4 }), allQuiet)).toEqual(
      [],
    );
    expect(
      findRemovedRanges(turns, timeline, resolveSilence({ mode: 'remove', minPauseSec: 3.99 }), allQuiet),
    ).toHaveLength(1);
  });

  test('off removes nothing; no energy analysis removes nothing', () => {
    expect(findRemovedRanges(turns, timeline, resolveSilence({ mode: 'off' }), allQuiet)).toEqual([]);
    expect(findRemovedRanges(turns, timeline, resolveSilence({ mode: 'remove' }), [])).toEqual([]);
  });

  test('loud non-speech in a pause survives with paddingSec around it', () => {
    const quiet = [
      { startMs: 0, endMs: 6500 },
      { startMs: 7000, endMs: 30_000 },
    ]; // loud 6.5–7 s
    const r = findRemovedRanges(turns, timeline, resolveSilence({ mode: 'remove' }), quiet);
    expect(r).toEqual([
      { startMs: 5250, endMs: 6250 },
      { startMs: 7250, endMs: 8750 },
    ]);
  });

  test('pieces shorter than 50 ms are not removed', () => {
    const quiet = [{ startMs: 5000, endMs: 5620 }]; // shrunk by padding: 5250–5370 ∩ 5250–8750 = 120 ms
    expect(findRemovedRanges(turns, timeline, resolveSilence({ mode: 'remove' }), quiet)).toEqual([
      { startMs: 5250, endMs: 5370 },
    ]);
    const tiny = [{ startMs: 5000, endMs: 5540 }]; // 40 ms left
    expect(findRemovedRanges(turns, timeline, resolveSilence({ mode: 'remove' }), tiny)).toEqual([]);
  });

  test('mergeRanges sorts and joins overlapping or touching ranges', () => {
    expect(
      mergeRanges([
        { startMs: 5, endMs: 8 },
        { startMs: 0, endMs: 2 },
        { startMs: 2, endMs: 3 },
        { startMs: 6, endMs: 7 },
        { startMs: 9, endMs: 9 },
      ]),
    ).toEqual([
      { startMs: 0, endMs: 3 },
      { startMs: 5, endMs: 8 },
    ]);
  });
});
