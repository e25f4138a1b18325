/**
 * Faces followed across a camera's sampled runs: who sits where, how many people the camera
 * shows, and each person's mouth motion as one series (speaking activity).
 *
 * A run is a short stretch of consecutive frames (see the frame sampler); faces are detected on
 * its first frame and their mouth and eye patches compared frame to frame inside it. Cameras of
 * a podcast do not move, so a person's face stays near one place: a face joins the track whose
 * usual place it is near, or starts a new one. A track seen in too few runs is someone passing,
 * or a false detection, and is not a person of this camera.
 *
 * @module
 */

import { cameraToReferenceMs } from '../camera/features.ts';

/** One face found at the start of a run, with its patches' change over the run's frames. */
export interface FaceRunFace {
  score: number;
  /** Box centre and size, fractions of the frame. */
  cx: number;
  cy: number;
  w: number;
  h: number;
  /** The mouth keypoint, fractions of the frame. */
  mx: number;
  my: number;
  /** Frame times (ms) of the changes below (each from the previous frame of the run). */
  t: number[];
  /** Mean absolute change of the mouth patch (luma levels). */
  mouth: number[];
  /**
   * The active-speaker model's logit at each time of `t` (the optional slot,
   * src/models/lr-asd.ts), when it scored this face in this run: higher while this face speaks
   * the sound its camera hears.
   */
  asd?: number[];
}

/** What one sampled run showed. */
export interface FaceRun {
  /** Time (ms) of the run's first frame. */
  t: number;
  faces: FaceRunFace[];
}

/** One person of a camera: where their face usually is and their mouth motion over time. */
export interface FaceTrack {
  /** Median box centre and size (fractions of the frame). */
  cx: number;
  cy: number;
  w: number;
  h: number;
  /** Share of the camera's runs in which this face was found (0..1). */
  presence: number;
  /** Sample times (ms), ascending. */
  t: Float64Array;
  /** Speaking activity per sample: the active-speaker model's logit, else the mouth patch's change (see {@link CameraFaces.activity}). */
  activity: Float32Array;
}

/** A camera's faces: its people, and how steady their number was. */
export interface CameraFaces {
  tracks: FaceTrack[];
  /** Runs looked at. */
  runs: number;
  /** Runs in which the number of faces differed from the number of tracks (people coming and going, or cuts). */
  unsteadyRuns: number;
  /**
   * What the tracks' `activity` is: `asd`, the active-speaker model's logits (every face of
   * every run was scored), or `mouth`, the mouth patch's change (no model, or it missed some).
   */
  activity: 'asd' | 'mouth';
  /** With `mouth` where the model scored some faces: why it was not used. */
  activityNote?: string;
}

/** Options of {@link trackFaces}. */
export interface TrackOptions {
  /** A face belongs to a track when its centre is within this many face widths of the track's. Default 0.5. */
  joinWidths?: number;
  /** A track seen in fewer than this share of the runs is not one of the camera's people. Default 0.3. */
  minPresence?: number;
}

/**
 * Groups the faces of every run into tracks, left to right.
 *
 * @example
 * const { tracks } = trackFaces(probe.runs);
 * tracks.length; // 1: a close-up; 2: a two-shot; 3: a wide
 */
export function trackFaces(runs: readonly FaceRun[], options: TrackOptions = {}): CameraFaces {
  const join = options.joinWidths ?? 0.5;
  const minPresence = options.minPresence ?? 0.3;
  interface Building {
    faces: FaceRunFace[];
    cx: number;
    cy: number;
    w: number;
  }
  const building: Building[] = [];
  for (const run of runs) {
    const taken = new Set<Building>();
    // Strongest faces pick first; each track takes at most one face per run.
    for (const face of [...run.faces].sort((a, b) => b.score - a.score)) {
      let best: Building | undefined;
      let bestD = Infinity;
      for (const b of building) {
        if (taken.has(b)) continue;
        const d = Math.hypot(face.cx - b.cx, face.cy - b.cy) / Math.max(b.w, face.w);
        if (d < join && d < bestD) {
          best = b;
          bestD = d;
        }
      }
      if (!best) {
        best = { faces: [], cx: face.cx, cy: face.cy, w: face.w };
        building.push(best);
      }
      best.faces.push(face);
      taken.add(best);
      // Running mean of the place: a track follows a person who shifts in their seat.
      const n = best.faces.length;
      best.cx += (face.cx - best.cx) / n;
      best.cy += (face.cy - best.cy) / n;
      best.w += (face.w - best.w) / n;
    }
  }
  const total = Math.max(1, runs.length);
  const speaking = speakingActivity(runs);
  const tracks = building
    .filter((b) => b.faces.length / total >= minPresence)
    .map((b) => toTrack(b.faces, b.faces.length / total, speaking.activity))
    .sort((a, b) => a.cx - b.cx);
  const unsteadyRuns = runs.filter((r) => r.faces.length !== tracks.length).length;
  return { tracks, runs: runs.length, unsteadyRuns, ...speaking };
}

/**
 * Which series a camera's faces are judged by: the active-speaker model's logits when it
 * scored every face of every run (a face with samples), else mouth motion for all of them, so
 * that one camera's faces are always compared on one scale. `activityNote` says why the model's
 * scores were left out when it scored only some.
 *
 * @example
 * speakingActivity(probe.runs); // { activity: 'asd' } once the model scored every run
 */
export function speakingActivity(runs: readonly FaceRun[]): Pick<CameraFaces, 'activity' | 'activityNote'> {
  const faces = runs.flatMap((r) => r.faces).filter((f) => f.t.length > 0);
  const scored = faces.filter((f) => f.asd !== undefined && f.asd.length === f.t.length).length;
  if (faces.length > 0 && scored === faces.length) return { activity: 'asd' };
  if (scored === 0) return { activity: 'mouth' };
  return { activity: 'mouth', activityNote: `the active-speaker model scored ${scored} of ${faces.length} faces` };
}

function toTrack(faces: readonly FaceRunFace[], presence: number, by: CameraFaces['activity']): FaceTrack {
  const t: number[] = [];
  const activity: number[] = [];
  for (const f of [...faces].sort((a, b) => (a.t[0] ?? 0) - (b.t[0] ?? 0))) {
    const values = by === 'asd' ? f.asd! : f.mouth;
    for (let i = 0; i < f.t.length; i++) {
      t.push(f.t[i]!);
      activity.push(values[i]!);
    }
  }
  return {
    cx: median(faces.map((f) => f.cx)),
    cy: median(faces.map((f) => f.cy)),
    w: median(faces.map((f) => f.w)),
    h: median(faces.map((f) => f.h)),
    presence,
    t: Float64Array.from(t),
    activity: Float32Array.from(activity),
  };
}

/** The tracks with their times moved to the reference timeline (as `samplesToReference` does for motion). */
export function facesToReference(faces: CameraFaces, offsetMs = 0, driftPpm = 0): CameraFaces {
  const toReference = (ms: number): number => cameraToReferenceMs(ms, offsetMs, driftPpm);
  return { ...faces, tracks: faces.tracks.map((tr) => ({ ...tr, t: tr.t.map(toReference) })) };
}

/**
 * Whether a camera's faces can be trusted: the same people found run after run, each in at
 * least `minPresence` of the runs (default 0.6) and the count right in all but `maxUnsteady` of
 * them (default 0.3). Drawn figures are found as faces now and then; real faces every time.
 */
export function steadyFaces(faces: CameraFaces, options: { minPresence?: number; maxUnsteady?: number } = {}): boolean {
  if (faces.tracks.length === 0 || faces.runs === 0) return false;
  return (
    faces.tracks.every((t) => t.presence >= (options.minPresence ?? 0.6)) &&
    faces.unsteadyRuns / faces.runs <= (options.maxUnsteady ?? 0.3)
  );
}

function median(x: readonly number[]): number {
  const s = [...x].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : 0;
}
