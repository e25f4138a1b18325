import { describe, expect, test } from 'vitest';
import type { Cut } from '../../../src/contract/types.ts';
// tsconfig.node.json does not reference the DOM project (tsconfig.dom.json) that owns
// src/dom/**, so a static import would fail `tsc -b` (TS6307). The model is pure (contract
// types only), so it is loaded by a computed path and typed loosely here.

type Fn = (...args: any[]) => any;
interface EditorModel {
  boundaryNear: Fn;
  cutIndexAt: Fn;
  editedDurationMs: Fn;
  formatTime: Fn;
  listPauses: Fn;
  moveBoundary: Fn;
  msToX: Fn;
  pickCameraAt: Fn;
  referenceTimeMs: Fn;
  removeRange: Fn;
  restoreRange: Fn;
  setCutCamera: Fn;
  sourceTimeMs: Fn;
  stepMs: Fn;
  xToMs: Fn;
  zoomView: Fn;
}
const MODEL_PATH = '../../../src/dom/editor/model.ts';
const {
  boundaryNear,
  cutIndexAt,
  editedDurationMs,
  formatTime,
  listPauses,
  moveBoundary,
  msToX,
  pickCameraAt,
  referenceTimeMs,
  removeRange,
  restoreRange,
  setCutCamera,
  sourceTimeMs,
  stepMs,
  xToMs,
  zoomView,
} = (await import(/* @vite-ignore */ MODEL_PATH)) as EditorModel;

const cuts: Cut[] = [
  { startMs: 0, endMs: 10_000, sourceId: 'a', reason: 'SPEAKER_00 speaks' },
  { startMs: 10_000, endMs: 20_000, sourceId: 'b', reason: 'SPEAKER_01 speaks' },
  { startMs: 20_000, endMs: 30_000, sourceId: 'a', reason: 'SPEAKER_00 speaks' },
];

describe('view', () => {
  test('ms and x are inverse', () => {
    const view = { startMs: 10_000, endMs: 20_000, widthPx: 500 };
    expect(msToX(view, 15_000)).toBe(250);
    expect(xToMs(view, 250)).toBe(15_000);
  });
  test('zoom keeps the anchor at the same pixel and stays inside the timeline', () => {
    const view = { startMs: 0, endMs: 60_000, widthPx: 600 };
    const zoomed = zoomView(view, 2, 30_000, 60_000);
    expect(zoomed).toEqual({ startMs: 15_000, endMs: 45_000, widthPx: 600 });
    expect(msToX(zoomed, 30_000)).toBe(msToX(view, 30_000));
    expect(zoomView(view, 4, 1_000, 60_000).startMs).toBe(750);
    expect(zoomView({ startMs: 45_000, endMs: 60_000, widthPx: 600 }, 0.5, 59_000, 60_000)).toEqual({
      startMs: 30_000,
      endMs: 60_000,
      widthPx: 600,
    });
    expect(zoomView(view, 1000, 30_000, 60_000).endMs - zoomView(view, 1000, 30_000, 60_000).startMs).toBe(1000);
    expect(zoomView(zoomed, 0.1, 30_000, 60_000)).toEqual({ startMs: 0, endMs: 60_000, widthPx: 600 });
  });
});

describe('cuts', () => {
  test('hit-testing cuts and boundaries', () => {
    expect(cutIndexAt(cuts, 0)).toBe(0);
    expect(cutIndexAt(cuts, 10_000)).toBe(1);
    expect(cutIndexAt(cuts, 30_000)).toBe(-1);
    expect(boundaryNear(cuts, 10_150, 200)).toBe(0);
    expect(boundaryNear(cuts, 19_900, 200)).toBe(1);
    expect(boundaryNear(cuts, 15_000, 200)).toBeNull();
  });
  test('moving a boundary changes both neighbours and is clamped', () => {
    const moved = moveBoundary(cuts, 0, 12_345);
    expect(moved[0]).toMatchObject({ startMs: 0, endMs: 12_345, sourceId: 'a' });
    expect(moved[1]).toMatchObject({ startMs: 12_345, endMs: 20_000, sourceId: 'b' });
    expect(moved[0]!.reason).toMatch(/edited/);
    expect(cuts[0]!.endMs).toBe(10_000);
    expect(moveBoundary(cuts, 0, 50_000)[0]!.endMs).toBe(19_800);
    expect(moveBoundary(cuts, 0, -5)[0]!.endMs).toBe(200);
    expect(() => moveBoundary(cuts, 2, 1)).toThrow(/no boundary/);
  });
  test('changing a cut camera merges neighbours of the same camera', () => {
    const changed = setCutCamera(cuts, 1, 'a');
    expect(changed).toEqual([{ startMs: 0, endMs: 30_000, sourceId: 'a', reason: 'SPEAKER_00 speaks' }]);
    expect(setCutCamera(cuts, 1, 'c')[1]).toMatchObject({ sourceId: 'c', reason: 'edited: camera chosen by reviewer' });
  });
  test('picking a camera at the playhead splits the cut there', () => {
    const picked = pickCameraAt(cuts, 5_000, 'c');
    expect(picked.map((c: Cut) => [c.startMs, c.endMs, c.sourceId])).toEqual([
      [0, 5_000, 'a'],
      [5_000, 10_000, 'c'],
      [10_000, 20_000, 'b'],
      [20_000, 30_000, 'a'],
    ]);
    // Picking the next cut's camera merges into it.
    expect(pickCameraAt(cuts, 5_000, 'b').map((c: Cut) => [c.startMs, c.endMs, c.sourceId])).toEqual([
      [0, 5_000, 'a'],
      [5_000, 20_000, 'b'],
      [20_000, 30_000, 'a'],
    ]);
    // Too close to the cut start: the whole cut changes.
    expect(pickCameraAt(cuts, 10_050, 'c')[1]).toMatchObject({ startMs: 10_000, endMs: 20_000, sourceId: 'c' });
    expect(pickCameraAt(cuts, 40_000, 'c')).toEqual(cuts);
  });
});

describe('pauses', () => {
  const turns = [
    { speaker: 'S0', startMs: 0, endMs: 4_000 },
    { speaker: 'S1', startMs: 6_000, endMs: 9_000 },
    { speaker: 'S0', startMs: 9_100, endMs: 12_000 },
  ];
  test('removing and restoring a pause round-trips', () => {
    const removed = removeRange([], { startMs: 4_200, endMs: 5_800 });
    expect(removed).toEqual([{ startMs: 4_200, endMs: 5_800 }]);
    expect(restoreRange(removed, { startMs: 4_200, endMs: 5_800 })).toEqual([]);
    expect(restoreRange([{ startMs: 0, endMs: 10 }], { startMs: 3, endMs: 5 })).toEqual([
      { startMs: 0, endMs: 3 },
      { startMs: 5, endMs: 10 },
    ]);
    expect(removeRange([{ startMs: 0, endMs: 5 }], { startMs: 4, endMs: 8 })).toEqual([{ startMs: 0, endMs: 8 }]);
  });
  test('the pause list offers gaps to remove and removed ranges to restore', () => {
    expect(listPauses(turns, [], 15_000)).toEqual([
      { startMs: 4_000, endMs: 6_000, removed: false },
      { startMs: 12_000, endMs: 15_000, removed: false },
    ]);
    expect(listPauses(turns, [{ startMs: 4_200, endMs: 5_800 }], 15_000)).toEqual([
      { startMs: 4_200, endMs: 5_800, removed: true },
      { startMs: 12_000, endMs: 15_000, removed: false },
    ]);
  });
  test('edited duration subtracts removed time inside the cuts', () => {
    expect(
      editedDurationMs(cuts, [
        { startMs: 9_000, endMs: 11_000 },
        { startMs: 40_000, endMs: 41_000 },
      ]),
    ).toBe(28_000);
  });
});

describe('clocks and keys', () => {
  test('reference and source time use the sync offset and drift', () => {
    const source = { offsetMs: 2_000, driftPpm: 100 };
    expect(sourceTimeMs(source, 12_000)).toBeCloseTo(10_001, 6);
    expect(referenceTimeMs(source, sourceTimeMs(source, 12_000))).toBeCloseTo(12_000, 6);
    expect(sourceTimeMs({}, 500)).toBe(500);
  });
  test('arrow steps are a frame, or a second with shift', () => {
    expect(stepMs(25, false)).toBe(40);
    expect(stepMs(undefined, false)).toBeCloseTo(33.333, 3);
    expect(stepMs(25, true)).toBe(1000);
  });
  test('time format', () => {
    expect(formatTime(83_450)).toBe('1:23.4');
    expect(formatTime(5_000)).toBe('0:05.0');
  });
});
