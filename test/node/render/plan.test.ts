/**
 * Render planning (src/render/plan.ts): frame-accurate segments, durations that match the kept
 * timeline, synced source times, and equal-power crossfades at every audio join.
 */
import { describe, expect, test } from 'vitest';
import { toSourceTime } from '../../../src/analysis/sync/sync.ts';
import { keptPieces, planRender, rangeGain, RenderPlanError } from '../../../src/render/plan.ts';

const clocks = new Map([
  ['a', { offsetMs: 0, driftPpm: 0 }],
  ['b', { offsetMs: 1200, driftPpm: 80 }],
  ['c', { offsetMs: -300, driftPpm: -40 }],
]);

describe('keptPieces', () => {
  test('cuts minus removed ranges, in order, overlaps trimmed', () => {
    const pieces = keptPieces(
      [
        { sourceId: 'b', startMs: 4000, endMs: 9000 },
        { sourceId: 'a', startMs: 0, endMs: 4500 },
      ],
      [
        { startMs: 1000, endMs: 1500 },
        { startMs: 8000, endMs: 12000 },
      ],
    );
    expect(pieces).toEqual([
      { sourceId: 'a', startMs: 0, endMs: 1000 },
      { sourceId: 'a', startMs: 1500, endMs: 4500 },
      { sourceId: 'b', startMs: 4500, endMs: 8000 },
    ]);
  });

  test('a bad range names its index', () => {
    expect(() => keptPieces([{ sourceId: 'a', startMs: 5, endMs: 1 }], [])).toThrow('cuts[0]');
    expect(() => keptPieces([], [{ startMs: NaN, endMs: 1 }])).toThrow('removedRanges[0]');
  });
});

describe('planRender', () => {
  const cuts = [
    { sourceId: 'a', startMs: 0, endMs: 3333 },
    { sourceId: 'b', startMs: 3333, endMs: 7010 },
    { sourceId: 'c', startMs: 7010, endMs: 10_000 },
    { sourceId: 'a', startMs: 10_000, endMs: 14_321 },
  ];
  const removed = [
    { startMs: 5000, endMs: 5777 },
    { startMs: 11_000, endMs: 12_500 },
  ];

  test('segments tile the output on frame boundaries and last the kept timeline ± 1 frame', () => {
    for (const fps of [24, 25, 29.97, 30, 60]) {
      const plan = planRender(cuts, removed, { fps, clocks });
      const frameMs = 1000 / fps;
      expect(plan.keptMs).toBeCloseTo(14_321 - 777 - 1500, 6);
      expect(Math.abs(plan.durationMs - plan.keptMs)).toBeLessThanOrEqual(frameMs / 2 + 1e-9);
      let next = 0;
      for (const s of plan.segments) {
        expect(s.firstFrame).toBe(next);
        expect(s.outStartMs).toBeCloseTo(s.firstFrame * frameMs, 9);
        expect(s.outEndMs).toBeCloseTo((s.firstFrame + s.frameCount) * frameMs, 9);
        next += s.frameCount;
      }
      expect(next).toBe(plan.frameCount);
    }
  });

  test('a removed range splits a cut; the reference jumps over it; source times are synced', () => {
    const plan = planRender(cuts, removed, { fps: 30, clocks });
    expect(plan.segments.map((s) => s.sourceId)).toEqual(['a', 'b', 'b', 'c', 'a', 'a']);
    const [, b1, b2] = plan.segments;
    // b1 ends near the removed range's start, b2 starts near its end (within half a frame).
    expect(Math.abs(b1!.refEndMs - 5000)).toBeLessThanOrEqual(1000 / 60 + 1e-9);
    expect(Math.abs(b2!.refStartMs - 5777)).toBeLessThanOrEqual(1000 / 60 + 1e-9);
    expect(b2!.outStartMs).toBe(b1!.outEndMs);
    for (const s of plan.segments) {
      const clock = clocks.get(s.sourceId)!;
      expect(s.srcStartMs).toBeCloseTo(toSourceTime(s.refStartMs, clock), 9);
      expect(s.srcEndMs).toBeCloseTo(toSourceTime(s.refEndMs, clock), 9);
      // Output time and reference time advance together inside a segment.
      expect(s.refEndMs - s.refStartMs).toBeCloseTo(s.outEndMs - s.outStartMs, 9);
    }
  });

  test('consecutive cuts of one source merge; the main source has the most output time', () => {
    const plan = planRender(
      [
        { sourceId: 'b', startMs: 0, endMs: 1000 },
        { sourceId: 'b', startMs: 1000, endMs: 2000 },
        { sourceId: 'a', startMs: 2000, endMs: 3500 },
      ],
      [],
      { fps: 25, clocks },
    );
    expect(plan.segments.map((s) => [s.sourceId, s.frameCount])).toEqual([
      ['b', 50],
      ['a', 38],
    ]);
    expect(plan.mainSourceId).toBe('b');
  });

  test('audio ranges join only where the reference time jumps, with crossfades there', () => {
    const plan = planRender(cuts, removed, { fps: 30, clocks, fadeMs: 20 });
    expect(plan.audio.map((r) => [r.refStartMs, r.refEndMs])).toEqual([
      [0, 5000],
      [5777, 11_000],
      [12_500, 14_321],
    ]);
    expect(plan.audio.map((r) => [r.fadeInMs, r.fadeOutMs])).toEqual([
      [0, 20],
      [20, 20],
      [20, 0],
    ]);
  });

  test('equal power across each join: gains² sum to 1 everywhere on the output', () => {
    const plan = planRender(cuts, removed, { fps: 30, clocks, fadeMs: 20 });
    let maxStep = 0;
    let worstPower = 0;
    // Every sample (48 kHz) within 30 ms of each join, and every millisecond elsewhere.
    const times: number[] = [];
    for (const r of plan.audio.slice(1))
      for (let t = r.outStartMs - 30; t < r.outStartMs + 30; t += 1000 / 48_000) times.push(t);
    for (let t = 0; t < plan.keptMs; t += 1) times.push(t);
    let prev: { t: number; g: number[] } | null = null;
    for (const t of times) {
      const g = plan.audio.map((r) => rangeGain(r, t));
      worstPower = Math.max(worstPower, Math.abs(g.reduce((s, x) => s + x * x, 0) - 1));
      if (prev && t > prev.t && t - prev.t < 1e-3 * 21)
        for (let k = 0; k < g.length; k++) maxStep = Math.max(maxStep, Math.abs(g[k]! - prev.g[k]!));
      prev = { t, g };
    }
    expect(worstPower).toBeLessThan(1e-9);
    // No gain jumps: the largest step between two samples is that of a 20 ms sine ramp.
    expect(maxStep).toBeLessThan((Math.PI / 2) * (1 / 48_000 / 0.02) * 1.01);
  });

  test('errors name the field', () => {
    expect(() => planRender(cuts, [], { fps: 0, clocks })).toThrow(RenderPlanError);
    expect(() => planRender(cuts, [], { fps: 0, clocks })).toThrow('output.fps');
    expect(() => planRender([{ sourceId: 'zz', startMs: 0, endMs: 1 }], [], { fps: 30, clocks })).toThrow(
      'cuts[0].sourceId',
    );
  });
});
