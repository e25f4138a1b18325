/**
 * A scripted three-person conversation with close-ups and a wide, run through the whole edit:
 * synthetic audio → envelopeDb → findQuietRanges → planEdit.
 */
import { describe, expect, test } from 'vitest';
import type { Cut } from '../../../src/contract/types.ts';
import { checkCutList, planEdit, resolveSilence } from '../../../src/analysis/edit/edit.ts';
import { PRESETS } from '../../../src/analysis/edit/presets.ts';
import { closeupShare, pausesAfterRemoval, shownMs } from './measure.ts';
import { OVERLAP, closeupOf, laughs, quietRanges, sources, tracks, turns } from './scripted.ts';

function cutAt(cuts: readonly Cut[], ms: number): Cut {
  const c = cuts.find((x) => x.startMs <= ms && ms < x.endMs);
  if (!c) throw new Error(`no cut at ${ms}`);
  return c;
}

describe('scripted conversation', () => {
  test('the energy analysis finds the pauses quiet and the laughter loud', () => {
    const quietAt = (ms: number): boolean => quietRanges.some((q) => q.startMs <= ms && ms < q.endMs);
    expect(quietAt(13_000)).toBe(true);
    expect(quietAt(143_000)).toBe(true);
    expect(quietAt(31_500)).toBe(false);
    expect(quietAt(5_000)).toBe(false);
  });

  for (const presetId of ['relaxed', 'balanced'] as const) {
    test(`${presetId}: at least 90 % of single-speaker speech shows that speaker's close-up`, () => {
      for (const mode of ['off', 'tighten', 'remove'] as const) {
        const plan = planEdit({
          turns,
          tracks,
          sources,
          cameraMap: null,
          presetId,
          silence: resolveSilence({ mode }),
          quietRanges,
        });
        expect(checkCutList(plan.cuts, { sources, removedRanges: plan.removedRanges })).toBeNull();
        expect(closeupShare(turns, plan.cuts, plan.removedRanges, closeupOf), mode).toBeGreaterThanOrEqual(0.9);
      }
    });
  }

  test('dynamic cuts away more often but still follows the speaker most of the time', () => {
    const plan = planEdit({
      turns,
      tracks,
      sources,
      cameraMap: null,
      presetId: 'dynamic',
      silence: resolveSilence({ mode: 'tighten' }),
      quietRanges,
    });
    expect(closeupShare(turns, plan.cuts, plan.removedRanges, closeupOf)).toBeGreaterThanOrEqual(0.85);
  });

  test('tighten leaves keepPauseSec (± 50 ms) of every long quiet pause; remove leaves 2 × paddingSec', () => {
    for (const [mode, expectMs] of [
      ['tighten', 700],
      ['remove', 500],
    ] as const) {
      const plan = planEdit({
        turns,
        tracks,
        sources,
        cameraMap: null,
        presetId: 'balanced',
        silence: resolveSilence({ mode }),
        quietRanges,
      });
      const pauses = pausesAfterRemoval(turns, plan.removedRanges);
      const long = pauses.filter(
        (p) =>
          p.pause.endMs - p.pause.startMs > 1500 &&
          !laughs.some((l) => l.startMs < p.pause.endMs && l.endMs > p.pause.startMs),
      );
      expect(long.length).toBe(4); // 12–14.5, 60.8–63, 110–111.8, 140–146
      for (const p of long)
        expect(Math.abs(p.leftMs - expectMs), `${mode} ${JSON.stringify(p)}`).toBeLessThanOrEqual(50);
      // Short pauses are untouched.
      for (const p of pauses.filter((x) => x.pause.endMs - x.pause.startMs <= 1500))
        expect(p.leftMs).toBe(p.pause.endMs - p.pause.startMs);
      expect(plan.savedMs).toBeGreaterThan(0);
    }
  });

  test('laughter in a pause survives silence removal, with padding around it', () => {
    for (const mode of ['tighten', 'remove'] as const) {
      const plan = planEdit({
        turns,
        tracks,
        sources,
        cameraMap: null,
        presetId: 'balanced',
        silence: resolveSilence({ mode }),
        quietRanges,
      });
      for (const r of plan.removedRanges) {
        for (const l of laughs)
          expect(r.endMs <= l.startMs - 200 || r.startMs >= l.endMs + 200, JSON.stringify(r)).toBe(true);
      }
    }
  });

  test('crosstalk goes to the wide', () => {
    for (const presetId of ['relaxed', 'balanced', 'dynamic'] as const) {
      const plan = planEdit({
        turns,
        tracks,
        sources,
        cameraMap: null,
        presetId,
        silence: resolveSilence(null),
        quietRanges,
      });
      expect(
        shownMs(plan.cuts, 'cam-wide', OVERLAP) / (OVERLAP.endMs - OVERLAP.startMs),
        presetId,
      ).toBeGreaterThanOrEqual(0.9);
      expect(cutAt(plan.cuts, 50_000).reason).toMatch(/overlap SPEAKER_00\+SPEAKER_01 \(wide\)|quick exchange/);
    }
  });

  test('a backchannel does not cause a cut', () => {
    for (const presetId of ['relaxed', 'balanced'] as const) {
      const plan = planEdit({
        turns,
        tracks,
        sources,
        cameraMap: null,
        presetId,
        silence: resolveSilence(null),
        quietRanges,
      });
      const during = cutAt(plan.cuts, 20_300);
      expect(during.sourceId).toBe('cam-1');
      expect(during.startMs).toBeLessThanOrEqual(15_000);
      expect(during.endMs).toBeGreaterThanOrEqual(29_500);
      expect(during.reason).toContain('backchannel SPEAKER_00 ignored');
    }
  });

  test('a long monologue gets a cut-away to the wide and comes back', () => {
    const plan = planEdit({
      turns,
      tracks,
      sources,
      cameraMap: null,
      presetId: 'balanced',
      silence: resolveSilence(null),
      quietRanges,
    });
    const inside = plan.cuts.filter((c) => c.startMs >= 63_000 && c.endMs <= 110_000);
    const relief = inside.filter((c) => c.sourceId === 'cam-wide');
    expect(relief.length).toBeGreaterThanOrEqual(2); // 47 s at 20 s maximum
    for (const r of relief) {
      expect(r.reason).toBe('monologue relief (wide)');
      expect(r.endMs - r.startMs).toBe(PRESETS.balanced.reliefMs);
    }
    expect(cutAt(plan.cuts, 109_000).sourceId).toBe('cam-2');
  });

  test('without a wide, overlaps stay on the current close-up and nothing shows an empty camera', () => {
    const noWide = tracks.filter((t) => t.sourceId !== 'cam-wide').concat({ sourceId: 'cam-wide', speakers: [] });
    const plan = planEdit({
      turns,
      tracks: noWide,
      sources,
      cameraMap: null,
      presetId: 'balanced',
      silence: resolveSilence(null),
      quietRanges,
    });
    expect(checkCutList(plan.cuts, { sources, removedRanges: plan.removedRanges })).toBeNull();
    expect(plan.cuts.every((c) => c.sourceId !== 'cam-wide')).toBe(true);
    expect(closeupShare(turns, plan.cuts, plan.removedRanges, closeupOf)).toBeGreaterThanOrEqual(0.9);
  });

  test('no quiet ranges: nothing is removed even in remove mode', () => {
    const plan = planEdit({
      turns,
      tracks,
      sources,
      cameraMap: null,
      presetId: 'balanced',
      silence: resolveSilence({ mode: 'remove' }),
    });
    expect(plan.removedRanges).toEqual([]);
    expect(plan.savedMs).toBe(0);
  });
});
