/**
 * What a camera's proxy is made of, and how the muxer's writes reach an append-only store.
 * Pure: the worker (src/media/proxy.ts) builds by this plan, the engine stores by
 * {@link AppendWithHeadPatches}. See docs/proxies.md.
 *
 * @module
 */

/** The proxy's short side in pixels (360p for a landscape camera); a smaller source keeps its own. */
export const PROXY_SHORT_SIDE = 360;
/** The proxy's video bitrate, bits per second: light enough for four tiles at once, sharp enough at 360p. */
export const PROXY_BITRATE = 800_000;
/** A keyframe at least this often (seconds), so a seek decodes at most this much before the frame shown. */
export const PROXY_KEYFRAME_S = 1;
/** The first bytes of a proxy that the muxer may rewrite once the file is whole (the mdat header). */
export const PROXY_HEAD_BYTES = 64 * 1024;

/** How a camera's proxy is encoded. */
export interface ProxyPlan {
  /** Frame size in pixels (display orientation, even numbers). */
  width: number;
  height: number;
  /** Video bitrate, bits per second. */
  bitrate: number;
  /** Longest gap between keyframes, seconds. */
  keyFrameIntervalS: number;
}

/**
 * The proxy of a camera of `width`×`height` (as displayed, after rotation): its short side
 * scaled to {@link PROXY_SHORT_SIDE} (never up), the aspect ratio kept, both sides even (H.264's
 * 4:2:0 needs it). The source's own frame rate and timing are kept by the builder.
 *
 * @example
 * proxyPlan({ width: 3840, height: 2160 }); // { width: 640, height: 360, bitrate: 800000, keyFrameIntervalS: 1 }
 */
export function proxyPlan(video: { width: number; height: number }): ProxyPlan {
  const { width, height } = video;
  if (!(width > 0 && height > 0))
    throw new RangeError(`proxyPlan: a frame size must be positive (got ${width}×${height})`);
  const scale = Math.min(1, PROXY_SHORT_SIDE / Math.min(width, height));
  const even = (n: number): number => Math.max(2, 2 * Math.round(n / 2));
  return {
    width: even(width * scale),
    height: even(height * scale),
    bitrate: PROXY_BITRATE,
    keyFrameIntervalS: PROXY_KEYFRAME_S,
  };
}

/** Bytes the muxer rewrote at `position` once the file was whole, to apply to the stored file's head. */
export interface HeadPatch {
  position: number;
  data: Uint8Array;
}

/**
 * Turns a muxer's positioned writes into appends plus patches of the file's first bytes. An MP4
 * with its index at the end (random access for scrubbing, no fragment walk) is written in order
 * except for the mdat's size, patched at the start once the file is whole; the store is
 * append-only, so such a write becomes a {@link HeadPatch} applied after the file is closed. A
 * write anywhere else before the end, or past it, is refused.
 */
export class AppendWithHeadPatches {
  private written = 0;
  private readonly patchList: HeadPatch[] = [];

  constructor(private readonly headBytes: number = PROXY_HEAD_BYTES) {}

  /** Bytes appended so far. */
  get size(): number {
    return this.written;
  }

  /** The patches of the head, in the order written. */
  get patches(): readonly HeadPatch[] {
    return this.patchList;
  }

  /** What of a write at `position` is appended (null: none; the rest became a head patch). */
  accept(data: Uint8Array, position: number): Uint8Array | null {
    if (position > this.written)
      throw new Error(`proxy output: a write at byte ${position} leaves a gap after ${this.written} bytes`);
    const before = Math.min(data.byteLength, this.written - position);
    if (before > 0) {
      if (position + before > this.headBytes)
        throw new Error(
          `proxy output: a rewrite of bytes ${position}‥${position + before} lies beyond the first ${this.headBytes} bytes`,
        );
      this.patchList.push({ position, data: data.slice(0, before) });
    }
    const rest = before > 0 ? data.subarray(before) : data;
    if (rest.byteLength === 0) return null;
    this.written += rest.byteLength;
    return rest;
  }

  /** `head` (the file's first bytes) with every patch applied, in order; the same length. */
  static apply(head: Uint8Array, patches: readonly HeadPatch[]): Uint8Array {
    const out = head.slice();
    for (const { position, data } of patches) {
      if (position + data.byteLength > out.byteLength)
        throw new Error(
          `proxy output: a patch of bytes ${position}‥${position + data.byteLength} is past the head read`,
        );
      out.set(data, position);
    }
    return out;
  }
}
