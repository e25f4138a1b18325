/**
 * The render worker: {@link RenderWorkerApi} (src/render/protocol.ts) over comlink. Each render
 * gets its own AbortController, reachable through `abort(requestId)`, since an AbortSignal
 * cannot cross the worker boundary.
 *
 * @module
 */
import { expose } from 'comlink';
import type { RenderWorkerApi } from '../src/render/protocol.ts';
import { renderEdit } from '../src/render/render.ts';
import { usePromptAudioDecoder } from '../src/media/prompt-audio-decoder.ts';

// WebKit's AudioDecoder holds its output until flush(): decode audio through the decoder that copes.
usePromptAudioDecoder();

const running = new Map<string, AbortController>();

const api: RenderWorkerApi = {
  async render(request, sink, onProgress, requestId) {
    const controller = new AbortController();
    if (requestId !== undefined) running.set(requestId, controller);
    try {
      return await renderEdit({ ...request, sink, ...(onProgress ? { onProgress } : {}), signal: controller.signal });
    } finally {
      if (requestId !== undefined) running.delete(requestId);
    }
  },
  abort(requestId) {
    running.get(requestId)?.abort();
  },
  heapBytes() {
    const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
    return memory ? memory.usedJSHeapSize : null;
  },
};

expose(api);
