/**
 * Builds a camera's proxy in the media worker: mediabunny's `Conversion` decodes the original
 * with WebCodecs, scales it by {@link proxyPlan} (360p), encodes H.264 (VP9 where the browser
 * has no H.264 encoder) at about 0.8 Mb/s with a keyframe every second, keeps the source's own
 * frame rate and timestamps (media time 0 stays 0, so the editor seeks a proxy exactly as its
 * original), drops the sound (the editor plays the job's audio), and writes an MP4 with its
 * index at the end: every seek is a lookup, never a walk through fragments. The bytes go to
 * `sink` in order; the mdat size the muxer patches at the start comes back as a head patch.
 * See docs/proxies.md.
 *
 * @module
 */
import {
  ALL_FORMATS,
  BlobSource,
  Conversion,
  Input,
  Mp4OutputFormat,
  Output,
  StreamTarget,
  canEncodeVideo,
  type StreamTargetChunk,
  type VideoCodec,
} from 'mediabunny';
import { codecInWords, videoDecodable } from './decodability.ts';
import { MediaAbortError } from './errors.ts';
import { AppendWithHeadPatches, proxyPlan } from './proxy-plan.ts';
import type { BuiltProxy, MediaProgress, ProxySink } from './protocol.ts';

/** Bytes handed to the sink at a time (each crosses to the page and into one store write). */
const SINK_CHUNK_BYTES = 1024 * 1024;

/** The codecs a proxy may be written in, in order of preference (each plays in an MP4 everywhere it encodes). */
const PROXY_CODECS: readonly VideoCodec[] = ['avc', 'vp9'];

/** A result that is not a proxy: the browser cannot make one (not an error of the file). */
function unavailable(reason: string): BuiltProxy {
  return { outcome: 'unavailable', reason, width: 0, height: 0, codec: '', size: 0, headPatches: [] };
}

/**
 * Builds the proxy of the video in `blob` into `sink`.
 *
 * @example
 * const built = await buildProxy(file, 'Cam A', { append: async (bytes) => writer.write(bytes) });
 */
export async function buildProxy(
  blob: Blob,
  label: string,
  sink: ProxySink,
  onProgress?: (p: MediaProgress) => void,
  signal?: AbortSignal,
): Promise<BuiltProxy> {
  const input = new Input({ source: new BlobSource(blob), formats: ALL_FORMATS });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) return unavailable(`${label} has no video track`);
    if (!(await videoDecodable(track)))
      return unavailable(
        `${label} is ${codecInWords('video', { codec: track.codec })}, which this browser cannot decode`,
      );
    const plan = proxyPlan({ width: track.displayWidth, height: track.displayHeight });
    let codec: VideoCodec | null = null;
    for (const candidate of PROXY_CODECS) {
      if (await canEncodeVideo(candidate, { width: plan.width, height: plan.height, bitrate: plan.bitrate })) {
        codec = candidate;
        break;
      }
    }
    if (codec === null) return unavailable('this browser has no H.264 or VP9 encoder to write a proxy with');
    signal?.throwIfAborted();

    const writes = new AppendWithHeadPatches();
    const writable = new WritableStream<StreamTargetChunk>({
      async write(chunk) {
        const append = writes.accept(chunk.data, chunk.position);
        if (append) await sink.append(append);
      },
    });
    const output = new Output({
      format: new Mp4OutputFormat({ fastStart: false }),
      target: new StreamTarget(writable, { chunked: true, chunkSize: SINK_CHUNK_BYTES }),
    });
    const durationS = await track.computeDuration();
    const conversion = await Conversion.init({
      input,
      output,
      video: {
        width: plan.width,
        height: plan.height,
        fit: 'contain',
        codec,
        bitrate: plan.bitrate,
        keyFrameInterval: plan.keyFrameIntervalS,
        forceTranscode: true,
        // The proxy's frames are upright: its display size is the plan's, whatever the source's rotation.
        allowTransformationMetadata: false,
      },
      audio: { discard: true },
      // Media time 0 stays 0 (mediabunny would start at the first frame otherwise).
      trim: { start: 0 },
      tags: {},
      showWarnings: false,
    });
    if (!conversion.isValid) {
      const why = conversion.discardedTracks.map((d) => `${d.track.type} track: ${d.reason}`).join(', ');
      return unavailable(`${label} cannot be converted to a proxy in this browser (${why || 'no usable track'})`);
    }
    if (onProgress)
      conversion.onProgress = (fraction, processedS) =>
        onProgress({
          fraction: durationS > 0 ? Math.min(1, processedS / durationS) : fraction,
          mediaMs: processedS * 1000,
        });
    const onAbort = (): void => void conversion.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await conversion.execute();
    } catch (error) {
      if (signal?.aborted) throw new MediaAbortError(`${label}: cancelled`);
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    return {
      outcome: 'built',
      width: plan.width,
      height: plan.height,
      codec,
      size: writes.size,
      headPatches: writes.patches.map((p) => ({ position: p.position, data: p.data })),
    };
  } finally {
    input.dispose();
  }
}
