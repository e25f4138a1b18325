/**
 * Faces as evidence for speaker detection from one mixed track: when two people's mouths take
 * turns inside one detected speaker's turns, the audio has taken two people for one, and
 * speaker detection should look for (at least) one speaker more.
 *
 * Each steady face (a person a camera shows run after run, see `trackFaces`) is matched to the
 * detected speaker in whose turns it talks: its mouth is busy (at least half its usual talking
 * level) in at least `minTurns` of them, and at least `minShare` of the turns it talks in are
 * that speaker's. Two faces matched to the same speaker are two people when, within that
 * speaker's turns, their mouths go opposite ways and each talks in turns where the other is
 * still. The same person filmed by two cameras talks in the same turns on both. Pure.
 *
 * @module
 */
import type { Turn } from '../../contract/types.ts';
import type { FaceTrack } from './face-tracks.ts';
import { turnUnits, unitMeans } from './turn-contrast.ts';

/** A steady face of one camera (its times on the reference timeline). */
export interface FaceWitness {
  cameraId: string;
  track: FaceTrack;
}

/** Options of {@link faceSplitHint}. */
export interface FaceSplitOptions {
  /** A face talks for a speaker in at least this many of its turns. Default 3. */
  minTurns?: number;
  /** ...and at least this share of the turns the face talks in are that speaker's. Default 0.6. */
  minShare?: number;
  /** Two faces are two people with at least this many turns each talks in and the other does not. Default 2. */
  minTurnsApart?: number;
}

/** What the faces say about the detected speakers. */
export interface FaceSplitHint {
  /** Speakers to look for at least (the detected count plus the people merged into others). */
  minSpeakers: number;
  /** Per detected speaker that holds several people: the cameras of those faces. */
  merged: Array<{ speaker: string; faces: string[] }>;
}

/**
 * Whether the faces show more people talking than the detected speakers hold.
 *
 * @returns null when every speaker's turns belong to one person (or no face talks clearly).
 * @example
 * const hint = faceSplitHint(result.turns, witnesses);
 * if (hint) result = diarizeMix(mix, 16000, probs, { minSpeakers: hint.minSpeakers });
 */
export function faceSplitHint(
  turns: readonly Turn[],
  faces: readonly FaceWitness[],
  options: FaceSplitOptions = {},
): FaceSplitHint | null {
  const minTurns = options.minTurns ?? 3;
  const minShare = options.minShare ?? 0.6;
  const minApart = options.minTurnsApart ?? 2;
  const speakers = [...new Set(turns.map((t) => t.speaker))];
  if (speakers.length === 0 || faces.length < 2) return null;
  const units = turnUnits(turns);
  // Per face: its mean in every stretch, and whether it talks there.
  const seen = faces.map((face) => {
    const means = unitMeans(face.track, units);
    return { face, means, talking: talkingIn(means) };
  });
  // Each face to the speaker it talks for (if any).
  const bySpeaker = new Map<string, typeof seen>();
  for (const f of seen) {
    const counts = new Map<string, number>();
    let total = 0;
    units.forEach((u, k) => {
      if (!f.talking[k] || u.speaker === '') return;
      counts.set(u.speaker, (counts.get(u.speaker) ?? 0) + 1);
      total++;
    });
    const [best, n] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    if (best && n >= minTurns && n >= minShare * total) bySpeaker.set(best, [...(bySpeaker.get(best) ?? []), f]);
  }
  const merged: FaceSplitHint['merged'] = [];
  let extra = 0;
  for (const [speaker, group] of bySpeaker) {
    if (group.length < 2) continue;
    const own = units.map((u, k) => (u.speaker === speaker ? k : -1)).filter((k) => k >= 0);
    const pick = <T>(x: readonly T[]): T[] => own.map((k) => x[k]!);
    // People: faces whose talking turns differ from every person's found so far.
    const people: Array<(typeof group)[number]> = [];
    for (const f of group) {
      const same = people.some(
        (p) => !twoPeople(pick(p.means), pick(f.means), pick(p.talking), pick(f.talking), minApart),
      );
      if (!same) people.push(f);
    }
    if (people.length > 1) {
      merged.push({ speaker, faces: people.map((p) => p.face.cameraId) });
      extra += people.length - 1;
    }
  }
  return extra > 0 ? { minSpeakers: speakers.length + extra, merged } : null;
}

/**
 * Per stretch (`means`: the face's mean activity in each, null where unsampled): true where the
 * face talks (at least half the median of its busier half of stretches), false where it is
 * still, null where no sample fell in it. A mouth at rest changes a fifth to a third as much as
 * a talking one on the real-face sets, so the two are far apart.
 */
function talkingIn(means: ReadonlyArray<number | null>): Array<boolean | null> {
  const sorted = means.filter((m): m is number => m !== null).sort((x, y) => x - y);
  const busier = sorted.slice(Math.floor(sorted.length / 2));
  const level = busier.length ? busier[Math.floor(busier.length / 2)]! : 0;
  return means.map((m) => (m === null ? null : m >= level / 2));
}

/**
 * Two faces are two people when, over the speaker's turns that both were sampled in (at least
 * 4), their mouth activity goes opposite ways (Pearson r < 0: one talks while the other is
 * still) and each talks in at least `min` turns where the other is still. The same person seen
 * by two cameras (a close-up and a wide) moves the same way in the same turns, even where one
 * camera sees the mouth smaller and noisier.
 */
function twoPeople(
  meansA: ReadonlyArray<number | null>,
  meansB: ReadonlyArray<number | null>,
  a: ReadonlyArray<boolean | null>,
  b: ReadonlyArray<boolean | null>,
  min: number,
): boolean {
  const pairs: Array<[number, number]> = [];
  meansA.forEach((x, k) => {
    const y = meansB[k];
    if (x !== null && x !== undefined && y !== null && y !== undefined) pairs.push([x, y]);
  });
  if (pairs.length < 4) return false;
  const mx = pairs.reduce((s, p) => s + p[0], 0) / pairs.length;
  const my = pairs.reduce((s, p) => s + p[1], 0) / pairs.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const [x, y] of pairs) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  }
  const r = sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
  if (!(r < 0)) return false;
  let onlyA = 0;
  let onlyB = 0;
  for (let k = 0; k < a.length; k++) {
    if (a[k] === null || b[k] === null) continue;
    if (a[k] && !b[k]) onlyA++;
    if (b[k] && !a[k]) onlyB++;
  }
  return onlyA >= min && onlyB >= min;
}
