/**
 * Audio and video in sync in a render, checked with native ffmpeg at one moment: the render's
 * frame there against the frames of the camera the plan shows there (which one matches best,
 * in frames off), and the render's sound around it against the mics' mix at the same
 * reference time (the lag of the best cross-correlation, ms). Used by the long bench on the
 * render's last minute: after an hour of cuts, both must still land where the plan says.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import type { GetJobResponse } from '../../src/contract/types.ts';
import { planRender, type RenderSegment } from '../../src/render/plan.ts';

const FPS = 30;
/** Frames compared are scaled to this size, grey. */
const W = 96;
const H = 54;
/** Camera frames tried on each side of the planned one. */
const FRAME_REACH = 8;
/** Audio analysis rate, and the windows compared: the render's, and the mix's wider one. */
const RATE = 16000;
const AUDIO_WINDOW_S = 2;
const AUDIO_REACH_S = 0.25;

/** What {@link checkAvSync} measured at one moment of a render. */
export interface AvSyncCheck {
  /** The render's time checked, s. */
  atS: number;
  /** The camera shown there, and its own time, s. */
  camera: string;
  sourceS: number;
  /** The camera frame that matches the render's best, in frames from the planned one (0: in place). */
  videoFramesOff: number;
  /** How much better it matches than the next best frame (mean squared difference ratio). */
  videoMargin: number;
  /** Lag of the render's sound against the mics' mix, ms (0: in place; positive: the render is late). */
  audioLagMs: number;
  /** Normalised cross-correlation at that lag (1: the same sound). */
  audioCorrelation: number;
}

function ffmpegOut(args: readonly string[]): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', ...args], { maxBuffer: 1 << 28 });
}

/** `count` grey frames from `file` starting at `fromS` (accurate input seek), W×H each. */
function greyFrames(file: string, fromS: number, count: number): Uint8Array[] {
  const raw = ffmpegOut([
    '-ss',
    fromS.toFixed(4),
    '-i',
    file,
    '-frames:v',
    String(count),
    '-vf',
    `scale=${W}:${H}:flags=area`,
    '-pix_fmt',
    'gray',
    '-f',
    'rawvideo',
    '-',
  ]);
  const frames: Uint8Array[] = [];
  for (let o = 0; o + W * H <= raw.length; o += W * H) frames.push(raw.subarray(o, o + W * H));
  return frames;
}

/** Mono f32 at {@link RATE} of `file` from `fromS` for `seconds`. */
function monoAudio(file: string, fromS: number, seconds: number): Float32Array {
  const raw = ffmpegOut([
    '-ss',
    fromS.toFixed(4),
    '-t',
    seconds.toFixed(4),
    '-i',
    file,
    '-vn',
    '-ac',
    '1',
    '-ar',
    String(RATE),
    '-f',
    'f32le',
    '-',
  ]);
  return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
}

function meanSquaredDifference(a: Uint8Array, b: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return s / a.length;
}

/** The lag (samples) at which `short` best matches `long` (`long` starts `reach` samples earlier), and the correlation there. */
function bestLag(short: Float32Array, long: Float32Array, reach: number): { lag: number; r: number } {
  let best = { lag: 0, r: -Infinity };
  let ss = 0;
  for (const v of short) ss += v * v;
  for (let lag = -reach; lag <= reach; lag++) {
    let dot = 0;
    let ll = 0;
    for (let i = 0; i < short.length; i++) {
      const x = long[reach + lag + i] ?? 0;
      dot += short[i]! * x;
      ll += x * x;
    }
    const r = dot / Math.sqrt(ss * ll + 1e-20);
    if (r > best.r) best = { lag, r };
  }
  return best;
}

/**
 * The segment of the plan to check in the render's last `lastS` seconds: the longest one, so
 * the frames and sound compared lie inside it, away from its joins.
 */
function segmentNearEnd(segments: readonly RenderSegment[], endMs: number, lastS: number): RenderSegment {
  const near = segments.filter((s) => s.outEndMs > endMs - lastS * 1000);
  return near.reduce((a, b) => (b.outEndMs - b.outStartMs > a.outEndMs - a.outStartMs ? b : a));
}

/**
 * Checks the render `file` of `job` in its last `lastS` seconds: the middle of the longest
 * segment there, at the middle of a frame. `pathOf` gives a source's file from its label.
 */
export function checkAvSync(
  job: GetJobResponse['job'],
  file: string,
  pathOf: (label: string) => string,
  lastS = 60,
): AvSyncCheck {
  const clocks = new Map(job.sources.map((s) => [s.id, { offsetMs: s.offsetMs ?? 0, driftPpm: s.driftPpm ?? 0 }]));
  const plan = planRender(job.cuts, job.removed_ranges ?? [], { fps: FPS, clocks });
  const seg = segmentNearEnd(plan.segments, plan.durationMs, lastS);
  // The middle frame of the segment, sampled half a frame in (seeks never land on a boundary).
  const frame = seg.firstFrame + Math.floor(seg.frameCount / 2);
  const atS = (frame + 0.5) / FPS;
  const along = (atS * 1000 - seg.outStartMs) / (seg.outEndMs - seg.outStartMs);
  const sourceS = (seg.srcStartMs + along * (seg.srcEndMs - seg.srcStartMs)) / 1000;
  const refS = (seg.refStartMs + along * (seg.refEndMs - seg.refStartMs)) / 1000;
  const source = job.sources.find((s) => s.id === seg.sourceId)!;

  const rendered = greyFrames(file, atS, 1)[0]!;
  const candidates = greyFrames(pathOf(source.label), sourceS - FRAME_REACH / FPS, 2 * FRAME_REACH + 1);
  const diffs = candidates.map((c) => meanSquaredDifference(rendered, c));
  const order = diffs.map((d, i) => [d, i] as const).sort((a, b) => a[0] - b[0]);
  const videoFramesOff = order[0]![1] - FRAME_REACH;
  const videoMargin = order[1]![0] / Math.max(1e-9, order[0]![0]);

  // The mix the render plays: every audio source on the reference timeline, summed.
  const renderAudio = monoAudio(file, atS - AUDIO_WINDOW_S / 2, AUDIO_WINDOW_S);
  const span = AUDIO_WINDOW_S + 2 * AUDIO_REACH_S;
  const mix = new Float32Array(Math.round(span * RATE));
  for (const mic of job.sources.filter((s) => s.kind === 'audio')) {
    const micS = refS - AUDIO_WINDOW_S / 2 - AUDIO_REACH_S - (mic.offsetMs ?? 0) / 1000;
    const samples = monoAudio(pathOf(mic.label), micS, span);
    for (let i = 0; i < Math.min(mix.length, samples.length); i++) mix[i] = mix[i]! + samples[i]!;
  }
  const { lag, r } = bestLag(renderAudio, mix, Math.round(AUDIO_REACH_S * RATE));
  // The render's window matches the mix `lag` samples later: its sound is `lag` early.
  return {
    atS,
    camera: source.label,
    sourceS,
    videoFramesOff,
    videoMargin,
    audioLagMs: (-lag * 1000) / RATE,
    audioCorrelation: r,
  };
}
