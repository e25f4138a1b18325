/**
 * The edit rules checked on random conversations: a random conversation planned with random
 * silence settings, and the rules its plan must keep. Shared by
 * test/node/edit/property.test.ts and eval/cuts.ts.
 */
import type { PresetId, SilenceMode, TimeRange } from '../../../src/contract/types.ts';
import { keptMs, totalMs } from '../../../src/analysis/edit/cut-rules.ts';
import { checkCutList, planEdit, resolveSilence, type PlannedEdit } from '../../../src/analysis/edit/edit.ts';
import { PRESETS } from '../../../src/analysis/edit/presets.ts';
import { randomConversation, type Conversation } from './conversation.ts';

/** A random conversation, the silence settings drawn for it, and its plan. */
export interface RandomPlan {
  conv: Conversation;
  silence: ReturnType<typeof resolveSilence>;
  plan: PlannedEdit;
}

/**
 * Draws a conversation (`randomConversation`) and, unless `mode` is off, silence settings
 * (`minPauseSec` 0.3–3.3, `keepPauseSec` 0–1.5, `paddingSec` 0–0.5), then plans the edit with
 * `presetId` and the conversation's quiet ranges.
 */
export function randomPlan(rand: () => number, presetId: PresetId, mode: SilenceMode): RandomPlan {
  const conv = randomConversation(rand);
  const silence = resolveSilence(
    mode === 'off'
      ? { mode }
      : { mode, minPauseSec: 0.3 + rand() * 3, keepPauseSec: rand() * 1.5, paddingSec: rand() * 0.5 },
  );
  const plan = planEdit({ ...conv, presetId, silence, quietRanges: conv.quietRanges });
  return { conv, silence, plan };
}

/**
 * Which rule a violation breaks: the cut-list rules (`checkCutList`, or no cuts at all), a cut
 * without a reason, or the other edit rules.
 */
export type RuleKind = 'cutList' | 'noReason' | 'other';

export interface RuleViolation {
  kind: RuleKind;
  message: string;
}

const inside = (r: TimeRange, ranges: readonly TimeRange[]): boolean =>
  ranges.some((q) => q.startMs <= r.startMs && q.endMs >= r.endMs);

/**
 * The rules `plan` (of `conv`, silence `mode`, preset `presetId`) breaks, in a fixed order, and
 * whether the shortest-shot rule applied (every camera covers the timeline and there is more
 * than one cut).
 */
export function planRuleViolations(
  conv: Conversation,
  plan: PlannedEdit,
  mode: SilenceMode,
  presetId: PresetId,
): { violations: RuleViolation[]; minChecked: boolean } {
  const preset = PRESETS[presetId];
  const violations: RuleViolation[] = [];
  const bad = (kind: RuleKind, message: string): void => {
    violations.push({ kind, message });
  };

  // The cut-list rules.
  const violation = checkCutList(plan.cuts, { sources: conv.sources, removedRanges: plan.removedRanges });
  if (violation) bad('cutList', `rule ${violation.rule}: ${violation.message}`);
  if (plan.cuts.length === 0) bad('cutList', 'no cuts');

  // Every cut says why.
  for (const [i, cut] of plan.cuts.entries()) if (!cut.reason) bad('noReason', `cut ${i} has no reason`);

  // savedMs is the total of the removed ranges; nothing removed when off.
  if (Math.abs(plan.savedMs - totalMs(plan.removedRanges)) > 1e-6)
    bad('other', `savedMs ${plan.savedMs} is not the total of removedRanges`);
  if (mode === 'off' && plan.removedRanges.length > 0) bad('other', 'ranges removed with silence off');

  // Removed only where nobody speaks and the audio is quiet.
  for (const r of plan.removedRanges) {
    if (conv.turns.some((t) => r.startMs < t.endMs && r.endMs > t.startMs))
      bad('other', `removed ${JSON.stringify(r)} cuts into a turn`);
    if (!inside(r, conv.quietRanges)) bad('other', `removed ${JSON.stringify(r)} is not quiet`);
  }

  // Never a camera that shows nobody (while some camera showing somebody is recording).
  const shown = new Set(conv.tracks.filter((t) => t.speakers.length > 0).map((t) => t.sourceId));
  if (conv.fullCoverage)
    for (const cut of plan.cuts)
      if (!shown.has(cut.sourceId)) bad('other', `cut on ${cut.sourceId}, which shows nobody`);

  // Minimum shot length, in output time: every shot at least minShotMs, unless the whole edit
  // is one shot. Forced switches (a camera not recording) are the documented exception, so
  // this is checked where every source covers the timeline.
  const minChecked = conv.fullCoverage && plan.cuts.length > 1;
  if (minChecked) {
    for (const [i, cut] of plan.cuts.entries()) {
      const kept = keptMs(cut.startMs, cut.endMs, plan.removedRanges);
      if (kept < preset.minShotMs - 1e-6) bad('other', `cut ${i} ${JSON.stringify(cut)} lasts ${kept} ms`);
    }
  }

  // Maximum shot length of close-ups when a wide can relieve them.
  if (conv.fullCoverage && conv.hasWide) {
    const closeups = new Set(conv.tracks.filter((t) => t.speakers.length === 1).map((t) => t.sourceId));
    for (const [i, cut] of plan.cuts.entries()) {
      const kept = keptMs(cut.startMs, cut.endMs, plan.removedRanges);
      if (closeups.has(cut.sourceId) && kept > preset.maxShotMs + 1e-6)
        bad('other', `close-up cut ${i} ${JSON.stringify(cut)} lasts ${kept} ms`);
    }
  }
  return { violations, minChecked };
}
