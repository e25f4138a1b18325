/**
 * Editing presets: how long a shot may be, and how long a cut-away to the wide lasts.
 *
 * The numbers follow common podcast editing practice: a relaxed edit lets a speaker hold the
 * frame for half a minute, a dynamic one cuts every few seconds. All lengths are output time
 * (after silence removal), because that is what a viewer sees.
 *
 * @module
 */

import type { PresetId } from '../../contract/types.ts';

/** The shot-length rules of one preset, in milliseconds of output time. */
export interface EditPreset {
  id: PresetId;
  /** No shot is shorter than this (see docs/decisions/004-cut-list-rules.md for the exceptions). */
  minShotMs: number;
  /** A close-up held longer than this gets a cut-away to a group shot ("monologue relief"). */
  maxShotMs: number;
  /**
   * How long a monologue relief stays on the group shot. The optimal planner (cuts/plan.ts) keeps a
   * cut-away as short as the rules allow, which is the minimum shot, so this equals `minShotMs`;
   * it is kept as the documented figure of each preset.
   */
  reliefMs: number;
}

/**
 * The three presets of recutJob. Invariant the cut planner relies on:
 * `maxShotMs > reliefMs + 2 * minShotMs`, so a monologue can always be split into
 * close-up, relief and close-up pieces that each respect the minimum (the plan is then always
 * feasible when every camera records). A relief costs the speaker's close-up time (about a
 * tenth of a pure monologue).
 */
export const PRESETS: Readonly<Record<PresetId, EditPreset>> = {
  relaxed: { id: 'relaxed', minShotMs: 4000, maxShotMs: 30_000, reliefMs: 4000 },
  balanced: { id: 'balanced', minShotMs: 2500, maxShotMs: 20_000, reliefMs: 2500 },
  dynamic: { id: 'dynamic', minShotMs: 1500, maxShotMs: 12_000, reliefMs: 1500 },
};

/** The preset used when a job has none yet (submitSpeakerMapping). */
export const DEFAULT_PRESET_ID: PresetId = 'balanced';
