/**
 * Node-side frame decoding with Debian's ffmpeg, the reference path for the camera map:
 * `ffmpeg -i cam.mp4 -vf scale=160:90,format=gray -f rawvideo -`, either every frame or runs
 * of consecutive frames starting at chosen times (`-ss` before `-i` seeks to the keyframe
 * before and decodes accurately from there, like the browser path's GOP-aligned runs).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  motionFeatures,
  samplesToReference,
  type LumaFrame,
  type MotionSamples,
} from '../../../src/analysis/camera/features.ts';
import type { Truth } from '../../support/fixtures.ts';

export interface FfmpegFrameOptions {
  width?: number;
  height?: number;
  /** Frames per second of the file (the fixtures are constant frame rate). */
  fps: number;
  /** Run starts in seconds; omitted: every frame of the file. */
  runStartsS?: number[];
  framesPerRun?: number;
  /** Only the first this many seconds (every-frame mode). */
  maxDurationS?: number;
  /** ffmpeg decoder threads; default 1 (the machine is shared). */
  threads?: number;
}

/** Decodes frames as luma; times are the file's own presentation times in ms. */
export function ffmpegLumaFrames(file: string, o: FfmpegFrameOptions): LumaFrame[] {
  const width = o.width ?? 160;
  const height = o.height ?? 90;
  const size = width * height;
  const decode = (args: string[], t0: number): LumaFrame[] => {
    const res = spawnSync(
      'ffmpeg',
      [
        '-v',
        'error',
        '-threads',
        String(o.threads ?? 1),
        ...args,
        '-vf',
        `scale=${width}:${height},format=gray`,
        '-f',
        'rawvideo',
        '-',
      ],
      { maxBuffer: 1 << 30 },
    );
    if (res.status !== 0) throw new Error(`ffmpeg failed on ${file}: ${res.stderr.toString().trim()}`);
    const out: LumaFrame[] = [];
    for (let i = 0; (i + 1) * size <= res.stdout.length; i++) {
      out.push({
        t: t0 + (i * 1000) / o.fps,
        luma: new Uint8Array(res.stdout.subarray(i * size, (i + 1) * size)),
        width,
        height,
      });
    }
    return out;
  };
  if (!o.runStartsS) {
    return decode(['-i', file, ...(o.maxDurationS !== undefined ? ['-t', String(o.maxDurationS)] : [])], 0);
  }
  const frames: LumaFrame[] = [];
  for (const s of o.runStartsS) {
    // Snap to a frame time so the run's timestamps are the frames' own.
    const start = Math.round(s * o.fps) / o.fps;
    frames.push(
      ...decode(['-ss', start.toFixed(4), '-i', file, '-frames:v', String(o.framesPerRun ?? 15)], start * 1000),
    );
  }
  return frames;
}

/**
 * The motion samples of every video source of the fixture in `dir`, on the reference timeline:
 * each camera decoded every frame (at its frame rate, 30 fps when the truth gives none), its
 * motion features moved by the source's offset and drift. Source ids are the file names.
 */
export function fixtureCameraSamples(dir: string, truth: Truth): Array<{ sourceId: string; samples: MotionSamples }> {
  return truth.sources
    .filter((s) => s.kind === 'video')
    .map((s) => ({
      sourceId: s.file,
      samples: samplesToReference(
        motionFeatures(ffmpegLumaFrames(join(dir, s.file), { fps: s.video?.fps ?? 30 })),
        s.offsetMs,
        s.driftPpm,
      ),
    }));
}

/** Keyframe times of a file's video (seconds), from ffprobe. */
export function keyframeTimesS(file: string): number[] {
  const probe = spawnSync('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-skip_frame',
    'nokey',
    '-show_entries',
    'frame=pts_time',
    '-of',
    'csv=p=0',
    file,
  ]);
  return probe.stdout.toString().trim().split('\n').map(Number).filter(Number.isFinite);
}

/**
 * The run starts (s) of the vision worker's old plan: the last keyframe at or before each multiple
 * of `everyS`. On the fixtures, whose keyframes fall every 2 s, these are the worker's runs; on a
 * long GOP it now plans a run every `everyS` anyway (src/vision/run-plan.ts).
 */
export function keyframeRunStarts(file: string, everyS: number, durationS: number): number[] {
  const keys = keyframeTimesS(file);
  const out: number[] = [];
  for (let t = 0; t < durationS; t += everyS) {
    const k = keys.filter((x) => x <= t + 1e-6).pop() ?? 0;
    if (out[out.length - 1] !== k) out.push(k);
  }
  return out;
}
