/**
 * Where the frame sampler's runs start, whatever the camera's frame rate and keyframe spacing
 * (issue 52): a run is planned every `spacingS` seconds of the track's own timestamps, and
 * starts at a keyframe when one lies within half a spacing before the planned time, where
 * decoding has to start anyway; otherwise at the planned time itself.
 *
 * Runs used to start only at the keyframe at or before each planned time. Cameras, phones and
 * encoders that put a keyframe every 8–10 s (x264's default of 250 frames: 8.3 s at 29.97 fps,
 * 10.4 s at 23.976 fps) then gave one run per keyframe instead of one every 2 s: 7–9 runs over
 * 75 s instead of 37, and the camera map answered `none` for cameras it maps surely at 2 s
 * keyframes. Now a planned time with no keyframe of its own is reached by decoding on from the
 * run before (or from the keyframe before it): at worst every frame of such a long GOP is
 * decoded, never the same frame twice, and a file whose keyframes fall at the planned times is
 * decoded as before (no frame thrown away).
 *
 * Pure control flow over an abstract decoder ({@link RunSource}), so its timing is unit-tested
 * in Node with made-up timestamps (test/node/camera/run-plan.test.ts).
 *
 * @module
 */

/** A decoded frame as the run loop sees it. */
export interface RunFrame {
  /** Presentation time in seconds (the track's own timestamps). */
  readonly timestamp: number;
  /** Frees the frame. */
  close(): void;
}

/** What the run loop needs of a video track. */
export interface RunSource<F extends RunFrame> {
  /** Timestamp (s) of the last keyframe at or before `t`; null before the first. */
  keyAt(t: number): Promise<number | null>;
  /**
   * Frames in presentation order, decoded from the keyframe at or before `t`, starting with the
   * frame shown at `t` (mediabunny's `VideoSampleSink.samples(t)`).
   */
  framesFrom(t: number): AsyncIterator<F>;
}

/** The runs to sample. */
export interface RunPlan {
  /** The track's first timestamp (s): the first run is planned there. */
  firstS: number;
  /** Runs are planned before this time (s). */
  endS: number;
  /** Seconds between planned runs; 0: every frame is decoded (one long run). */
  spacingS: number;
  /** Consecutive frames per run (with `spacingS: 0`, a detection starts every `perRun` frames). */
  perRun: number;
  /**
   * A frame less than this after the last one taken is passed over (default 0: none), so a 50
   * or 60 fps camera gives the frame steps of a 25 or 30 fps one: motion and mouths change
   * between two taken frames as much at every rate.
   */
  minStepS?: number;
}

/** Where one run starts, and whether the decoder must seek there or decode on from where it is. */
export interface RunStart {
  startS: number;
  seek: boolean;
}

/**
 * Decides where a run planned at `plannedS` starts. `keyS` is the keyframe at or before it;
 * `decodedS` the last frame the open decode handed out (−Infinity when none is open). A keyframe
 * the decoder has not reached yet and at most half a spacing early is a free start; a keyframe
 * further back means seeking there and decoding to the planned time; a keyframe already behind
 * the decoder means decoding on (cheaper than seeking back to it).
 *
 * @example
 * runStart(4, 4, 2.5, 2); // { startS: 4, seek: true }: keyframes every 2 s, as before
 * runStart(4, 0, 2.5, 2); // { startS: 4, seek: false }: one keyframe every 8 s: decode on to 4 s
 */
export function runStart(plannedS: number, keyS: number, decodedS: number, spacingS: number): RunStart {
  if (keyS > decodedS) return { startS: keyS >= plannedS - spacingS / 2 ? keyS : plannedS, seek: true };
  return { startS: plannedS, seek: false };
}

/** A frame this much before a run's start still counts as at it (timestamps are rounded to the track's time base). */
const START_TOLERANCE_S = 1e-3;

/**
 * Decodes the planned runs of a track: hands each run's frames to `take` (first of a run
 * flagged) and closes every frame after it, taken or passed over. Returns the runs that gave
 * frames.
 *
 * @example
 * await sampleRuns(source, { firstS: 0, endS: 75, spacingS: 2, perRun: 15 }, async (frame, first) => {
 *   frames.push(await reduce(frame));
 * });
 */
export async function sampleRuns<F extends RunFrame>(
  source: RunSource<F>,
  plan: RunPlan,
  take: (frame: F, firstOfRun: boolean) => Promise<void>,
  options: { signal?: AbortSignal; onProgress?: (done: number) => void } = {},
): Promise<number> {
  const { firstS, endS, spacingS, perRun } = plan;
  const minStep = plan.minStepS ?? 0;
  let takenS = -Infinity;
  /** Hands a frame to `take` unless it follows the last one taken too closely; says whether it did. */
  const offer = async (frame: F, firstOfRun: boolean): Promise<boolean> => {
    if (frame.timestamp - takenS < minStep - START_TOLERANCE_S) return false;
    takenS = frame.timestamp;
    await take(frame, firstOfRun);
    return true;
  };
  let frames: AsyncIterator<F> | null = null;
  const next = async (): Promise<F | null> => {
    const r = await frames!.next();
    return r.done ? null : r.value;
  };
  try {
    if (spacingS <= 0) {
      frames = source.framesFrom(firstS);
      let n = 0;
      for (let frame = await next(); frame; frame = await next()) {
        try {
          if (frame.timestamp >= endS) break;
          if ((await offer(frame, n % perRun === 0)) && ++n % 64 === 0) options.signal?.throwIfAborted();
        } finally {
          frame.close();
        }
      }
      options.onProgress?.(1);
      return n > 0 ? 1 : 0;
    }
    const planned: number[] = [];
    for (let t = firstS; t < endS; t += spacingS) planned.push(t);
    let decodedS = -Infinity;
    let runs = 0;
    for (const [k, plannedS] of planned.entries()) {
      options.signal?.throwIfAborted();
      const key = (await source.keyAt(plannedS)) ?? firstS;
      const start = runStart(plannedS, key, frames ? decodedS : -Infinity, spacingS);
      if (start.seek || !frames) {
        await frames?.return?.();
        frames = source.framesFrom(start.startS);
      }
      let n = 0;
      let passed = 0;
      takenS = -Infinity;
      while (n < perRun) {
        const frame = await next();
        if (!frame) break;
        try {
          decodedS = frame.timestamp;
          if (frame.timestamp >= endS) break;
          if (frame.timestamp < start.startS - START_TOLERANCE_S) {
            if (++passed % 64 === 0) options.signal?.throwIfAborted();
            continue;
          }
          if (await offer(frame, n === 0)) n++;
        } finally {
          frame.close();
        }
      }
      if (n === 0) break; // the track ended
      runs++;
      options.onProgress?.((k + 1) / planned.length);
      if (n < perRun) break;
    }
    return runs;
  } finally {
    await frames?.return?.();
  }
}
