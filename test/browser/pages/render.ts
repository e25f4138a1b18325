/**
 * Browser-test page for the render worker: exposes `window.renderTest`, which fetches served
 * source files, renders an edit through the real worker into an in-page sink, checks that a
 * `<video>` element plays the output, and hands the file back (base64) for Node to probe.
 */
import { createRenderClient } from '../../../src/render/client.ts';
import type {
  RenderAudioOptions,
  RenderOutputOptions,
  RenderProgress,
  RenderRequest,
  RenderResult,
  RenderSink,
  RenderSource,
} from '../../../src/render/protocol.ts';
import type { Cut, TimeRange } from '../../../src/contract/types.ts';

/** A source as the Node side describes it: a served URL instead of a Blob. */
export interface PageSource extends Omit<RenderSource, 'blob'> {
  url: string;
}

export interface PageRenderOptions {
  cuts: Cut[];
  removedRanges: TimeRange[];
  sources: PageSource[];
  audioSourceIds?: string[];
  /** The sound's mastering (RenderRequest.audio). */
  audio?: RenderAudioOptions;
  /** A person's gain per source (RenderRequest.audioGains). */
  audioGains?: RenderRequest['audioGains'];
  output?: RenderOutputOptions;
  /** Cancel this many ms after the render starts. */
  abortAfterMs?: number;
  /** Return the file (base64); off for long benchmark renders. */
  returnFile?: boolean;
  /** Sample the worker heap every this many ms. */
  heapEveryMs?: number;
  /** Give the render an append-only sink. */
  sequentialSink?: boolean;
  /** Leave the optional ffmpeg core off (the page opts in to `/wasm/` by default, as the demo does). */
  noFfmpeg?: boolean;
}

export interface PageRenderSummary {
  result?: RenderResult;
  error?: { name: string; message: string };
  progress: number[];
  sinkAborted: string | null;
  sinkClosed: boolean;
  writes: number;
  outOfOrderWrites: number;
  fileBase64?: string;
  video?: { duration: number; width: number; height: number } | { error: string };
  heap: number[];
  wallMs: number;
}

/** Collects positioned writes; keeps only what the test needs (the bytes, or just their count). */
class MemorySink implements RenderSink {
  /** Writes that did not land at the current end of the file. */
  outOfOrder = 0;
  parts: Array<{ position: number; data: Uint8Array }> = [];
  end = 0;
  writes = 0;
  closed = false;
  aborted: string | null = null;
  constructor(
    private readonly keep: boolean,
    readonly sequential: boolean,
  ) {}
  write(data: Uint8Array, position: number): void {
    this.writes++;
    if (position !== this.end) this.outOfOrder++;
    this.end = Math.max(this.end, position + data.byteLength);
    if (this.keep) this.parts.push({ position, data: data.slice() });
  }
  close(): void {
    this.closed = true;
  }
  abort(reason: string): void {
    this.aborted = reason;
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.end);
    for (const p of this.parts) out.set(p.data, p.position);
    return out;
  }
}

async function blobOf(url: string): Promise<Blob> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.blob();
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

async function playable(bytes: Uint8Array, mime: string): Promise<NonNullable<PageRenderSummary['video']>> {
  const video = document.getElementById('out') as HTMLVideoElement;
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }));
  try {
    return await new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ error: 'no loadedmetadata within 10 s' }), 10_000);
      video.onloadedmetadata = () => {
        clearTimeout(timer);
        resolve({ duration: video.duration, width: video.videoWidth, height: video.videoHeight });
      };
      video.onerror = () => {
        clearTimeout(timer);
        resolve({ error: video.error?.message ?? 'media error' });
      };
      video.src = url;
    });
  } finally {
    video.removeAttribute('src');
    video.load();
    URL.revokeObjectURL(url);
  }
}

const renderer = createRenderClient();

const api = {
  async render(o: PageRenderOptions): Promise<PageRenderSummary> {
    const progress: number[] = [];
    const heap: number[] = [];
    const keep = o.returnFile ?? true;
    const sink = new MemorySink(keep, o.sequentialSink ?? false);
    const controller = new AbortController();
    const sources: RenderSource[] = [];
    for (const s of o.sources) {
      const { url, ...rest } = s;
      sources.push({ ...rest, blob: await blobOf(url) });
    }
    const request: RenderRequest = {
      cuts: o.cuts,
      removedRanges: o.removedRanges,
      sources,
      ...(o.audioSourceIds ? { audioSourceIds: o.audioSourceIds } : {}),
      ...(o.output ? { output: o.output } : {}),
      ...(o.audio ? { audio: o.audio } : {}),
      ...(o.audioGains ? { audioGains: o.audioGains } : {}),
      ...(o.noFfmpeg ? {} : { ffmpeg: { wasmBase: '/wasm/' } }),
    };
    const t0 = performance.now();
    if (o.abortAfterMs !== undefined) setTimeout(() => controller.abort(), o.abortAfterMs);
    const heapTimer = o.heapEveryMs
      ? setInterval(() => void renderer.heapBytes().then((h) => h !== null && heap.push(h)), o.heapEveryMs)
      : null;
    const summary: PageRenderSummary = {
      progress,
      sinkAborted: null,
      sinkClosed: false,
      writes: 0,
      outOfOrderWrites: 0,
      heap,
      wallMs: 0,
    };
    try {
      summary.result = await renderer.render(request, {
        sink,
        onProgress: (p: RenderProgress) => progress.push(p.fraction),
        signal: controller.signal,
      });
    } catch (e) {
      summary.error = {
        name: e instanceof Error ? e.name : 'unknown',
        message: e instanceof Error ? e.message : String(e),
      };
    } finally {
      if (heapTimer) clearInterval(heapTimer);
    }
    summary.wallMs = performance.now() - t0;
    summary.sinkAborted = sink.aborted;
    summary.sinkClosed = sink.closed;
    summary.writes = sink.writes;
    summary.outOfOrderWrites = sink.outOfOrder;
    if (summary.result && keep) {
      const bytes = sink.bytes();
      summary.video = await playable(bytes, summary.result.mimeType);
      summary.fileBase64 = base64(bytes);
    }
    return summary;
  },
};

declare global {
  interface Window {
    renderTest: typeof api;
  }
}
window.renderTest = api;
document.body.dataset['ready'] = '1';
