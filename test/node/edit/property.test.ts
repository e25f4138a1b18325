import { describe, expect, test } from 'vitest';
import { PRESET_IDS, SILENCE_MODES, type Cut } from '../../../src/contract/types.ts';
import { planEdit, resolveSilence } from '../../../src/analysis/edit/edit.ts';
import { prng, randomConversation } from './conversation.ts';
import { planRuleViolations, randomPlan } from './plan-rules.ts';

const CASES = 300;

describe('planEdit over random conversations', () => {
  for (const presetId of PRESET_IDS) {
    for (const mode of SILENCE_MODES) {
      test(`${CASES} cases, preset ${presetId}, silence ${mode}`, () => {
        const rand = prng(1000 * PRESET_IDS.indexOf(presetId) + 7 * SILENCE_MODES.indexOf(mode) + 1);
        // Violations are collected as text (cheap) and asserted once per preset and mode.
        const problems: string[] = [];
        let checkedMin = 0;
        let removedCount = 0;
        for (let n = 0; n < CASES; n++) {
          const { conv, silence, plan } = randomPlan(rand, presetId, mode);
          removedCount += plan.removedRanges.length;
          // The cut-list rules, reasons, savedMs, removal only in quiet turn-free time, shown
          // cameras, shortest shot and longest close-up (plan-rules.ts).
          const { violations, minChecked } = planRuleViolations(conv, plan, mode, presetId);
          for (const v of violations) problems.push(`case ${n} (${JSON.stringify(silence)}): ${v.message}`);
          if (minChecked) checkedMin++;
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
