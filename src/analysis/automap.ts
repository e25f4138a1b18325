/**
 * The autoMap decision: once the camera map is known (or known to be impossible), either map
 * the cameras without a person (`map`, the job goes to `ready`) or ask for a mapping (`ask`,
 * the `mapping` webhook is sent, with the proposal when there is one).
 *
 * The spec's "Automatic mapping rules", exactly:
 * - `off`: always ask.
 * - `confident`: map only when sure: every judged speaker (one minute of speech or more) is on
 *   a close-up answered with `high` confidence. A wide or two-shot is used in the edit but never
 *   counts as a speaker's own camera. Cameras that are not sure get no speakers. Any switched
 *   feed (`multi`) holds it back.
 * - `always`: sure answers first, then likely ones (`low`), then the speakers still without a
 *   close-up are distributed over the cameras still without speakers, most talkative first.
 *   It asks only when no proposal can be computed (no camera map, or nobody to place).
 *
 * @module
 */
import type { AutoMapMode, CameraMap, CameraMapCamera, Track } from '../contract/types.ts';

/** Input of {@link decideAutoMap}. */
export interface AutoMapInput {
  mode: AutoMapMode;
  /** The proposal; `null` when none could be computed (for example a proxy failed). */
  cameraMap: CameraMap | null;
  /** Detected speakers with their talk time in ms (any order). */
  speakers: ReadonlyArray<{ speaker: string; talkMs: number }>;
}

/** What the reporter does next. */
export type AutoMapDecision = { action: 'map'; tracks: Track[] } | { action: 'ask'; cameraMap: CameraMap | null };

/**
 * Decides whether the service maps the cameras itself.
 *
 * `tracks` has one entry per video source that shows somebody, in the camera map's camera
 * order; sources that show nobody are left out (the edit does not cut to them).
 *
 * @example
 * const d = decideAutoMap({ mode: job.auto_map, cameraMap, speakers: [{ speaker: 'SPEAKER_00', talkMs: 612_000 }] });
 * if (d.action === 'map') await submit(d.tracks); else await sendMappingWebhook(d.cameraMap);
 */
export function decideAutoMap(input: AutoMapInput): AutoMapDecision {
  const { mode, cameraMap } = input;
  const ask: AutoMapDecision = { action: 'ask', cameraMap };
  if (mode === 'off' || cameraMap === null) return ask;
  if (mode === 'confident') return confident(cameraMap) ?? ask;
  const tracks = always(cameraMap, input.speakers);
  return tracks.length ? { action: 'map', tracks } : ask;
}

function confident(map: CameraMap): AutoMapDecision | null {
  // Switched or operated feeds: the same camera shows different people over time.
  if (map.cameras.some((c) => c.kind === 'multi')) return null;
  const sure = map.cameras.filter((c) => c.confidence === 'high' && c.speakers.length > 0);
  const ownCamera = new Set(sure.filter((c) => c.kind === 'closeup').flatMap((c) => c.speakers));
  // Nobody judged (everyone under a minute): nothing to be sure about.
  if (map.speakers.length === 0 || !map.speakers.every((s) => ownCamera.has(s))) return null;
  return { action: 'map', tracks: toTracks(sure.map((c) => [c, c.speakers])) };
}

function always(map: CameraMap, speakers: AutoMapInput['speakers']): Track[] {
  const judged = new Set(map.speakers);
  const assigned = new Map<CameraMapCamera, string[]>();
  // Sure answers, then likely ones.
  for (const level of ['high', 'low'] as const) {
    for (const c of map.cameras) {
      if (c.confidence !== level || assigned.has(c)) continue;
      const shown = c.speakers.filter((s) => judged.has(s));
      if (shown.length) assigned.set(c, shown);
    }
  }
  const hasOwn = new Set([...assigned.entries()].filter(([c]) => c.kind === 'closeup').flatMap(([, s]) => s));
  // A frozen or unreadable camera shows nobody talking: it gets nobody.
  const free = map.cameras.filter((c) => !assigned.has(c) && c.reason !== 'no_motion');
  const talk = new Map(speakers.map((s) => [s.speaker, s.talkMs]));
  const remaining = map.speakers
    .filter((s) => !hasOwn.has(s))
    .sort((a, b) => (talk.get(b) ?? 0) - (talk.get(a) ?? 0) || a.localeCompare(b));
  remaining.forEach((s, i) => {
    const c = free[i];
    if (c) assigned.set(c, [s]);
  });
  return toTracks(map.cameras.filter((c) => assigned.has(c)).map((c) => [c, assigned.get(c)!]));
}

function toTracks(entries: Array<[CameraMapCamera, string[]]>): Track[] {
  return entries.filter(([, s]) => s.length > 0).map(([c, s]) => ({ sourceId: c.sourceId, speakers: [...s] }));
}
