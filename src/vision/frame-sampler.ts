/**
 * Samples small grayscale frames from a video with WebCodecs (through mediabunny), for the
 * camera map's motion analysis, and shows each frame's full-resolution luma to a face probe
 * (BlazeFace and mouth motion, src/vision/face-probe.ts) when one is given.
 *
 * Sampling: a run of `framesPerRun` consecutive frames is planned every `everyS` seconds of the
 * track's own timestamps, whatever its frame rate (src/vision/run-plan.ts): it starts at a
 * keyframe when one lies within half a spacing before the planned time (where decoding must
 * start anyway, so no frame is decoded only to be thrown away), else at the planned time, reached
 * by decoding on through a long GOP (a camera or encoder with a keyframe every 8–10 s). A 3-hour
 * 30 fps camera sampled with runs of 15 frames every 6 s would decode 1 800 runs × 15 = 27 000
 * frames instead of 324 000 (1/12), unless `maxRuns` (default 160) spreads them further (every
 * 23 s over an hour, 68 s over 3 hours: 2 400 frames). With `everyS: 0` every frame is decoded
 * (short clips). A 50 or 60 fps camera gives every other frame ({@link MIN_FRAME_STEP_S}), so
 * frame steps are those of a 25 or 30 fps one at any rate.
 *
 * Frames are reduced to 160×90 (by default) luma. When the decoder hands out planar YUV
 * (I420, NV12…, the usual software-decoder output) only the Y plane is copied and
 * box-averaged, then expanded from video range (16..235) to full range as
 * `ffmpeg -vf scale=160:90,format=gray` gives: no colour conversion and no canvas. Other
 * formats (RGB frames from a hardware decoder) are drawn to a small OffscreenCanvas and
 * converted with the BT.601 weights. Rotation metadata is ignored: motion does not care.
 *
 * @module
 */
import {
  ALL_FORMATS,
  BlobSource,
  EncodedPacketSink,
  Input,
  UrlSource,
  VideoSampleSink,
  type VideoSample,
} from 'mediabunny';
import type { LumaFrame } from '../analysis/camera/features.ts';
import type { FaceProbe, LumaPlane } from './face-probe.ts';
import { sampleRuns } from './run-plan.ts';
import { openRunSound } from './run-sound.ts';

/** Options of {@link sampleLumaFrames}. */
export interface FrameSamplingOptions {
  /** Output size; default 160×90. */
  width?: number;
  height?: number;
  /**
   * Spacing of runs in seconds; 0 decodes every frame. Default 2: on the real-face sets the map
   * was sure from 30 s and 80 s of conversation with runs every 2 s, 40 s and 110 s every 6 s
   * (`npm run eval -- --only faces`); footage over 5 minutes is spread by `maxRuns` anyway.
   */
  everyS?: number;
  /** Consecutive frames per run. Default 15. */
  framesPerRun?: number;
  /**
   * At most this many runs: long files are sampled more sparsely (the spacing grows to
   * duration / maxRuns). Default 160, i.e. every 23 s over an hour; the fixtures needed about
   * 30 runs to be sure (README, "Camera map"), and 160 are five times that. (600 sampled an
   * hour's four cameras for over two minutes of both cores: most of the camera map's cost.)
   */
  maxRuns?: number;
  /** Stop after this many seconds of media (from the track's first timestamp). Default: all. */
  maxDurationS?: number;
  /**
   * Shown every decoded frame's full-resolution luma (Y-plane formats only: RGB frames from a
   * hardware decoder give no faces) to look for faces and their mouths; told when each run
   * ends, with the file's own sound when it has an active-speaker model.
   */
  faces?: FaceProbe;
  signal?: AbortSignal;
  /** Called after each run with the share done (0..1). */
  onProgress?: (done: number) => void;
}

/** Decoded frames and what it took. */
export interface SampledFrames {
  frames: LumaFrame[];
  /** Runs decoded (1 when every frame was decoded). */
  runs: number;
  /** Track duration in seconds. */
  durationS: number;
  /** Wall time spent decoding and converting, ms. */
  elapsedMs: number;
  /** How frames became luma: straight from the Y plane, or drawn to a canvas (RGB frames). */
  lumaPath: 'y-plane' | 'canvas' | 'none';
}

/** Where a video comes from: a Blob (IndexedDB, upload) or a same-origin URL. */
export type VideoInput = Blob | string;

/**
 * Decodes sampled frames of the primary video track as small luma frames.
 *
 * @throws Error naming the input when it has no video track or cannot be decoded here.
 * @example
 * const { frames } = await sampleLumaFrames(blob, { everyS: 6, framesPerRun: 15 });
 * const samples = motionFeatures(frames);
 */
export async function sampleLumaFrames(source: VideoInput, options: FrameSamplingOptions = {}): Promise<SampledFrames> {
  const width = options.width ?? 160;
  const height = options.height ?? 90;
  const everyS = options.everyS ?? 2;
  const perRun = options.framesPerRun ?? 15;
  const name = typeof source === 'string' ? source : 'the video blob';
  const started = performance.now();
  const input = new Input({
    source: typeof source === 'string' ? new UrlSource(source) : new BlobSource(source),
    formats: ALL_FORMATS,
  });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) throw new Error(`${name} has no video track`);
    if (!(await track.canDecode()))
      throw new Error(`${name}: codec ${track.codec ?? 'unknown'} cannot be decoded here`);
    const first = await track.getFirstTimestamp();
    const durationS = await track.computeDuration();
    const end = options.maxDurationS !== undefined ? Math.min(durationS, first + options.maxDurationS) : durationS;
    const sink = new VideoSampleSink(track);
    const packets = new EncodedPacketSink(track);
    const reducer = new LumaReducer(width, height);
    const frames: LumaFrame[] = [];
    const spacing = everyS > 0 ? Math.max(everyS, (end - first) / (options.maxRuns ?? 160)) : 0;
    const sound = options.faces?.wantsSound ? await openRunSound(input) : 'no active-speaker model';
    const runs = await sampleRuns(
      {
        keyAt: async (t) => (await packets.getKeyPacket(t, { metadataOnly: true }))?.timestamp ?? null,
        framesFrom: (t) => sink.samples(t, end),
      },
      { firstS: first, endS: end, spacingS: spacing, perRun, minStepS: MIN_FRAME_STEP_S },
      async (sample, firstOfRun) => {
        const t = sample.timestamp * 1000;
        frames.push({ t, luma: await reducer.reduce(sample), width, height });
        if (options.faces && reducer.plane) {
          if (firstOfRun) await options.faces.endRun(sound);
          await options.faces.frame(reducer.plane, t, firstOfRun);
        }
      },
      {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      },
    );
    await options.faces?.endRun(sound);
    return { frames, runs, durationS, elapsedMs: performance.now() - started, lumaPath: reducer.path };
  } finally {
    input.dispose();
  }
}

/**
 * Frames closer than this to the last one taken are passed over: a 50 or 60 fps camera (a phone)
 * is sampled as a 25 or 30 fps one, whose frame steps the camera map's motion and mouth changes
 * were measured at; 23.976 to 40 fps, and a variable-rate phone's jittered 30 fps, lose no frame.
 */
const MIN_FRAME_STEP_S = 0.024;

/** 8-bit formats whose plane 0 is full-resolution luma. */
const Y_PLANE_FORMATS = new Set(['I420', 'I420A', 'I422', 'I422A', 'I444', 'I444A', 'NV12']);

/** Video-range luma (16..235) to full range (0..255), as ffmpeg's `format=gray` outputs it. */
const EXPAND = Uint8Array.from({ length: 256 }, (_, y) =>
  Math.max(0, Math.min(255, Math.round(((y - 16) * 255) / 219))),
);

/** Reduces decoded frames to small luma pictures, reusing its buffers. */
class LumaReducer {
  private buffer = new Uint8Array(0);
  private canvas: OffscreenCanvas | undefined;
  /** The path the last frame took. */
  path: 'y-plane' | 'canvas' | 'none' = 'none';
  /** The last frame's full-resolution luma (Y-plane path only; valid until the next frame). */
  plane: LumaPlane | null = null;
  /** Column blocks of the box average for a source width: [x0, x1) of each output column. */
  private columns: { srcW: number; x0: Int32Array; x1: Int32Array } | undefined;
  private sums = new Uint32Array(0);
  constructor(
    private readonly width: number,
    private readonly height: number,
  ) {}

  async reduce(sample: VideoSample): Promise<Uint8Array> {
    if (sample.format && Y_PLANE_FORMATS.has(sample.format)) {
      this.path = 'y-plane';
      return this.fromYPlane(sample);
    }
    this.path = 'canvas';
    this.plane = null;
    return this.fromCanvas(sample);
  }

  private async fromYPlane(sample: VideoSample): Promise<Uint8Array> {
    const size = sample.allocationSize();
    if (this.buffer.length < size) this.buffer = new Uint8Array(size);
    const layout = await sample.copyTo(this.buffer);
    const { offset, stride } = layout[0]!;
    const srcW = sample.visibleRect.width;
    const srcH = sample.visibleRect.height;
    this.plane = { data: this.buffer, offset, stride, width: srcW, height: srcH };
    return this.boxAverage(offset, stride, srcW, srcH);
  }

  /**
   * Box average of the Y plane in the buffer: each output pixel is the mean of its source block
   * (area scaling). Swept row by row over the source (each output row's block rows added into
   * one sum per column block, in memory order), which sums the same integers as block by block.
   */
  private boxAverage(offset: number, stride: number, srcW: number, srcH: number): Uint8Array {
    const { width, height, buffer } = this;
    if (this.columns?.srcW !== srcW) {
      const x0 = new Int32Array(width);
      const x1 = new Int32Array(width);
      for (let ox = 0; ox < width; ox++) {
        x0[ox] = Math.floor((ox * srcW) / width);
        x1[ox] = Math.max(x0[ox]! + 1, Math.floor(((ox + 1) * srcW) / width));
      }
      this.columns = { srcW, x0, x1 };
      this.sums = new Uint32Array(width);
    }
    const { x0, x1 } = this.columns;
    const sums = this.sums;
    const out = new Uint8Array(width * height);
    for (let oy = 0; oy < height; oy++) {
      const y0 = Math.floor((oy * srcH) / height);
      const y1 = Math.max(y0 + 1, Math.floor(((oy + 1) * srcH) / height));
      sums.fill(0);
      for (let y = y0; y < y1; y++) {
        const row = offset + y * stride;
        for (let ox = 0; ox < width; ox++) {
          let s = 0;
          for (let x = row + x0[ox]!, end = row + x1[ox]!; x < end; x++) s += buffer[x]!;
          sums[ox] = sums[ox]! + s;
        }
      }
      const rows = y1 - y0;
      for (let ox = 0; ox < width; ox++)
        out[oy * width + ox] = EXPAND[Math.round(sums[ox]! / (rows * (x1[ox]! - x0[ox]!)))]!;
    }
    return out;
  }

  private fromCanvas(sample: VideoSample): Uint8Array {
    const { width, height } = this;
    this.canvas ??= new OffscreenCanvas(width, height);
    const ctx = this.canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) throw new Error('no 2d context for frame scaling');
    sample.draw(ctx, 0, 0, width, height);
    const rgba = ctx.getImageData(0, 0, width, height).data;
    const luma = new Uint8Array(width * height);
    for (let i = 0, j = 0; i < luma.length; i++, j += 4) {
      // BT.601 luma, full range, like ffmpeg's `format=gray`.
      luma[i] = 0.299 * rgba[j]! + 0.587 * rgba[j + 1]! + 0.114 * rgba[j + 2]!;
    }
    return luma;
  }
}
