/**
 * Job warnings (additive): what went wrong without failing a job. Pure helpers shared by the
 * routes, the stage reporter and the webhook dispatcher, which store warnings on the job record.
 *
 * @module
 */

import type { CameraMap, CameraMapCamera } from './types.ts';

/** A warning as stored on a job record: like `JobWarning`, with `at` in ms since epoch. */
export interface StoredWarning {
  code: string;
  message: string;
  sourceId?: string;
  stage?: string;
  at: number;
}

/** A warning before it is stored: its time is set when it is added. */
export type NewWarning = Omit<StoredWarning, 'at'>;

/**
 * `list` with `warning` added, unless one with the same code and source is there already (the
 * first one stays: a retried stage or a resent webhook does not repeat it). Returns `list`
 * itself when nothing was added.
 *
 * @example
 * addWarning([], { code: 'decoder_fallback', message: '…', sourceId: 's1' }, Date.now());
 */
export function addWarning(list: readonly StoredWarning[], warning: NewWarning, at: number): StoredWarning[] {
  const same = list.some((w) => w.code === warning.code && w.sourceId === warning.sourceId);
  if (same) return list as StoredWarning[];
  const stored: StoredWarning = { code: warning.code, message: warning.message, at };
  if (warning.sourceId !== undefined) stored.sourceId = warning.sourceId;
  if (warning.stage !== undefined) stored.stage = warning.stage;
  return [...list, stored];
}

/**
 * `list` with every warning of `code` replaced by `fresh` (for a warning that describes the
 * job's current state, such as an unused camera, recomputed whenever that state changes). The
 * warnings of `code` still true keep their first time.
 */
export function replaceWarnings(
  list: readonly StoredWarning[],
  code: string,
  fresh: readonly NewWarning[],
  at: number,
): StoredWarning[] {
  const kept = list.filter((w) => w.code !== code);
  const before = new Map(list.filter((w) => w.code === code).map((w) => [w.sourceId, w.at]));
  return fresh.reduce((out, w) => addWarning(out, w, before.get(w.sourceId) ?? at), kept);
}

/** What {@link unusedCameraWarnings} reads of a job. */
export interface CameraUseInput {
  sources: ReadonlyArray<{ id: string; kind: string; label: string }>;
  tracks: ReadonlyArray<{ sourceId: string; speakers: readonly string[] }>;
  speakers: readonly string[];
  cameraMap: CameraMap | null;
}

/**
 * A `camera_unused` warning for each camera the mapping gives no speaker while the job has
 * speakers it could show: the edit will never cut to it. Says which camera, why (what the camera
 * map found on it) and what puts it in the edit.
 *
 * @example
 * unusedCameraWarnings({ sources, tracks, speakers: ['SPEAKER_00'], cameraMap }); // [] when every camera has a speaker
 */
export function unusedCameraWarnings(job: CameraUseInput): NewWarning[] {
  if (job.speakers.length === 0) return [];
  const videos = job.sources.filter((s) => s.kind === 'video');
  return videos
    .filter((v) => (job.tracks.find((t) => t.sourceId === v.id)?.speakers.length ?? 0) === 0)
    .map((v) => {
      const same = videos.filter((s) => s.label === v.label).length > 1;
      const name = same ? `"${v.label}" (${v.id})` : `"${v.label}"`;
      return {
        code: 'camera_unused',
        message:
          `camera ${name} is not used in the edit: ${whyUnmatched(job.cameraMap?.cameras.find((c) => c.sourceId === v.id))}. ` +
          `To use it, say who is on it: in the review editor, pick its speaker (or with the CLI, --map ${mapArg(v.label)})`,
        sourceId: v.id,
        stage: 'mapping',
      };
    });
}

/** `NAME=SPEAKER` as a shell takes it (quoted when the name has spaces or quotes). */
function mapArg(label: string): string {
  const arg = `${label}=SPEAKER`;
  return /^[\w.,:+@%/=-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Why the camera map gave a camera no speaker, in plain words. */
function whyUnmatched(camera: CameraMapCamera | undefined): string {
  if (!camera) return 'no one was matched to it (the camera map has no answer for it)';
  if (camera.speakers.length > 0)
    return `the camera map's answer (${camera.speakers.join(', ')}, confidence ${camera.confidence}) was not used: another camera's evidence contradicts it, or it is not sure enough to show without a person`;
  const seen =
    camera.evidence === 'faces' && camera.faces !== undefined
      ? `${camera.faces} ${camera.faces === 1 ? 'face' : 'faces'} seen on it, but no one's mouth moved with a voice clearly enough`
      : "no face was seen on it and its movement did not follow anyone's voice clearly enough";
  return `no one was matched to it (${seen})`;
}
