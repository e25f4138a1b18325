/**
 * Runs Silero VAD inside Chromium (launched through tools/chromium.ts) on onnxruntime-web's
 * wasm or WebGPU build, served from this checkout by tools/serve.ts. The page-side loop is
 * the streaming form of src/models/silero-vad.ts (one lane), inlined because the bench
 * serves sources, not a Vite build. Used by bench/diarize/run.ts and test/browser/vad.test.ts.
 *
 * @module
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../chromium.ts';
import { serveStatic } from '../serve.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Probabilities per 512-sample frame, wall time and the adapter description. */
export interface BrowserVadRun {
  probs: number[];
  ms: number;
  adapter: string;
}

/** Streams `samples` (16 kHz) through Silero in Chromium with the given execution provider. */
export async function runVadInChromium(samples: Float32Array, provider: 'wasm' | 'webgpu', optimization: 'disabled' | 'basic' | 'all' = 'all'): Promise<BrowserVadRun> {
  const server = await serveStatic(root);
  const chromium = await launchChromium(provider === 'webgpu' ? { extraArgs: ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader'] } : {});
  try {
    const page = await chromium.context.newPage();
    await page.goto(`${server.origin}/models/manifest.json`);
    // The UMD build sets a global `ort`; a dynamic import() inside evaluate would be rewritten
    // by Vite's SSR transform when this runs under vitest.
    const bundle = provider === 'webgpu' ? 'ort.webgpu.min.js' : 'ort.wasm.min.js';
    await page.addScriptTag({ url: `${server.origin}/node_modules/onnxruntime-web/dist/${bundle}` });
    return await page.evaluate(
      async ({ input, provider, optimization }) => {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const ort = (globalThis as any).ort;
        ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
        ort.env.wasm.numThreads = 1;
        let adapterText = 'wasm';
        if (provider === 'webgpu') {
          const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info?: { isFallbackAdapter?: boolean; vendor?: string; architecture?: string } } | null> } }).gpu;
          const adapter = gpu ? await gpu.requestAdapter() : null;
          if (!adapter) throw new Error('navigator.gpu.requestAdapter() gave no adapter');
          adapterText = `${adapter.info?.vendor ?? '?'} ${adapter.info?.architecture ?? ''} fallback=${adapter.info?.isFallbackAdapter}`;
          ort.env.webgpu.adapter = adapter;
        }
        const model = new Uint8Array(await (await fetch('/models/silero_vad_v6.onnx')).arrayBuffer());
        const session = await ort.InferenceSession.create(model, { executionProviders: [provider], graphOptimizationLevel: optimization });
        const x = Float32Array.from(input);
        const frames = Math.ceil(x.length / 512);
        const sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
        let state = new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
        const probs: number[] = [];
        const t0 = performance.now();
        for (let f = 0; f < frames; f++) {
          const row = new Float32Array(576);
          for (let i = 0; i < 576; i++) {
            const k = f * 512 - 64 + i;
            if (k >= 0 && k < x.length) row[i] = x[k]!;
          }
          const out = await session.run({ input: new ort.Tensor('float32', row, [1, 576]), state, sr });
          state = out.stateN;
          probs.push(out.output.data[0] as number);
        }
        const ms = performance.now() - t0;
        await session.release();
        return { probs, ms, adapter: adapterText };
      },
      { input: Array.from(samples), provider, optimization },
    );
  } finally {
    await chromium.close();
    await server.close();
  }
}
