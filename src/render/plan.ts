/**
 * Render planning, pure: the edit decision list (cuts and removed ranges, in reference time)
 * becomes an ordered list of output video segments with frame-accurate boundaries, and an
 * ordered list of kept audio ranges with the crossfade lengths at each join.
 *
 * Times: cuts and removed ranges are on the reference timeline (src/analysis/sync/sync.ts); a
 * source's own media time is `toSourceTime(t, { offsetMs, driftPpm })`. The output timeline is
 * the cut coverage minus the removed ranges, played back to back.
 *
 * @module
 */
import { toSourceTime, type ClockMapping } from '../analysis/sync/sync.ts';
import type { Cut, TimeRange } from '../contract/types.ts';

/** One stretch of output video taken from one source. */
export interface RenderSegment {
  /** Output time of the first frame, ms (a whole number of frames: `k·1000/fps`). */
  outStartMs: number;
  /** Output time just after the last frame, ms (a frame boundary too). */
  outEndMs: number;
  /** Index of the first output frame. */
  firstFrame: number;
  /** Number of output frames. */
  frameCount: number;
  sourceId: string;
  /** Reference time shown at `outStartMs` / `outEndMs`. */
  refStartMs: number;
  refEndMs: number;
  /** The source's own media time at `outStartMs` / `outEndMs` (offset and drift applied). */
  srcStartMs: number;
  srcEndMs: number;
}

/** One kept stretch of the reference timeline, as the audio plays it. */
export interface AudioRange {
  /** Exact output start and end, ms (not rounded to frames). */
  outStartMs: number;
  outEndMs: number;
  refStartMs: number;
  refEndMs: number;
  /** Equal-power crossfade lengths at the start and end of this range, ms (0 at the timeline's ends). */
  fadeInMs: number;
  fadeOutMs: number;
}

/** What {@link planRender} returns. */
export interface RenderPlan {
  fps: number;
  segments: RenderSegment[];
  audio: AudioRange[];
  /** Output frames in all. */
  frameCount: number;
  /** Video duration: `frameCount·1000/fps`. */
  durationMs: number;
  /** The kept timeline before rounding to frames (cut coverage minus removed ranges). */
  keptMs: number;
  /** The source with the most output time (its size and frame rate are the output's defaults). */
  mainSourceId: string | null;
}

/** Options of {@link planRender}. */
export interface PlanRenderOptions {
  fps: number;
  /** Clock mapping of every source a cut names. */
  clocks: ReadonlyMap<string, ClockMapping>;
  /** Crossfade at each audio join, ms. Default 16. */
  fadeMs?: number;
}

/** A plan input is wrong; `field` names what. */
export class RenderPlanError extends Error {
  override readonly name = 'RenderPlanError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** Default crossfade at every join, ms: long enough to hide a step, short enough to hide nothing said. */
export const DEFAULT_FADE_MS = 16;

/**
 * Kept pieces of the reference timeline in output order: each cut (sorted by start; overlaps
 * trimmed to the earlier cut) minus the removed ranges.
 */
const piece = (c: Cut): { sourceId: string; reason?: string } =>
  c.reason === undefined ? { sourceId: c.sourceId } : { sourceId: c.sourceId, reason: c.reason };

export function keptPieces(
  cuts: readonly Cut[],
  removedRanges: readonly TimeRange[],
): Array<{ sourceId: string; startMs: number; endMs: number; reason?: string }> {
  cuts.forEach((c, i) => {
    if (!(Number.isFinite(c.startMs) && Number.isFinite(c.endMs) && c.endMs >= c.startMs)) {
      throw new RenderPlanError(
        `cuts[${i}]`,
        `startMs and endMs must be finite with endMs >= startMs (got ${c.startMs}, ${c.endMs})`,
      );
    }
  });
  removedRanges.forEach((r, i) => {
    if (!(Number.isFinite(r.startMs) && Number.isFinite(r.endMs) && r.endMs >= r.startMs)) {
      throw new RenderPlanError(
        `removedRanges[${i}]`,
        `startMs and endMs must be finite with endMs >= startMs (got ${r.startMs}, ${r.endMs})`,
      );
    }
  });
  const sorted = [...cuts].sort((a, b) => a.startMs - b.startMs);
  const removed = [...removedRanges].sort((a, b) => a.startMs - b.startMs);
  const out: Array<{ sourceId: string; startMs: number; endMs: number; reason?: string }> = [];
  let covered = -Infinity;
  for (const c of sorted) {
    let start = Math.max(c.startMs, covered);
    const end = c.endMs;
    if (end <= start) continue;
    covered = end;
    for (const r of removed) {
      if (r.endMs <= start) continue;
      if (r.startMs >= end) break;
      if (r.startMs > start) out.push({ ...piece(c), startMs: start, endMs: r.startMs });
      start = Math.max(start, r.endMs);
      if (start >= end) break;
    }
    if (end > start) out.push({ ...piece(c), startMs: start, endMs: end });
  }
  return out;
}

/**
 * Plans a render: frame-accurate video segments and the audio ranges with their crossfades.
 * Each segment boundary is the nearest output frame boundary of the exact kept timeline, so
 * the video lasts the kept timeline ± half a frame and no error accumulates across segments.
 *
 * @example
 * const plan = planRender(cuts, removedRanges, { fps: 30, clocks: new Map([['cam1', { offsetMs: 0, driftPpm: 0 }]]) });
 * plan.segments[0]; // { outStartMs: 0, outEndMs: 3000, sourceId: 'cam1', srcStartMs: …, … }
 */
export function planRender(
  cuts: readonly Cut[],
  removedRanges: readonly TimeRange[],
  options: PlanRenderOptions,
): RenderPlan {
  const { fps, clocks } = options;
  if (!(Number.isFinite(fps) && fps > 0 && fps <= 240))
    throw new RenderPlanError('output.fps', `must be a number from 0 to 240 (got ${fps})`);
  const fadeMs = options.fadeMs ?? DEFAULT_FADE_MS;
  if (!(Number.isFinite(fadeMs) && fadeMs >= 0 && fadeMs <= 1000))
    throw new RenderPlanError('fadeMs', `must be from 0 to 1000 (got ${fadeMs})`);
  const pieces = keptPieces(cuts, removedRanges);
  cuts.forEach((c, i) => {
    if (!clocks.has(c.sourceId)) throw new RenderPlanError(`cuts[${i}].sourceId`, `no source "${c.sourceId}"`);
  });
  const frameMs = 1000 / fps;
  const { segments, perSource } = videoSegments(pieces, frameMs, clocks);
  const video = segments.filter((s) => s.frameCount > 0);
  const frameCount = video.length > 0 ? video[video.length - 1]!.firstFrame + video[video.length - 1]!.frameCount : 0;
  const { audio, keptMs } = audioRanges(pieces, fadeMs);
  let mainSourceId: string | null = null;
  let best = -1;
  for (const [id, ms] of perSource) {
    if (ms > best) {
      best = ms;
      mainSourceId = id;
    }
  }
  return { fps, segments: video, audio, frameCount, durationMs: frameCount * frameMs, keptMs, mainSourceId };
}

/**
 * Video: pieces of one source that follow each other on the reference timeline merged into
 * one segment, each boundary on the nearest output frame; and the kept time per source.
 */
function videoSegments(
  pieces: ReturnType<typeof keptPieces>,
  frameMs: number,
  clocks: ReadonlyMap<string, ClockMapping>,
): { segments: RenderSegment[]; perSource: Map<string, number> } {
  const segments: RenderSegment[] = [];
  const perSource = new Map<string, number>();
  let out = 0;
  let prev: { sourceId: string; endMs: number; seg: RenderSegment | null; outStart: number; refStart: number } | null =
    null;
  for (const p of pieces) {
    const outEnd = out + (p.endMs - p.startMs);
    perSource.set(p.sourceId, (perSource.get(p.sourceId) ?? 0) + (p.endMs - p.startMs));
    const f1 = Math.round(outEnd / frameMs);
    if (prev && prev.sourceId === p.sourceId && prev.endMs === p.startMs && prev.seg) {
      // Continuous on the reference timeline: extend the previous segment.
      setEnd(prev.seg, f1, prev.outStart, prev.refStart, clocks, frameMs);
      prev.endMs = p.endMs;
    } else {
      const f0 = Math.round(out / frameMs);
      const seg: RenderSegment = {
        outStartMs: 0,
        outEndMs: 0,
        firstFrame: f0,
        frameCount: 0,
        sourceId: p.sourceId,
        refStartMs: 0,
        refEndMs: 0,
        srcStartMs: 0,
        srcEndMs: 0,
      };
      setEnd(seg, f1, out, p.startMs, clocks, frameMs);
      prev = { sourceId: p.sourceId, endMs: p.endMs, seg, outStart: out, refStart: p.startMs };
      segments.push(seg);
    }
    out = outEnd;
  }
  return { segments, perSource };
}

/** Ends `seg` at output frame `endFrame`, with its reference and source times. */
function setEnd(
  seg: RenderSegment,
  endFrame: number,
  exactOutStart: number,
  refStart: number,
  cl: ReadonlyMap<string, ClockMapping>,
  frameMs: number,
): void {
  const clock = cl.get(seg.sourceId)!;
  seg.frameCount = Math.max(0, endFrame - seg.firstFrame);
  seg.outStartMs = seg.firstFrame * frameMs;
  seg.outEndMs = endFrame * frameMs;
  // The reference instant shown at the rounded start: shifted by the rounding so frames stay on the source's clock.
  seg.refStartMs = refStart + (seg.outStartMs - exactOutStart);
  seg.refEndMs = seg.refStartMs + (seg.outEndMs - seg.outStartMs);
  seg.srcStartMs = toSourceTime(seg.refStartMs, clock);
  seg.srcEndMs = toSourceTime(seg.refEndMs, clock);
}

/**
 * Audio: the kept timeline whatever the camera; a join is where the reference time jumps,
 * with a crossfade of `fadeMs` (never longer than either side). Also the kept length.
 */
function audioRanges(pieces: ReturnType<typeof keptPieces>, fadeMs: number): { audio: AudioRange[]; keptMs: number } {
  const audio: AudioRange[] = [];
  let out = 0;
  for (const p of pieces) {
    const last = audio[audio.length - 1];
    if (last && last.refEndMs === p.startMs) {
      last.refEndMs = p.endMs;
      last.outEndMs += p.endMs - p.startMs;
    } else {
      audio.push({
        outStartMs: out,
        outEndMs: out + (p.endMs - p.startMs),
        refStartMs: p.startMs,
        refEndMs: p.endMs,
        fadeInMs: 0,
        fadeOutMs: 0,
      });
    }
    out += p.endMs - p.startMs;
  }
  for (let k = 1; k < audio.length; k++) {
    const a = audio[k - 1]!;
    const b = audio[k]!;
    // A fade never outlasts either side, so a very short range is not faded away entirely.
    const f = Math.min(fadeMs, a.outEndMs - a.outStartMs, b.outEndMs - b.outStartMs);
    a.fadeOutMs = f;
    b.fadeInMs = f;
  }
  return { audio, keptMs: out };
}

/** Reference time shown by output frame `frame` of `seg` (frame in output numbering). */
export function frameReferenceTime(seg: RenderSegment, frame: number, fps: number): number {
  return seg.refStartMs + (frame - seg.firstFrame) * (1000 / fps);
}

/**
 * Gain of audio range `r` at output time `tMs`: 1 inside, an equal-power ramp across each join
 * (sin in, cos out, centred on the join and `fadeMs` long), 0 outside. Around a join the
 * outgoing range keeps playing its own audio past its end (into what was removed) and the
 * incoming one starts early, so the two overlap for the whole fade; gains² sum to 1.
 */
export function rangeGain(r: AudioRange, tMs: number): number {
  const inStart = r.outStartMs - r.fadeInMs / 2;
  const outEnd = r.outEndMs + r.fadeOutMs / 2;
  if (tMs < inStart || tMs >= outEnd) return 0;
  let g = 1;
  if (r.fadeInMs > 0 && tMs < r.outStartMs + r.fadeInMs / 2)
    g *= Math.sin((Math.PI / 2) * ((tMs - inStart) / r.fadeInMs));
  if (r.fadeOutMs > 0 && tMs > r.outEndMs - r.fadeOutMs / 2)
    g *= Math.cos((Math.PI / 2) * ((tMs - (r.outEndMs - r.fadeOutMs / 2)) / r.fadeOutMs));
  return g;
}

/** The output span (ms) during which range `r` sounds, fades included. */
export function rangeSpan(r: AudioRange): TimeRange {
  return { startMs: r.outStartMs - r.fadeInMs / 2, endMs: r.outEndMs + r.fadeOutMs / 2 };
}
