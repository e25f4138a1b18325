/**
 * Faces as evidence for speaker detection from one mixed track: when two people's mouths both
 * move with one detected speaker's turns, and in different turns of it, the audio has taken two
 * people for one, and speaker detection should look for (at least) one speaker more.
 *
 * Each steady face (a person a camera shows run after run, see `trackFaces`) is matched to the
 * detected speaker whose turns its mouth moves in (`turnContrast`, t ≥ `zSpeaks`). Two
 * faces matched to the same speaker are two people when, within that speaker's turns, their
 * mouths go opposite ways and each is clearly the one talking in turns where the other is still;
 * the same person filmed by two cameras talks in the same turns on both. Pure.
 *
 * @module
 */
import type { Turn } from '../../contract/types.ts';
import type { FaceTrack } from './face-tracks.ts';
import { turnContrast, turnUnits, unitMeans } from './turn-contrast.ts';

/** A steady face of one camera (its times on the reference timeline). */
export interface FaceWitness {
  cameraId: string;
  track: FaceTrack;
}

/** Options of {@link faceSplitHint}. */
export interface FaceSplitOptions {
  /**
   * A face speaks in a speaker's turns at t ≥ this. Default 3 (the camera map's zLow): a face
   * that talks in only half of a merged speaker's turns stands out less than one with all.
   */
  zSpeaks?: number;
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
 * @returns null when every speaker's turns belong to one face (or no face speaks clearly).
 * @example
 * const hint = faceSplitHint(result.turns, witnesses);
 * if (hint) result = diarizeMix(mix, 16000, probs, { minSpeakers: hint.minSpeakers });
 */
export function faceSplitHint(
  turns: readonly Turn[],
  faces: readonly FaceWitness[],
  options: FaceSplitOptions = {},
): FaceSplitHint | null {
  const zSpeaks = options.zSpeaks ?? 3;
  const minApart = options.minTurnsApart ?? 2;
  const speakers = [...new Set(turns.map((t) => t.speaker))];
  if (speakers.length === 0 || faces.length < 2) return null;
  const units = turnUnits(turns);
  // Each face to the speaker it speaks for (if any).
  const bySpeaker = new Map<string, FaceWitness[]>();
  for (const face of faces) {
    let best = '';
    let bestT = zSpeaks;
    for (const s of speakers) {
      const t = turnContrast(face.track, units, s);
      if (t >= bestT) {
        best = s;
        bestT = t;
      }
    }
    if (best) bySpeaker.set(best, [...(bySpeaker.get(best) ?? []), face]);
  }
  const merged: FaceSplitHint['merged'] = [];
  let extra = 0;
  for (const [speaker, group] of bySpeaker) {
    if (group.length < 2) continue;
    const own = units.map((u, k) => (u.speaker === speaker ? k : -1)).filter((k) => k >= 0);
    const means = group.map((f) => {
      const all = unitMeans(f.track, units);
      return own.map((k) => all[k] ?? null);
    });
    const talking = means.map(talkingIn);
    // People: faces whose talking turns differ from every person's found so far.
    const people: number[] = [];
    group.forEach((_, i) => {
      const same = people.some((p) => !twoPeople(means[p]!, means[i]!, talking[p]!, talking[i]!, minApart));
      if (!same) people.push(i);
    });
    if (people.length > 1) {
      merged.push({ speaker, faces: people.map((i) => group[i]!.cameraId) });
      extra += people.length - 1;
    }
  }
  return extra > 0 ? { minSpeakers: speakers.length + extra, merged } : null;
}

/**
 * Per turn of the speaker (`ownMeans`: the face's mean activity in each, null where unsampled):
 * false where the face is still (under half the median of its busier half of those turns), true
 * where it talks, null where no sample fell in the turn. A face that talks in all of the
 * speaker's turns is still in none of them; one that shares them with another person is still,
 * near its own floor, in the other's turns (a mouth at rest changes a fifth to a third as much as
 * a talking one on the real-face sets).
 */
function talkingIn(ownMeans: ReadonlyArray<number | null>): Array<boolean | null> {
  const seen = ownMeans.filter((m): m is number => m !== null).sort((x, y) => x - y);
  const busier = seen.slice(Math.floor(seen.length / 2));
  const level = busier.length ? busier[Math.floor(busier.length / 2)]! : 0;
  return ownMeans.map((m) => (m === null ? null : m >= level / 2));
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
