/**
 * The autoMap decision: once the camera map is known (or known to be impossible), either map
 * the cameras without a person (`map`, the job goes to `ready`) or ask for a mapping (`ask`,
 * the `mapping` webhook is sent, with the proposal when there is one).
 *
 * Never a guess (issue 35): the service maps only from evidence, and asks where it is weak.
 * "Enough speech" is {@link MIN_SURE_SPEECH_MS} (10 s): below it an answer can be chance.
 * - `off`: always ask.
 * - `confident`: map only when sure: every speaker with enough speech is on a close-up answered
 *   with `high` confidence (the spec says every speaker with a minute of speech; the camera map
 *   is sure sooner, see src/analysis/camera/camera-map.ts). A wide or two-shot is used in the
 *   edit but never counts as a speaker's own camera. Cameras that are not sure get no speakers.
 *   Any switched feed (`multi`) holds it back.
 * - `always`: sure answers, then likely ones (`low`) of speakers with enough speech: every
 *   close-up with a likely speaker is in the edit, unless another camera contradicts it (a sure
 *   close-up of the same speaker elsewhere, or a second likely close-up claiming them:
 *   {@link contradictedCloseups}), or its answer rests on thin evidence ({@link thinCloseups});
 *   a likely switched feed is used only for the speakers no other camera shows better
 *   ({@link weakFeedClaims}). It asks when nothing is usable, and when a
 *   speaker with enough speech is on no camera while a camera has no answer (they may be on
 *   it: a person says). The spec's last step, spreading the speakers left over the cameras
 *   left over by talk time, is a guess and is not done.
 *
 * @module
 */
import type { AutoMapMode, CameraMap, CameraMapCamera, Track } from '../../contract/types.ts';
import { MIN_SURE_SPEECH_MS } from './camera-map.ts';

/**
 * The camera map's proposal as a mapping to confirm: every camera among `videoIds` with the
 * speakers the map names for it, or null when the map names nobody (then a person says who is
 * on which camera: never a guess). Used by the demo's Accept button and the CLI.
 */
export function proposalTracks(map: CameraMap | null, videoIds: readonly string[]): Track[] | null {
  if (!map || !map.cameras.some((c) => c.speakers.length > 0)) return null;
  return map.cameras
    .filter((c) => videoIds.includes(c.sourceId))
    .map((c) => ({ sourceId: c.sourceId, speakers: [...c.speakers] }));
}

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
  const talk = new Map(input.speakers.map((s) => [s.speaker, s.talkMs]));
  const enough = (speaker: string): boolean => (talk.get(speaker) ?? 0) >= MIN_SURE_SPEECH_MS;
  if (mode === 'confident') return confident(cameraMap, enough) ?? ask;
  const tracks = always(cameraMap, enough);
  return tracks?.length ? { action: 'map', tracks } : ask;
}

/** `enough(speaker)`: the speaker has enough speech ({@link MIN_SURE_SPEECH_MS}) to act on. */
type EnoughSpeech = (speaker: string) => boolean;

function confident(map: CameraMap, enough: EnoughSpeech): AutoMapDecision | null {
  // Switched or operated feeds: the same camera shows different people over time.
  if (map.cameras.some((c) => c.kind === 'multi')) return null;
  const thin = thinCloseups(map);
  const sure = map.cameras.filter((c) => c.confidence === 'high' && c.speakers.length > 0 && !thin.has(c));
  const ownCamera = new Set(sure.filter((c) => c.kind === 'closeup').flatMap((c) => c.speakers));
  const major = map.speakers.filter(enough);
  // Nobody with enough speech: nothing to be sure about.
  if (major.length === 0 || !major.every((s) => ownCamera.has(s))) return null;
  return { action: 'map', tracks: toTracks(sure.map((c) => [c, c.speakers])) };
}

function always(map: CameraMap, enough: EnoughSpeech): Track[] | null {
  const judged = new Set(map.speakers);
  const assigned = new Map<CameraMapCamera, string[]>();
  const contradicted = contradictedCloseups(map);
  const thin = thinCloseups(map);
  const weakClaims = weakFeedClaims(map);
  // Sure answers, then likely ones of speakers with enough speech to act on, unless another
  // camera's evidence says the close-up shows someone else.
  for (const level of ['high', 'low'] as const) {
    for (const c of map.cameras) {
      if (c.confidence !== level || assigned.has(c) || contradicted.has(c) || thin.has(c)) continue;
      const shown = c.speakers.filter(
        (s) => judged.has(s) && (level === 'high' || enough(s)) && !weakClaims.get(c)?.has(s),
      );
      if (shown.length) assigned.set(c, shown);
    }
  }
  const onCamera = new Set([...assigned.values()].flat());
  // A frozen or unreadable camera shows nobody talking; any other camera without an answer might.
  const open = map.cameras.some((c) => !assigned.has(c) && c.reason !== 'no_motion');
  const missing = map.speakers.some((s) => enough(s) && !onCamera.has(s));
  if (assigned.size === 0 || (missing && open)) return null;
  return toTracks(map.cameras.filter((c) => assigned.has(c)).map((c) => [c, assigned.get(c)!]));
}

/**
 * Likely (`low`) close-ups the other cameras contradict (issue 51): a `low` answer is not a
 * licence to show a face. A close-up answered `low` for a speaker who has a sure (`high`)
 * close-up elsewhere, or for a speaker another `low` close-up also claims, likely shows someone
 * else: it is not used for that speaker (the job asks, or shows them on a wide, and the camera's
 * `camera_unused` warning says so). Never a face rendered for a speaker when the evidence says it
 * is someone else's.
 */
export function contradictedCloseups(map: CameraMap): Set<CameraMapCamera> {
  const closeups = map.cameras.filter((c) => c.kind === 'closeup' && c.speakers.length > 0);
  const sureOf = new Set(closeups.filter((c) => c.confidence === 'high').flatMap((c) => c.speakers));
  const likely = closeups.filter((c) => c.confidence === 'low');
  const claims = new Map<string, number>();
  for (const c of likely) for (const s of c.speakers) claims.set(s, (claims.get(s) ?? 0) + 1);
  return new Set(likely.filter((c) => c.speakers.some((s) => sureOf.has(s) || (claims.get(s) ?? 0) > 1)));
}

/**
 * A close-up's answer rests on thin evidence when the camera's samples fall in fewer than this
 * many of its speaker's turns ({@link CameraMapCamera.support}): each sampled turn is one chance
 * to see the picture follow the voice, and a handful can line up by chance. Chosen on the
 * tuning splits only (docs/long-footage.md, "Thin evidence").
 */
export const MIN_SAMPLED_TURNS = 6;

/**
 * Close-ups whose answer rests on thin evidence (issue 51): fewer than `minTurns` of the
 * speaker's turns sampled on that camera. They are not used for that speaker, sure or not: the
 * job asks, or shows them on a wide, and the camera's `camera_unused` warning says so. A camera
 * without `support` (no samples, or a map from before it was counted) is not judged thin.
 */
export function thinCloseups(map: CameraMap, minTurns = MIN_SAMPLED_TURNS): Set<CameraMapCamera> {
  return new Set(
    map.cameras.filter(
      (c) =>
        c.kind === 'closeup' &&
        c.support !== undefined &&
        c.speakers.some((s) => (c.support?.turns[s] ?? 0) < minTurns),
    ),
  );
}

/**
 * Speakers a `low` switched-feed (`multi`) answer lists that it must not be used for (issue 51):
 * one a close-up claims (any confidence), one another switched feed responds to more strongly
 * (a higher z), and one the feed's samples fall in fewer than {@link MIN_SAMPLED_TURNS} turns of.
 * A picture that lights up with a voice (a level meter, a waveform) changes in jumps a cut detector
 * takes for cuts, and its close mic's bleed moves it a little with every other voice too: it
 * reads as a feed of several people, and used as one it would show one speaker's meter for
 * another's voice. A real switched feed loses nothing it is needed for: a speaker dropped from it
 * has their own camera.
 */
export function weakFeedClaims(map: CameraMap, minTurns = MIN_SAMPLED_TURNS): Map<CameraMapCamera, Set<string>> {
  const feeds = map.cameras.filter((c) => c.kind === 'multi' && c.confidence === 'low');
  const closeupOf = new Set(
    map.cameras.filter((c) => c.kind === 'closeup' && c.confidence !== 'none').flatMap((c) => c.speakers),
  );
  const z = (c: CameraMapCamera, s: string): number => c.z?.[s] ?? 0;
  const out = new Map<CameraMapCamera, Set<string>>();
  for (const c of feeds) {
    const weak = c.speakers.filter(
      (s) =>
        closeupOf.has(s) ||
        feeds.some((o) => o !== c && o.speakers.includes(s) && z(o, s) > z(c, s)) ||
        (c.support !== undefined && (c.support.turns[s] ?? 0) < minTurns),
    );
    if (weak.length > 0) out.set(c, new Set(weak));
  }
  return out;
}

function toTracks(entries: Array<[CameraMapCamera, string[]]>): Track[] {
  return entries.filter(([, s]) => s.length > 0).map(([c, s]) => ({ sourceId: c.sourceId, speakers: [...s] }));
}
