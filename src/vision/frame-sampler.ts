/**
 * Samples small grayscale frames from a video with WebCodecs (through mediabunny), for the
 * camera map's motion analysis.
 *
 * Sampling: the timeline is cut into spans of `everyS` seconds; for each span the decoder
 * starts at the last keyframe at or before the span's start and decodes `framesPerRun`
 * consecutive frames from there (a run). Runs are GOP-aligned, so no frame is decoded only to
 * be thrown away; a 3-hour 30 fps camera sampled with runs of 15 frames every 6 s decodes
 * 1 800 runs × 15 = 27 000 frames instead of 324 000 (1/12). With `everyS: 0` every frame is
 * decoded (short clips).
 *
 * Frames are scaled by the canvas sink (160×90 by default) and turned into luma with the
 * BT.601 weights, close to what `ffmpeg -vf scale=160:90,format=gray` gives.
 *
 * @module
 */
import { ALL_FORMATS, BlobSource, CanvasSink, EncodedPacketSink, Input, UrlSource, type InputVideoTrack } from 'mediabunny';
import type { LumaFrame } from '../analysis/camera/features.ts';

/** Options of {@link sampleLumaFrames}. */
export interface FrameSamplingOptions {
  /** Output size; default 160×90. */
  width?: number;
  height?: number;
  /** Spacing of runs in seconds; 0 decodes every frame. Default 6. */
  everyS?: number;
  /** Consecutive frames per run. Default 15. */
  framesPerRun?: number;
  /** Stop after this many seconds of media (from the track's first timestamp). Default: all. */
  maxDurationS?: number;
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
  const everyS = options.everyS ?? 6;
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
    if (!(await track.canDecode())) throw new Error(`${name}: codec ${track.codec ?? 'unknown'} cannot be decoded here`);
    const first = await track.getFirstTimestamp();
    const durationS = await track.computeDuration();
    const end = options.maxDurationS !== undefined ? Math.min(durationS, first + options.maxDurationS) : durationS;
    const sink = new CanvasSink(track, { width, height, fit: 'fill', poolSize: 2 });
    const frames: LumaFrame[] = [];
    const starts = everyS > 0 ? await runStarts(track, first, end, everyS) : [first];
    let runs = 0;
    for (const start of starts) {
      options.signal?.throwIfAborted();
      let n = 0;
      for await (const wrapped of sink.canvases(start, end)) {
        frames.push({ t: wrapped.timestamp * 1000, luma: toLuma(wrapped.canvas as OffscreenCanvas, width, height), width, height });
        if (everyS > 0 && ++n >= perRun) break;
        if (everyS === 0 && frames.length % 64 === 0) options.signal?.throwIfAborted();
      }
      runs++;
      options.onProgress?.(runs / starts.length);
    }
    return { frames, runs, durationS, elapsedMs: performance.now() - started };
  } finally {
    input.dispose();
  }
}

/** Keyframe timestamps (s) at or before each span start, deduplicated, in order. */
async function runStarts(track: InputVideoTrack, first: number, end: number, everyS: number): Promise<number[]> {
  const packets = new EncodedPacketSink(track);
  const out: number[] = [];
  for (let t = first; t < end; t += everyS) {
    const key = await packets.getKeyPacket(t, { metadataOnly: true });
    const ts = key?.timestamp ?? first;
    if (out[out.length - 1] !== ts) out.push(ts);
  }
  return out;
}

function toLuma(canvas: OffscreenCanvas, width: number, height: number): Uint8Array {
  // In a worker the sink yields OffscreenCanvases (this module is for workers).
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('no 2d context on the frame canvas');
  const rgba = ctx.getImageData(0, 0, width, height).data;
  const luma = new Uint8Array(width * height);
  for (let i = 0, j = 0; i < luma.length; i++, j += 4) {
    // BT.601 luma, full range, like ffmpeg's `format=gray` (which expands the video's 16..235).
    luma[i] = 0.299 * rgba[j]! + 0.587 * rgba[j + 1]! + 0.114 * rgba[j + 2]!;
  }
  return luma;
}
