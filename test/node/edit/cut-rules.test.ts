import { describe, expect, test } from 'vitest';
import type { Cut, JobSource, TimeRange } from '../../../src/contract/types.ts';
import { CUT_LIST_RULES, checkCutList, keptMs, referenceTimeline } from '../../../src/analysis/edit/cut-rules.ts';

const sources: JobSource[] = [
  { id: 'a', label: 'A', kind: 'video', ext: 'mp4', durationMs: 10_000 },
  { id: 'b', label: 'B', kind: 'video', ext: 'mp4', durationMs: 8000, offsetMs: 2000 },
  { id: 'mic', label: 'Mic', kind: 'audio', ext: 'wav', durationMs: 60_000 },
];
const ok: Cut[] = [
  { startMs: 0, endMs: 4000, sourceId: 'a' },
  { startMs: 4000, endMs: 7000, sourceId: 'b' },
  { startMs: 7000, endMs: 10_000, sourceId: 'a' },
];
const check = (cuts: Cut[], removedRanges: TimeRange[] = [], srcs = sources) =>
  checkCutList(cuts, { sources: srcs, removedRanges });
const replace = (i: number, patch: Partial<Cut>): Cut[] => ok.map((c, k) => (k === i ? { ...c, ...patch } : c));

describe('referenceTimeline', () => {
  test('spans the video sources only; audio does not extend it', () => {
    expect(referenceTimeline(sources)).toEqual({
      startMs: 0,
      endMs: 10_000,
      spans: [
        { sourceId: 'a', startMs: 0, endMs: 10_000 },
        { sourceId: 'b', startMs: 2000, endMs: 10_000 },
      ],
    });
  });
  test('unknown durations leave the end open', () => {
    expect(referenceTimeline([{ id: 'x', label: 'X', kind: 'video', ext: 'mp4', offsetMs: 500 }]).endMs).toBeNull();
  });
});

describe('checkCutList', () => {
  test('a valid list passes, with removed ranges inside cuts', () => {
    expect(
      check(ok, [
        { startMs: 3000, endMs: 5000 },
        { startMs: 5000, endMs: 6000 },
      ]),
    ).toBeNull();
  });

  test.each<[string, Cut[], TimeRange[], { field: string; index: number; rule: string; message: string }]>([
    [
      'NaN start',
      replace(1, { startMs: Number.NaN }),
      [],
      { field: 'cuts', index: 1, rule: 'cut-finite', message: 'cuts[1].startMs must be a finite number' },
    ],
    [
      'infinite end',
      replace(2, { endMs: Infinity }),
      [],
      { field: 'cuts', index: 2, rule: 'cut-finite', message: 'cuts[2].endMs must be a finite number' },
    ],
    [
      'empty cut',
      replace(1, { endMs: 4000 }),
      [],
      { field: 'cuts', index: 1, rule: 'cut-order', message: 'cuts[1].startMs (4000) must be below endMs (4000)' },
    ],
    [
      'audio source',
      replace(0, { sourceId: 'mic' }),
      [],
      {
        field: 'cuts',
        index: 0,
        rule: 'cut-source',
        message: 'cuts[0].sourceId "mic" is not a video source of the job',
      },
    ],
    [
      'unknown source',
      replace(2, { sourceId: 'zz' }),
      [],
      {
        field: 'cuts',
        index: 2,
        rule: 'cut-source',
        message: 'cuts[2].sourceId "zz" is not a video source of the job',
      },
    ],
    [
      'before the source starts',
      replace(0, { sourceId: 'b' }),
      [],
      {
        field: 'cuts',
        index: 0,
        rule: 'cut-in-source',
        message: 'cuts[0] (0–4000 ms) must lie within source "b" (2000–10000 ms on the reference timeline)',
      },
    ],
    [
      'late start',
      replace(0, { startMs: 500 }),
      [],
      {
        field: 'cuts',
        index: 0,
        rule: 'cut-start',
        message: 'cuts[0].startMs must be 0 (the start of the timeline), not 500',
      },
    ],
    [
      'gap',
      replace(1, { startMs: 4500 }),
      [],
      {
        field: 'cuts',
        index: 1,
        rule: 'cut-gap',
        message: 'cuts[1].startMs (4500) leaves a gap after cuts[0], which ends at 4000',
      },
    ],
    [
      'overlap',
      replace(1, { startMs: 3500 }),
      [],
      {
        field: 'cuts',
        index: 1,
        rule: 'cut-overlap',
        message: 'cuts[1].startMs (3500) overlaps cuts[0], which ends at 4000',
      },
    ],
    [
      'unsorted',
      [ok[0]!, ok[1]!, { startMs: 2000, endMs: 3000, sourceId: 'a' }],
      [],
      {
        field: 'cuts',
        index: 2,
        rule: 'cut-sorted',
        message: 'cuts[2].startMs (2000) must not be before cuts[1].startMs (4000): cuts are sorted by startMs',
      },
    ],
    [
      'short end',
      replace(2, { endMs: 9000 }),
      [],
      {
        field: 'cuts',
        index: 2,
        rule: 'cut-end',
        message: 'cuts[2].endMs must be 10000 (the end of the timeline), not 9000',
      },
    ],
    [
      'empty list',
      [],
      [],
      { field: 'cuts', index: 0, rule: 'cuts-empty', message: 'cuts must cover the timeline; the list is empty' },
    ],
    [
      'removed NaN',
      ok,
      [{ startMs: 1, endMs: Number.NaN }],
      {
        field: 'removedRanges',
        index: 0,
        rule: 'removed-finite',
        message: 'removedRanges[0].endMs must be a finite number',
      },
    ],
    [
      'removed empty',
      ok,
      [
        { startMs: 10, endMs: 20 },
        { startMs: 30, endMs: 30 },
      ],
      {
        field: 'removedRanges',
        index: 1,
        rule: 'removed-order',
        message: 'removedRanges[1].startMs (30) must be below endMs (30)',
      },
    ],
    [
      'removed overlapping',
      ok,
      [
        { startMs: 10, endMs: 20 },
        { startMs: 15, endMs: 30 },
      ],
      {
        field: 'removedRanges',
        index: 1,
        rule: 'removed-sorted',
        message:
          'removedRanges[1].startMs (15) must not be before removedRanges[0].endMs (20): removed ranges are sorted and do not overlap',
      },
    ],
    [
      'removed outside',
      ok,
      [{ startMs: 9000, endMs: 12_000 }],
      {
        field: 'removedRanges',
        index: 0,
        rule: 'removed-in-timeline',
        message: 'removedRanges[0] (9000–12000 ms) must lie within the timeline (0–10000 ms)',
      },
    ],
  ])('%s', (_name, cuts, removed, expected) => {
    expect(check(cuts, removed)).toEqual(expected);
    expect(CUT_LIST_RULES).toContain(expected.rule);
  });

  test('measured bounds allow 1 ms of slack, joins between cuts none', () => {
    expect(check(replace(2, { endMs: 10_000.9 }))).toBeNull();
    expect(check(replace(2, { endMs: 10_001.5 }))?.rule).toBe('cut-in-source');
    expect(check(replace(1, { startMs: 4000.01 }))?.rule).toBe('cut-gap');
  });

  test('a gap is allowed where no video source has footage', () => {
    const holey: JobSource[] = [
      { id: 'a', label: 'A', kind: 'video', ext: 'mp4', durationMs: 4000 },
      { id: 'b', label: 'B', kind: 'video', ext: 'mp4', durationMs: 4000, offsetMs: 6000 },
    ];
    const cuts: Cut[] = [
      { startMs: 0, endMs: 4000, sourceId: 'a' },
      { startMs: 6000, endMs: 10_000, sourceId: 'b' },
    ];
    expect(check(cuts, [], holey)).toBeNull();
    expect(check([cuts[0]!, { ...cuts[1]!, startMs: 7000 }], [], holey)?.rule).toBe('cut-gap');
  });

  test('a job without video sources accepts only an empty list', () => {
    const audioOnly = sources.filter((s) => s.kind === 'audio');
    expect(check([], [], audioOnly)).toBeNull();
    expect(check(ok, [], audioOnly)?.rule).toBe('cut-source');
  });

  test('keptMs subtracts removed ranges', () => {
    expect(
      keptMs(1000, 5000, [
        { startMs: 0, endMs: 1500 },
        { startMs: 2000, endMs: 2500 },
        { startMs: 4900, endMs: 9000 },
      ]),
    ).toBe(2900);
  });
});
