/**
 * The camera map: who is on which camera, worked out from how each camera's picture moves
 * while each speaker talks (mouths and heads move with speech).
 *
 * Per camera and per judged speaker, the motion of the whole frame and of its left, middle
 * and right thirds is correlated with the speaker's speech activity (lag search ±1 s) and
 * scored against circular shifts (z-score). A camera that responds to one speaker is a
 * close-up, to two in different thirds a two-shot, to three a wide; a camera whose whole
 * picture changes at once several times is a switched feed (`multi`); a frozen picture gets
 * reason `no_motion`.
 *
 * @module
 */
import type {
  CameraConfidence,
  CameraKind,
  CameraMap,
  CameraMapCamera,
  CameraSupport,
  Turn,
} from '../../contract/types.ts';
import { steadyFaces, type CameraFaces } from '../faces/face-tracks.ts';
import { turnContrast, turnUnits, unitMeans } from '../faces/turn-contrast.ts';
import type { MotionSamples } from './features.ts';
import type { CameraMeasures } from './measures.ts';
import {
  laggedActivity,
  speakerIntervals,
  speechResponse,
  standardize,
  talkTimeMs,
  type ResponseOptions,
} from './correlation.ts';

/**
 * A speaker is judged with at least this much speech; `droppedSpeakers` are those with less (a
 * stray word, a false speaker). The spec says one minute; that left every podcast shorter than
 * a few minutes unmapped, and leaving speakers out made other answers wrong (their close-up
 * went to someone else): on the 90 s fixture, 4 seeds × 18 prefixes, judging only speakers with
 * ≥ 10 s gave 7 wrong `high` answers, ≥ 1 s with {@link MIN_SURE_SPEECH_MS} none (issue 35;
 * docs/camera-map.md).
 */
export const MIN_SPEECH_MS = 1_000;

/**
 * An answer is sure (`high`) only for speakers with at least this much speech: on the same
 * sweep, sure answers on 3–8 s of speech were wrong on 2 of 72 prefixes, from 5 s on none; 10 s
 * keeps a margin and does not delay the first sure map (70 / never / 50 / 85 s).
 */
export const MIN_SURE_SPEECH_MS = 10_000;

/** The spec's one minute: `confident` auto-mapping needs every speaker with this much speech sure (src/analysis/camera/automap.ts). */
export const SPEC_MIN_SPEECH_MS = 60_000;

/** Tuning of {@link computeCameraMap}; every field has a default measured on the fixtures. */
export interface CameraMapOptions extends ResponseOptions {
  /** z at or above which an answer is sure (`high`). Default 5. */
  zHigh?: number;
  /** z at or above which a speaker counts as shown at all (`low`). Default 3. */
  zLow?: number;
  /** Below this 95th percentile of whole-frame motion (luma levels) a camera has no motion. Default 0.05. */
  noMotionLuma?: number;
  /**
   * A switched feed (`multi`) has at least `minCuts` cuts (default 2) and at least
   * `minCutsPerMinute` of its sampled span (default 0.5): a fixed camera may show a rare
   * spike (someone walks past), a switched feed cuts every few seconds.
   */
  minCuts?: number;
  minCutsPerMinute?: number;
  /** Fewer usable samples than this: the camera cannot be judged. Default 30. */
  minSamples?: number;
  /**
   * An answer is sure (`high`) only for speakers with at least this much speech: a few seconds
   * of turns can line up with motion by chance. Default {@link MIN_SURE_SPEECH_MS}.
   */
  minSureSpeechMs?: number;
  /** Faces: each person found in at least this share of the runs. Default 0.6. */
  minFacePresence?: number;
  /** Faces: the number found differs from the camera's people in at most this share of the runs. Default 0.3. */
  maxUnsteady?: number;
  /**
   * Motion is averaged over this window (centred, inside a run) before correlating. Default
   * 400 ms: a mouth moves syllable by syllable, speech activity is on for whole turns.
   */
  smoothMs?: number;
}

/** Input of {@link computeCameraMap}. */
export interface CameraMapInput {
  /**
   * Per camera its measurements (`CameraMeasures`: its motion and, when faces were looked for,
   * its faces), in reference time (`measuresToReference`). A camera with faces is judged by its
   * faces' mouths; one without by motion in its thirds.
   */
  cameras: Array<{ sourceId: string } & CameraMeasures>;
  /** Speech turns in reference time (sample times must be in reference time too). */
  turns: readonly Turn[];
  /** Speakers with less speech are dropped (not judged). Default {@link MIN_SPEECH_MS} (1 s). */
  minSpeechMs?: number;
  /** `computedAt`; default the current time. */
  now?: string;
  options?: CameraMapOptions;
}

const REGIONS = ['left', 'middle', 'right'] as const;
type Third = (typeof REGIONS)[number];

/**
 * Works out the CameraMap from motion samples and speech turns.
 *
 * Runs in about 8 s for 3 cameras × 3 hours sampled every 6 s on a loaded 2-core machine
 * (bench/camera/map-cost.ts): call it in a worker (`VisionWorkerApi.cameraMap`).
 *
 * @throws Error naming the camera whose sample arrays differ in length.
 * @example
 * const map = computeCameraMap({
 *   cameras: [{ sourceId: camA, samples: samplesToReference(motionFeatures(frames), offsetMs, driftPpm) }],
 *   turns,
 * });
 */
export function computeCameraMap(input: CameraMapInput): CameraMap {
  input.cameras.forEach((c, i) => {
    const s = c.samples;
    if (!s) return;
    for (const field of ['whole', 'left', 'middle', 'right', 'sceneCut'] as const) {
      if (s[field].length !== s.t.length) {
        throw new Error(`cameras[${i}].samples.${field} has ${s[field].length} values but samples.t has ${s.t.length}`);
      }
    }
  });
  const opts = input.options ?? {};
  const minSpeechMs = input.minSpeechMs ?? MIN_SPEECH_MS;
  const names = [...new Set(input.turns.map((x) => x.speaker))];
  const talk = new Map(names.map((s) => [s, talkTimeMs(input.turns, s)]));
  const byTalk = [...names].sort((a, b) => talk.get(b)! - talk.get(a)! || a.localeCompare(b));
  const judged = byTalk.filter((s) => talk.get(s)! >= minSpeechMs);
  const dropped = byTalk.filter((s) => talk.get(s)! < minSpeechMs);
  const cameras = input.cameras.map((c) => {
    const answer = judgeCamera(c.sourceId, c.samples, c.faces ?? null, input.turns, judged, talk, opts);
    return c.samples ? { ...answer, support: cameraSupport(c.samples, input.turns, judged) } : answer;
  });
  const sure = new Set(cameras.filter((c) => c.confidence === 'high').flatMap((c) => c.speakers));
  return {
    version: 1,
    computedAt: input.now ?? new Date().toISOString(),
    speakers: judged,
    unassignedSpeakers: judged.filter((s) => !sure.has(s)),
    droppedSpeakers: dropped,
    cameras,
  };
}

/** Two samples further apart than this belong to different sampled runs (a run's frames are 33–40 ms apart). */
const RUN_GAP_MS = 250;

/**
 * How much evidence the pictures of one camera give about each judged speaker (issue 51): the
 * sampled runs and motion samples, and per speaker the turns the samples fall in and the seconds
 * of their speech they cover. A camera is sampled in short runs spread over the footage (at most
 * 160, every 23 s over an hour), so a long recording can give a speaker fewer sampled turns than
 * a short one sampled every 2 s; each sampled turn is one chance to see the picture follow their
 * voice, which is what an answer needs several of (src/analysis/camera/automap.ts `thinCloseups`).
 *
 * @example
 * cameraSupport(samples, turns, ['SPEAKER_00']); // { runs: 160, samples: 2240, turns: { SPEAKER_00: 41 }, seconds: { SPEAKER_00: 23.1 } }
 */
export function cameraSupport(
  samples: MotionSamples,
  turns: readonly Turn[],
  judged: readonly string[],
): CameraSupport {
  const t = samples.t;
  let runs = 0;
  const gaps: number[] = [];
  for (let i = 0; i < t.length; i++) {
    const gap = i === 0 ? Infinity : t[i]! - t[i - 1]!;
    if (gap > RUN_GAP_MS) runs++;
    else gaps.push(gap);
  }
  // Each sample stands for the time since the frame before it (the run's frame interval).
  const step = gaps.length ? gaps.sort((a, b) => a - b)[gaps.length >> 1]! : 0;
  const sampledTurns: Record<string, number> = {};
  const seconds: Record<string, number> = {};
  for (const speaker of judged) {
    const iv = speakerIntervals(turns, speaker);
    let hitTurns = 0;
    let inside = 0;
    // Samples and intervals are both sorted: one pass.
    let i = 0;
    for (let k = 0; k < iv.length; k += 2) {
      const a = iv[k]!;
      const b = iv[k + 1]!;
      while (i < t.length && t[i]! < a) i++;
      let n = 0;
      for (let j = i; j < t.length && t[j]! < b; j++) if (!samples.sceneCut[j]) n++;
      if (n > 0) hitTurns++;
      inside += n;
    }
    sampledTurns[speaker] = hitTurns;
    seconds[speaker] = Math.round((inside * step) / 100) / 10;
  }
  return { runs, samples: t.length, turns: sampledTurns, seconds };
}

function judgeCamera(
  sourceId: string,
  samples: MotionSamples | null,
  faces: CameraFaces | null,
  turns: readonly Turn[],
  judged: readonly string[],
  talk: ReadonlyMap<string, number>,
  opts: CameraMapOptions,
): CameraMapCamera {
  const zHigh = opts.zHigh ?? 5;
  const minSure = opts.minSureSpeechMs ?? MIN_SURE_SPEECH_MS;
  const enough = (speaker: string): boolean => (talk.get(speaker) ?? 0) >= minSure;
  const zLow = opts.zLow ?? 3;
  const noAnswer = (kind: CameraKind, reason?: string): CameraMapCamera => ({
    sourceId,
    kind,
    confidence: 'none',
    speakers: [],
    ...(reason ? { reason } : {}),
  });
  if (!samples || samples.t.length < (opts.minSamples ?? 30)) return noAnswer('unknown', 'no_motion');
  if (percentile(samples.whole, 0.95) < (opts.noMotionLuma ?? 0.05)) return noAnswer('unknown', 'no_motion');

  const motion = samples;
  const { cuts, pick, times, series } = motionSeries(motion, opts);
  const { z, lagErrorS, perThird, wholeZ } = speakerResponses(judged, turns, times, series, opts);
  const diag = judged.length ? { z, lagErrorS } : {};

  const bestOf = (s: string): number => Math.max(wholeZ.get(s)!, ...Object.values(perThird.get(s)!));
  const responders = judged.filter((s) => bestOf(s) >= zLow).sort((a, b) => bestOf(b) - bestOf(a));

  const spanMin = (samples.t[samples.t.length - 1]! - samples.t[0]!) / 60_000;
  if (cuts >= (opts.minCuts ?? 2) && cuts >= (opts.minCutsPerMinute ?? 0.5) * spanMin) {
    // A switched feed shows several people one after another; list who it responds to.
    return {
      sourceId,
      kind: 'multi',
      confidence: responders.length ? 'low' : 'none',
      speakers: responders,
      ...diag,
    };
  }
  const byMotion = judgeByMotion();
  if (
    !faces ||
    !steadyFaces(faces, {
      ...(opts.minFacePresence !== undefined ? { minPresence: opts.minFacePresence } : {}),
      ...(opts.maxUnsteady !== undefined ? { maxUnsteady: opts.maxUnsteady } : {}),
    })
  )
    return byMotion;
  const byFaces = judgeFaces(sourceId, faces, turns, judged, enough, opts);
  // Both read the same picture: when motion in the thirds is sure of the same answer, so is the map.
  const agree =
    byMotion.kind === byFaces.kind &&
    byMotion.speakers.join() === byFaces.speakers.join() &&
    JSON.stringify(byMotion.positions ?? {}) === JSON.stringify(byFaces.positions ?? {});
  return agree && byMotion.confidence === 'high' ? { ...byFaces, confidence: 'high' } : byFaces;

  function judgeByMotion(): CameraMapCamera {
    if (responders.length === 0) return { ...noAnswer('unknown'), ...diag };

    const inThirds = placeInThirds(responders, perThird, zLow);
    // Two responders in neighbouring thirds (the middle and a side) look as much like a close-up
    // framed off-centre as like a two-shot: one face or display across a third's edge, with
    // another speaker's bleed (a lying level meter lights its first segments for a quiet voice
    // and its last ones only for its own speaker's: issue 51). A two-shot's people sit in
    // opposite halves, the left and right thirds, so this reads as a close-up of the stronger,
    // never sure (the other responds).
    const neighbours = inThirds.length === 2 && inThirds.some(([, r]) => r === 'middle');

    if (inThirds.length >= 2 && !neighbours) {
      const shown = inThirds.slice(0, 3);
      const kind: CameraKind = shown.length === 3 ? 'wide' : 'twoshot';
      const positions: NonNullable<CameraMapCamera['positions']> = {};
      if (kind === 'wide') {
        positions.left = shown[0]![0];
        positions.middle = shown[1]![0];
        positions.right = shown[2]![0];
      } else {
        positions.left = shown[0]![0];
        positions.right = shown[1]![0];
      }
      const confidence: CameraConfidence = shown.every(([s, r]) => perThird.get(s)![r] >= zHigh && enough(s))
        ? 'high'
        : 'low';
      return { sourceId, kind, confidence, speakers: shown.map(([s]) => s), positions, ...diag };
    }

    // One speaker: a close-up. Sure only if nobody else comes near and the motion is centred:
    // a speaker moving only one side of the picture may be half of a two-shot whose other
    // person has not spoken (yet).
    const top = responders[0]!;
    const runnerUp = responders[1];
    const clear = runnerUp === undefined || bestOf(runnerUp) < zLow;
    // Compare how much each third moves more while the speaker talks, in luma levels (z-scores
    // saturate when the signal is strong, so they cannot tell where the mouth is).
    const talking = laggedActivity(speakerIntervals(turns, top), times, { maxLagMs: 0 }).series[0];
    const effect = (r: Third): number => (talking ? speechEffect(pick(motion[r]), talking) : 0);
    const centred = effect('middle') >= Math.max(effect('left'), effect('right'));
    const confidence: CameraConfidence = bestOf(top) >= zHigh && clear && centred && enough(top) ? 'high' : 'low';
    return { sourceId, kind: 'closeup', confidence, speakers: [top], ...diag };
  }
}

/**
 * A camera judged by its faces: its kind by how many people it shows, their places left to
 * right, and which speaker each face is, by how much more its mouth moves in each speaker's
 * turns than elsewhere ({@link turnContrast}; sync already aligned the pictures, so no lag
 * search). Each speaker goes to at most one face,
 * strongest pairs first. Sure (`high`) only when every face has its speaker clearly (z ≥ zHigh,
 * enough speech, no other speaker above zLow on that face).
 */
function judgeFaces(
  sourceId: string,
  faces: CameraFaces,
  turns: readonly Turn[],
  judged: readonly string[],
  enough: (speaker: string) => boolean,
  opts: CameraMapOptions,
): CameraMapCamera {
  const zHigh = opts.zHigh ?? 5;
  const zLow = opts.zLow ?? 3;
  const tracks = faces.tracks;
  // zs[track][speaker]
  const units = turnUnits(turns);
  const zs = tracks.map((track) => {
    const means = unitMeans(track, units);
    return judged.map((speaker) => turnContrast(means, units, speaker));
  });
  const pairs = zs
    .flatMap((row, ti) => row.map((z, si) => ({ ti, si, z })))
    .filter((p) => p.z >= zLow)
    .sort((a, b) => b.z - a.z);
  const speakerOf = new Map<number, number>();
  const usedSpeakers = new Set<number>();
  for (const p of pairs) {
    if (speakerOf.has(p.ti) || usedSpeakers.has(p.si)) continue;
    speakerOf.set(p.ti, p.si);
    usedSpeakers.add(p.si);
  }
  const z: Record<string, number> = {};
  judged.forEach((speaker, si) => (z[speaker] = round2(Math.max(0, ...zs.map((row) => row[si]!)))));
  const kind: CameraKind = tracks.length === 1 ? 'closeup' : tracks.length === 2 ? 'twoshot' : 'wide';
  const shown = tracks.flatMap((_, ti) => (speakerOf.has(ti) ? [{ ti, speaker: judged[speakerOf.get(ti)!]! }] : []));
  const places: Array<keyof NonNullable<CameraMapCamera['positions']>> =
    tracks.length === 2 ? ['left', 'right'] : tracks.length === 3 ? ['left', 'middle', 'right'] : [];
  const positions: NonNullable<CameraMapCamera['positions']> = {};
  for (const { ti, speaker } of shown) if (places[ti]) positions[places[ti]] = speaker;
  const clear = (ti: number): boolean => {
    const si = speakerOf.get(ti);
    return (
      si !== undefined && zs[ti]![si]! >= zHigh && enough(judged[si]!) && zs[ti]!.every((v, k) => k === si || v < zLow)
    );
  };
  const sure = tracks.length <= 3 && tracks.every((_, ti) => clear(ti));
  return {
    sourceId,
    kind,
    confidence: shown.length === 0 ? 'none' : sure ? 'high' : 'low',
    speakers: shown.map((s) => s.speaker),
    ...(Object.keys(positions).length > 0 && kind !== 'closeup' ? { positions } : {}),
    ...(judged.length ? { z } : {}),
    evidence: 'faces',
    faces: tracks.length,
  };
}

/** What motion series the cameras are judged on. */
type MotionSeries = Record<'whole' | Third, Float32Array | null>;

/**
 * The motion of a camera without its scene-cut samples, smoothed and standardised per region
 * (null where a region does not move), with how many cuts it had and how to pick the kept samples.
 */
function motionSeries(
  samples: MotionSamples,
  opts: CameraMapOptions,
): { cuts: number; pick: (x: ArrayLike<number>) => Float32Array; times: Float64Array; series: MotionSeries } {
  // Cut samples are a picture change, not a movement: leave them out of the correlation.
  const keep: number[] = [];
  let cuts = 0;
  for (let i = 0; i < samples.t.length; i++) {
    if (samples.sceneCut[i]) cuts++;
    else keep.push(i);
  }
  const pick = (x: ArrayLike<number>): Float32Array => Float32Array.from(keep, (i) => x[i]!);
  const times = Float64Array.from(keep, (i) => samples.t[i]!);
  // log1p: a blink of big motion (a hand, a head turn) should not outweigh steady mouth motion.
  const series: MotionSeries = {
    whole: null,
    left: null,
    middle: null,
    right: null,
  };
  for (const region of ['whole', ...REGIONS] as const) {
    const x = smooth(times, pick(samples[region]).map(Math.log1p), opts.smoothMs ?? 400);
    series[region] = standardize(x) ? x : null;
  }

  return { cuts, pick, times, series };
}

/** Per speaker: the z of its speech response in every third and the whole picture, the best z and its lag. */
function speakerResponses(
  judged: readonly string[],
  turns: readonly Turn[],
  times: Float64Array,
  series: MotionSeries,
  opts: CameraMapOptions,
): {
  z: Record<string, number>;
  lagErrorS: Record<string, number>;
  perThird: Map<string, Record<Third, number>>;
  wholeZ: Map<string, number>;
} {
  // Per speaker: best third and its z, and the best of all four regions for the diagnostics.
  const z: Record<string, number> = {};
  const lagErrorS: Record<string, number> = {};
  const perThird = new Map<string, Record<Third, number>>();
  const wholeZ = new Map<string, number>();
  for (const speaker of judged) {
    const activity = laggedActivity(speakerIntervals(turns, speaker), times, opts);
    let bestZ = -Infinity;
    let bestLag = 0;
    const thirds = { left: 0, middle: 0, right: 0 };
    for (const region of ['whole', ...REGIONS] as const) {
      const m = series[region];
      const res = m ? speechResponse(m, activity, opts) : { z: 0, r: 0, lagMs: 0 };
      if (region === 'whole') wholeZ.set(speaker, res.z);
      else thirds[region] = res.z;
      if (res.z > bestZ) {
        bestZ = res.z;
        bestLag = res.lagMs;
      }
    }
    perThird.set(speaker, thirds);
    z[speaker] = round2(bestZ);
    lagErrorS[speaker] = bestLag / 1000;
  }
  return { z, lagErrorS, perThird, wholeZ };
}

/** Responders placed in distinct thirds, strongest pairs first, in left-to-right order. */
function placeInThirds(
  responders: readonly string[],
  perThird: ReadonlyMap<string, Record<Third, number>>,
  zLow: number,
): Array<[string, Third]> {
  const pairs = responders
    .flatMap((s) => REGIONS.map((r) => ({ s, r, z: perThird.get(s)![r] })))
    .sort((a, b) => b.z - a.z);
  const placed = new Map<string, Third>();
  const used = new Set<Third>();
  for (const p of pairs) {
    if (placed.has(p.s) || used.has(p.r) || p.z < zLow) continue;
    placed.set(p.s, p.r);
    used.add(p.r);
  }
  const order = (r: Third): number => REGIONS.indexOf(r);
  return [...placed.entries()].sort((a, b) => order(a[1]) - order(b[1]));
}

/** Mean motion while active minus mean motion while not (activity standardized: > 0 is active). */
function speechEffect(x: Float32Array, activity: Float32Array): number {
  let on = 0;
  let nOn = 0;
  let off = 0;
  let nOff = 0;
  for (let i = 0; i < x.length; i++) {
    if (activity[i]! > 0) {
      on += x[i]!;
      nOn++;
    } else {
      off += x[i]!;
      nOff++;
    }
  }
  return nOn && nOff ? on / nOn - off / nOff : 0;
}

/** Centred moving average over ±windowMs/2 of sample time (gaps between runs end a window). */
function smooth(t: Float64Array, x: Float32Array, windowMs: number): Float32Array {
  if (windowMs <= 0) return x;
  const half = windowMs / 2;
  const out = new Float32Array(x.length);
  let lo = 0;
  let hi = 0;
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    while (hi < x.length && t[hi]! <= t[i]! + half) sum += x[hi++]!;
    while (t[lo]! < t[i]! - half) sum -= x[lo++]!;
    out[i] = sum / (hi - lo);
  }
  return out;
}

function percentile(x: Float32Array, q: number): number {
  if (x.length === 0) return 0;
  const s = Float32Array.from(x).sort();
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

function round2(x: number): number {
  return Number.isFinite(x) ? Math.round(x * 100) / 100 : 0;
}
