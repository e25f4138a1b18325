import { describe, expect, test } from 'vitest';
import { PRESET_IDS, SILENCE_MODES, type Cut, type TimeRange } from '../../../src/contract/types.ts';
import { keptMs, totalMs } from '../../../src/analysis/cut-rules.ts';
import { checkCutList, planEdit, resolveSilence } from '../../../src/analysis/edit.ts';
import { PRESETS } from '../../../src/analysis/presets.ts';
import { prng, randomConversation } from './conversation.ts';

const CASES = 300;

function inside(r: TimeRange, ranges: readonly TimeRange[]): boolean {
  return ranges.some((q) => q.startMs <= r.startMs && q.endMs >= r.endMs);
}

describe('planEdit over random conversations', () => {
  for (const presetId of PRESET_IDS) {
    for (const mode of SILENCE_MODES) {
      test(`${CASES} cases, preset ${presetId}, silence ${mode}`, () => {
        const preset = PRESETS[presetId];
        const rand = prng(1000 * PRESET_IDS.indexOf(presetId) + 7 * SILENCE_MODES.indexOf(mode) + 1);
        // Violations are collected as text (cheap) and asserted once per preset and mode.
        const problems: string[] = [];
        let checkedMin = 0;
        let removedCount = 0;
        for (let n = 0; n < CASES; n++) {
          const conv = randomConversation(rand);
          const silence = resolveSilence(
            mode === 'off'
              ? { mode }
              : { mode, minPauseSec: 0.3 + rand() * 3, keepPauseSec: rand() * 1.5, paddingSec: rand() * 0.5 },
          );
          const plan = planEdit({ ...conv, presetId, silence, quietRanges: conv.quietRanges });
          const bad = (what: string): void => {
            problems.push(`case ${n} (${JSON.stringify(silence)}): ${what}`);
          };
          removedCount += plan.removedRanges.length;

          // The cut-list rules.
          const violation = checkCutList(plan.cuts, { sources: conv.sources, removedRanges: plan.removedRanges });
          if (violation) bad(`rule ${violation.rule}: ${violation.message}`);
          if (plan.cuts.length === 0) bad('no cuts');

          // Every cut says why.
          for (const [i, cut] of plan.cuts.entries()) if (!cut.reason) bad(`cut ${i} has no reason`);

          // savedMs is the total of the removed ranges; nothing removed when off.
          if (Math.abs(plan.savedMs - totalMs(plan.removedRanges)) > 1e-6)
            bad(`savedMs ${plan.savedMs} is not the total of removedRanges`);
          if (mode === 'off' && plan.removedRanges.length > 0) bad('ranges removed with silence off');

          // Removed only where nobody speaks and the audio is quiet.
          for (const r of plan.removedRanges) {
            if (conv.turns.some((t) => r.startMs < t.endMs && r.endMs > t.startMs))
              bad(`removed ${JSON.stringify(r)} cuts into a turn`);
            if (!inside(r, conv.quietRanges)) bad(`removed ${JSON.stringify(r)} is not quiet`);
          }

          // Never a camera that shows nobody (while some camera showing somebody is recording).
          const shown = new Set(conv.tracks.filter((t) => t.speakers.length > 0).map((t) => t.sourceId));
          if (conv.fullCoverage)
            for (const cut of plan.cuts)
              if (!shown.has(cut.sourceId)) bad(`cut on ${cut.sourceId}, which shows nobody`);

          // Minimum shot length, in output time: every shot at least minShotMs, unless the
          // whole edit is one shot. Forced switches (a camera not recording) are the documented
          // exception, so this is checked where every source covers the timeline.
          if (conv.fullCoverage && plan.cuts.length > 1) {
            checkedMin++;
            for (const [i, cut] of plan.cuts.entries()) {
              const kept = keptMs(cut.startMs, cut.endMs, plan.removedRanges);
              if (kept < preset.minShotMs - 1e-6) bad(`cut ${i} ${JSON.stringify(cut)} lasts ${kept} ms`);
            }
          }

          // Maximum shot length of close-ups when a wide can relieve them.
          if (conv.fullCoverage && conv.hasWide) {
            const closeups = new Set(conv.tracks.filter((t) => t.speakers.length === 1).map((t) => t.sourceId));
            for (const [i, cut] of plan.cuts.entries()) {
              const kept = keptMs(cut.startMs, cut.endMs, plan.removedRanges);
              if (closeups.has(cut.sourceId) && kept > preset.maxShotMs + 1e-6)
                bad(`close-up cut ${i} ${JSON.stringify(cut)} lasts ${kept} ms`);
            }
          }
        }
        expect(problems.slice(0, 5)).toEqual([]);
        // The generator exercises what the checks are about.
        expect(checkedMin).toBeGreaterThan(CASES / 3);
        if (mode !== 'off') expect(removedCount).toBeGreaterThan(CASES);
      });
    }
  }

  test('a cut list is the same for the same input (deterministic)', () => {
    const conv = randomConversation(prng(42), { turnCount: 30 });
    const input = {
      ...conv,
      presetId: 'balanced' as const,
      silence: resolveSilence({ mode: 'tighten' }),
      quietRanges: conv.quietRanges,
    };
    const a: Cut[] = planEdit(input).cuts;
    const b: Cut[] = planEdit(input).cuts;
    expect(a).toEqual(b);
  });
});
