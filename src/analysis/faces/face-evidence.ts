/**
 * Faces as evidence for speaker detection from one mixed track: when two people's mouths both
 * move with one detected speaker's turns, and in different turns of it, the audio has taken two
 * people for one, and speaker detection should look for (at least) one speaker more.
 *
 * Each steady face (a person a camera shows run after run, see `trackFaces`) is matched to the
 * detected speaker whose turns its mouth moves in (`turnContrast`, t ≥ `zSpeaks`). Two
 * faces matched to the same speaker are two people when, within that speaker's turns, each is
 * clearly the one talking in turns where the other is still; the same person filmed by two
 * cameras talks in the same turns on both. Pure.
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
    const talking = group.map((f) => talkingIn(f.track, units, own, speaker));
    // People: faces whose talking turns differ from every person's found so far.
    const people: number[] = [];
    group.forEach((_, i) => {
      const same = people.some((p) => !apart(talking[p]!, talking[i]!, minApart));
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
 * Per turn of `speaker` (indices `own` of `units`): true where the face talks (its mean above
 * the midpoint between its mean elsewhere and its highest turn mean), false where it is still,
 * null where no sample fell in the turn.
 */
function talkingIn(
  track: FaceTrack,
  units: ReturnType<typeof turnUnits>,
  own: readonly number[],
  speaker: string,
): Array<boolean | null> {
  const means = unitMeans(track, units);
  const elsewhere = means.filter((m, k): m is number => m !== null && units[k]!.speaker !== speaker);
  const base = elsewhere.length ? elsewhere.reduce((a, b) => a + b, 0) / elsewhere.length : 0;
  const ownMeans = own.map((k) => means[k] ?? null);
  const top = Math.max(base, ...ownMeans.filter((m): m is number => m !== null));
  const mid = (base + top) / 2;
  return ownMeans.map((m) => (m === null ? null : m > mid));
}

/** Two faces talk in different turns: each in at least `min` turns where the other is still. */
function apart(a: ReadonlyArray<boolean | null>, b: ReadonlyArray<boolean | null>, min: number): boolean {
  let onlyA = 0;
  let onlyB = 0;
  for (let k = 0; k < a.length; k++) {
    if (a[k] === null || b[k] === null) continue;
    if (a[k] && !b[k]) onlyA++;
    if (b[k] && !a[k]) onlyB++;
  }
  return onlyA >= min && onlyB >= min;
}
