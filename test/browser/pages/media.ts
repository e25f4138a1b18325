/**
 * Browser-test page for the media worker: exposes `window.mediaTest`, which fetches a served
 * file, probes or decodes it through the real worker and returns a small summary (never the
 * whole decoded audio) for the Node side to check.
 */
import { createMediaClient } from '../../../src/media/client.ts';
import type { EnginePreference } from '../../../src/media/protocol.ts';
import { argmax, fft } from '../../../src/analysis/signal/signal-fft.ts';
import { alignSources } from '../../../src/analysis/sync/sync.ts';
import { removeScratch, scratchName } from '../../../src/media/scratch.ts';

// The page opts in to the optional ffmpeg core at /wasm/ (as the demo does); `noCore` leaves it off.
const media = createMediaClient(undefined, { ffmpegWasmBase: '/wasm/' });
const mediaNoCore = createMediaClient();

async function blobOf(url: string): Promise<File> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const name = url.split('/').pop() ?? 'file';
  return new File([await res.blob()], name);
}

function errorSummary(e: unknown): { error: { name: string; message: string } } {
  return {
    error: { name: e instanceof Error ? e.name : 'unknown', message: e instanceof Error ? e.message : String(e) },
  };
}

/** Strongest frequency (Hz) in a 2¹⁴-sample stretch from the middle of the signal. */
function dominantHz(x: Float32Array, rate: number): number {
  const n = 16384;
  if (x.length < n) return 0;
  const start = Math.floor((x.length - n) / 2);
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let i = 0; i < n; i++) re[i] = x[start + i]! * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  fft(re, im);
  const mag = new Float64Array(n / 2);
  for (let k = 1; k < n / 2; k++) mag[k] = Math.hypot(re[k]!, im[k]!);
  return (argmax(mag) * rate) / n;
}

const api = {
  async probe(url: string, engine: EnginePreference = 'auto') {
    try {
      const t0 = performance.now();
      const p = await media.probe(await blobOf(url), { label: url.split('/').pop() ?? url, engine });
      return { ...p, ms: performance.now() - t0 };
    } catch (e) {
      return errorSummary(e);
    }
  },
  async decode(
    url: string,
    options: {
      engine?: EnginePreference;
      sampleRate?: number;
      abortAfterMs?: number;
      headSec?: number;
      /** Only this stretch of media time (ms). */
      range?: { startMs: number; endMs: number };
      /** Without the optional ffmpeg core. */
      noCore?: boolean;
      /** Into a file of a scratch folder (read back here, then removed). */
      toFile?: boolean;
    } = {},
  ) {
    const rate = options.sampleRate ?? 16000;
    const controller = new AbortController();
    const progress: number[] = [];
    try {
      const blob = await blobOf(url);
      if (options.abortAfterMs !== undefined) setTimeout(() => controller.abort(), options.abortAfterMs);
      const t0 = performance.now();
      const folder = scratchName();
      const out = await (options.noCore ? mediaNoCore : media).decodeAudio(blob, {
        label: blob.name,
        sampleRate: rate,
        engine: options.engine ?? 'auto',
        ...(options.range ? { range: options.range } : {}),
        ...(options.toFile ? { toFile: { folder, name: 'decoded.f32' } } : {}),
        signal: controller.signal,
        onProgress: (p) => progress.push(p.fraction),
      });
      const ms = performance.now() - t0;
      const inFile = out.file ?? null;
      if (options.toFile) {
        const root = await navigator.storage.getDirectory();
        if (inFile) {
          const handle = await (await root.getDirectoryHandle(folder)).getFileHandle('decoded.f32');
          out.samples = new Float32Array(await (await handle.getFile()).arrayBuffer());
        }
        await removeScratch(folder);
      }
      let acc = 0;
      for (const v of out.samples) acc += v * v;
      return {
        engine: out.engine,
        ffmpeg: out.ffmpeg ?? null,
        sampleRate: out.sampleRate,
        length: out.samples.length,
        transferred: out.samples.buffer.byteLength === out.samples.length * 4,
        inFile,
        rms: Math.sqrt(acc / Math.max(1, out.samples.length)),
        dominantHz: dominantHz(out.samples, out.sampleRate),
        progress,
        head: Array.from(out.samples.subarray(0, Math.round((options.headSec ?? 0) * rate))),
        ms,
      };
    } catch (e) {
      return errorSummary(e);
    }
  },
  /**
   * The sync stage's media work for a set of sources, timed: probe and decode each through the
   * worker (one after another, as one worker does), then align them. Used by bench/sync/run.ts.
   */
  async syncBench(urls: string[], sampleRate = 16000) {
    const files = await Promise.all(urls.map(blobOf));
    const t0 = performance.now();
    const probes = [];
    for (const f of files) probes.push(await media.probe(f, { label: f.name }));
    const t1 = performance.now();
    const decoded = [];
    for (const f of files) decoded.push(await media.decodeAudio(f, { label: f.name, sampleRate }));
    const t2 = performance.now();
    const aligned = alignSources(
      decoded.map((d, i) => ({ id: files[i]!.name, samples: d.samples, sampleRate: d.sampleRate })),
    );
    const t3 = performance.now();
    return {
      mediaMs: probes.map((p) => p.durationMs),
      engines: decoded.map((d) => d.engine),
      probeMs: t1 - t0,
      decodeMs: t2 - t1,
      syncMs: t3 - t2,
      aligned: aligned.map(({ id, offsetMs, driftPpm, confidence }) => ({ id, offsetMs, driftPpm, confidence })),
    };
  },
};

declare global {
  interface Window {
    mediaTest: typeof api;
  }
}
window.mediaTest = api;
document.body.dataset['ready'] = '1';
