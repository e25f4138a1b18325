/**
 * Browser-test page for voice activity: exposes `window.vad.run`, which runs Silero VAD in a
 * fresh worker (vad.worker.ts: the engine's loading code) on a served raw float32 signal, and
 * `window.vad.diarize`, which runs the engine's analysis worker itself on served channels.
 * Driven by tools/diarization/chromium-vad.ts (test/browser/vad.test.ts, bench/diarize/run.ts).
 */
import { transfer, wrap } from 'comlink';
import type { AnalysisWorkerApi, DiarizeOutcome } from '../../../src/pipeline/stages/protocol.ts';
import type { VadPageOptions, VadPageRun, VadWorkerApi } from './vad.worker.ts';

async function run(inputUrl: string, options: VadPageOptions): Promise<VadPageRun> {
  // A worker per run: onnxruntime's thread count is fixed by its first session.
  const worker = new Worker(new URL('./vad.worker.ts', import.meta.url), { type: 'module' });
  try {
    return await wrap<VadWorkerApi>(worker).run(inputUrl, options);
  } finally {
    worker.terminate();
  }
}

/** What {@link diarize} returns: the analysis worker's outcome and its wall time on the page. */
export interface PageDiarizeRun {
  outcome: DiarizeOutcome;
  ms: number;
}

/**
 * The engine's analysis worker (a fresh one) diarizing served raw float32 channels, as the
 * diarizing stage calls it. `abortAfterMs` aborts the call that long after it starts.
 */
async function diarize(
  inputUrls: string[],
  options: { vadLanes?: number; vadGate?: boolean; abortAfterMs?: number } = {},
): Promise<PageDiarizeRun> {
  const channels = await Promise.all(
    inputUrls.map(async (url) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      return new Float32Array(await response.arrayBuffer());
    }),
  );
  const worker = new Worker(new URL('../../../workers/analysis.worker.ts', import.meta.url), {
    type: 'module',
  });
  const analysis = wrap<AnalysisWorkerApi>(worker);
  try {
    // Channels already on the reference timeline: offset 0, no drift, as long as they are.
    const request = {
      sources: channels.map((samples) => ({ samples, sampleRate: 16000, offsetMs: 0, driftPpm: 0 })),
      lengthMs: ((channels[0]?.length ?? 0) * 1000) / 16000,
      sampleRate: 16000,
      modelUrl: new URL('/models/silero_vad_v6.onnx', location.origin).href,
      ortWasmPath: new URL('/wasm/ort/', location.origin).href,
      ...(options.vadLanes !== undefined ? { vadLanes: options.vadLanes } : {}),
      ...(options.vadGate !== undefined ? { vadGate: options.vadGate } : {}),
    };
    const t0 = performance.now();
    const call = analysis.diarizeSources(
      transfer(
        request,
        channels.map((c) => c.buffer),
      ),
      'page',
    );
    if (options.abortAfterMs !== undefined) setTimeout(() => void analysis.abort('page'), options.abortAfterMs);
    const sourcesOutcome = await call;
    const ms = performance.now() - t0;
    // The WAV of the mix stays on the page (a Blob does not cross to the test).
    const outcome: DiarizeOutcome = sourcesOutcome.ok
      ? (({ audio: _audio, prepareMs: _prepareMs, ...rest }) => rest)(sourcesOutcome)
      : sourcesOutcome;
    return { outcome, ms };
  } finally {
    worker.terminate();
  }
}

declare global {
  interface Window {
    vad: { run: typeof run; diarize: typeof diarize };
  }
}
window.vad = { run, diarize };
document.body.dataset['ready'] = '1';
