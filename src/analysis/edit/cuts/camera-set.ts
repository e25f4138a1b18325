/**
 * The camera set of an edit: which video sources show which speakers, each speaker's own
 * close-up, the group shots, and which group shot serves a moment.
 *
 * @module
 */

import type { CameraKind, CameraMap, Track } from '../../../contract/types.ts';

/** A camera the edit may use: a video source that shows at least one speaker. */
export interface EditCamera {
  sourceId: string;
  speakers: string[];
  /** How the reasons name the shot. */
  label: 'close-up' | 'two-shot' | 'wide';
  /** Lower is preferred among equal candidates (camera map kind and confidence). */
  rank: number;
}

/** The cameras of an edit, by role. */
export interface EditCameras {
  /** Each speaker's own camera. */
  closeups: Map<string, EditCamera>;
  /** Cameras showing two or more speakers (a wide or two-shot never counts as anyone's own camera). */
  groups: EditCamera[];
  /** Every usable camera, in track order. */
  all: EditCamera[];
}

const KIND_RANK: Record<CameraKind, number> = { closeup: 0, wide: 0, twoshot: 0, unknown: 1, multi: 2 };

/**
 * Sorts the tracks into close-ups and group shots. Only video sources of the job whose track
 * names speakers are used: the edit never cuts to a camera that shows nobody.
 */
export function editCameras(
  tracks: readonly Track[],
  videoSourceIds: ReadonlySet<string>,
  cameraMap: CameraMap | null,
): EditCameras {
  const speakersOf = new Map<string, string[]>();
  for (const t of tracks) {
    if (!videoSourceIds.has(t.sourceId)) continue;
    const list = speakersOf.get(t.sourceId) ?? [];
    for (const s of t.speakers) if (!list.includes(s)) list.push(s);
    speakersOf.set(t.sourceId, list);
  }
  const all: EditCamera[] = [];
  for (const [sourceId, speakers] of speakersOf) {
    if (speakers.length === 0) continue;
    const mapped = cameraMap?.cameras.find((c) => c.sourceId === sourceId);
    const rank =
      (mapped ? KIND_RANK[mapped.kind] * 3 : 3) +
      (mapped?.confidence === 'high' ? 0 : mapped?.confidence === 'low' ? 1 : 2);
    const label =
      speakers.length === 1 ? 'close-up' : mapped?.kind === 'twoshot' || speakers.length === 2 ? 'two-shot' : 'wide';
    all.push({ sourceId, speakers, label, rank });
  }
  const closeups = new Map<string, EditCamera>();
  const byRank = all.toSorted((a, b) => a.rank - b.rank);
  for (const cam of byRank) {
    const only = cam.speakers.length === 1 ? cam.speakers[0]! : undefined;
    if (only !== undefined && !closeups.has(only)) closeups.set(only, cam);
  }
  // A camera the map calls a close-up of one speaker, placed on a track with others too.
  for (const c of cameraMap?.cameras ?? []) {
    const who = c.kind === 'closeup' && c.speakers.length === 1 ? c.speakers[0]! : undefined;
    if (who === undefined || closeups.has(who)) continue;
    const cam = all.find((a) => a.sourceId === c.sourceId && a.speakers.includes(who));
    if (cam) closeups.set(who, { ...cam, label: 'close-up' });
  }
  const groups = all.filter(
    (c) => c.speakers.length >= 2 && ![...closeups.values()].some((k) => k.sourceId === c.sourceId),
  );
  return { closeups, groups, all };
}

/**
 * The group shot for a moment involving `involved`: the one showing most of them; for an
 * overlap or exchange the tightest such shot (a two-shot of both beats the wide), for a
 * monologue relief the widest (it shows the listeners). `null` when no group shot shows any
 * of them.
 */
export function chooseGroupShot(
  cameras: EditCameras,
  involved: readonly string[],
  purpose: 'together' | 'relief',
): EditCamera | null {
  let best: EditCamera | null = null;
  let bestKey: number[] = [];
  for (const cam of cameras.groups) {
    const shown = involved.filter((s) => cam.speakers.includes(s)).length;
    if (shown === 0) continue;
    const size = purpose === 'together' ? cam.speakers.length : -cam.speakers.length;
    const key = [-shown, size, cam.rank];
    if (!best || compareKeys(key, bestKey) < 0) {
      best = cam;
      bestKey = key;
    }
  }
  return best;
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  return 0;
}
