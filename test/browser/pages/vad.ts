/**
 * Browser-test page for voice activity: exposes `window.vad.run`, which runs Silero VAD in a
 * fresh worker (vad.worker.ts: the engine's loading code) on a served raw float32 signal.
 * Driven by tools/diarization/chromium-vad.ts (test/browser/vad.test.ts, bench/diarize/run.ts).
 */
import { wrap } from 'comlink';
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

declare global {
  interface Window {
    vad: { run: typeof run };
  }
}
window.vad = { run };
document.body.dataset['ready'] = '1';
