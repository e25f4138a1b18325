/**
 * The reasons of the cut list: why each planned shot was chosen, in words the review editor
 * shows.
 *
 * @module
 */

import type { EditCamera } from './camera-set.ts';
import type { PlannedShot } from './shot-planner.ts';
import { STEP_MS, type Exchange, type Steps } from './timeline.ts';

/** What a shot covers: speech per speaker, alone or overlapped. */
interface ShotContent {
  single: Map<string, number>;
  overlap: Map<string, number>;
  overlapMs: number;
  /** First moment (output ms) someone speaks in the shot, per speaker. */
  firstSpeech: Map<string, number>;
  /** Last moment (output ms) someone speaks in the shot, per speaker. */
  lastSpeech: Map<string, number>;
}

function shotContent(steps: Steps, shot: PlannedShot, cams: readonly EditCamera[]): ShotContent {
  const single = new Map<string, number>();
  const overlap = new Map<string, number>();
  const firstSpeech = new Map<string, number>();
  const lastSpeech = new Map<string, number>();
  let overlapMs = 0;
  for (let k = shot.from; k < shot.to; k++) {
    const who = steps.speakers[k]!.filter((s) => cams.some((c) => c.speakers.includes(s)));
    const d = steps.edges[k + 1]! - steps.edges[k]!;
    for (const s of who) {
      if (!firstSpeech.has(s)) firstSpeech.set(s, steps.edges[k]!);
      lastSpeech.set(s, steps.edges[k + 1]!);
    }
    if (who.length === 1) single.set(who[0]!, (single.get(who[0]!) ?? 0) + d);
    else if (who.length > 1) {
      overlapMs += d;
      for (const s of who) overlap.set(s, (overlap.get(s) ?? 0) + d);
    }
  }
  return { single, overlap, overlapMs, firstSpeech, lastSpeech };
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Why a shot was chosen, in words the review editor shows. */
export function shotReason(
  shot: PlannedShot,
  prev: { shot: PlannedShot; reason: string } | undefined,
  steps: Steps,
  cams: readonly EditCamera[],
  closeupIdx: ReadonlyMap<string, number>,
  minMs: number,
  anySpeech: boolean,
  exchanges: readonly Exchange[],
): string {
  const cam = cams[shot.cam]!;
  const content = shotContent(steps, shot, cams);
  const speaking = [...new Set([...content.single.keys(), ...content.overlap.keys()])].sort();
  const startMs = steps.edges[shot.from]!;
  const subject = cam.speakers.length === 1 ? cam.speakers[0]! : [...closeupIdx].find(([, i]) => i === shot.cam)?.[0];
  let reason: string;
  if (subject !== undefined) {
    const spoke = content.firstSpeech.get(subject);
    if (spoke === undefined)
      reason =
        speaking.length > 0
          ? `${subject} listens (close-up)`
          : anySpeech
            ? `pause (close-up)`
            : `nobody speaks (close-up)`;
    else {
      const relief = prev !== undefined && prev.reason.startsWith('monologue relief') && cams[prev.shot.cam] !== cam;
      reason = relief ? `${subject} continues (close-up)` : `${subject} speaks (close-up)`;
      // Started before the speaker's first word: a pre-roll into the pause (or over the end of
      // someone else's turn) so that a short turn still gets a close-up of the minimum length.
      const lead = spoke - startMs;
      if (!relief && prev !== undefined && lead >= STEP_MS)
        reason = `${subject} speaks (close-up, pre-roll ${secs(lead)})`;
    }
    const others = speaking.filter((s) => !cam.speakers.includes(s));
    const first = spoke ?? Infinity;
    const last = content.lastSpeech.get(subject) ?? -Infinity;
    const before = others.filter((o) => content.lastSpeech.get(o)! <= first);
    const after = others.filter((o) => !before.includes(o) && content.firstSpeech.get(o)! >= last);
    const during = others.filter((o) => !before.includes(o) && !after.includes(o));
    const brief = during.filter((o) => (content.single.get(o) ?? 0) + (content.overlap.get(o) ?? 0) < minMs);
    const long = during.filter((o) => !brief.includes(o));
    if (spoke !== undefined && before.length > 0) reason += `; starts over the end of ${before.join(', ')}`;
    if (spoke !== undefined && after.length > 0) reason += `; holds into the start of ${after.join(', ')}`;
    if (brief.length > 0) reason += `; backchannel ${brief.join(', ')} ignored`;
    if (long.length > 0) reason += `; holds while ${long.join(', ')} speaks`;
    return reason;
  }
  const label = cam.label;
  if (speaking.length === 0) return anySpeech ? `pause (${label})` : `nobody speaks (${label})`;
  const singles = [...content.single].filter(([, ms]) => ms > 0);
  const singleMs = singles.reduce((a, [, ms]) => a + ms, 0);
  if (content.overlapMs > 0 && content.overlapMs >= singleMs / 2) {
    const who = [...content.overlap.keys()].sort();
    return `overlap ${who.join('+')} (${label})`;
  }
  const endMs = steps.edges[shot.to]!;
  const exchange = exchanges.find((x) => x.startMs < endMs && x.endMs > startMs);
  if (exchange) return `quick exchange ${exchange.speakers.join('+')} (${label})`;
  // The speaker heard most in the shot names it; others heard alone are listed with why.
  const ranked = singles.toSorted((a, b) => b[1] - a[1]).map(([x]) => x);
  const why = (x: string): string => {
    const own = closeupIdx.get(x);
    if (own === undefined) return `${label}, no close-up`;
    if (!steps.available[own]!.subarray(shot.from, shot.to).every((v) => v === 1))
      return `${label}, close-up not recording`;
    return ranked.length > 1 ? `${label}, turn too short for a close-up` : '';
  };
  const x = ranked[0] ?? speaking[0]!;
  const others = ranked
    .slice(1)
    .map((o) => `; ${o} too (${why(o)})`)
    .join('');
  const main = why(x);
  if (main !== '') return `${x} speaks (${main})${others}`;
  return `monologue relief (${label})`;
}
