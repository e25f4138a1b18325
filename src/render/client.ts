/**
 * A page's handle on the render worker: `render(request, { sink, onProgress, signal })`
 * wraps the comlink `Remote<RenderWorkerApi>`, turns the AbortSignal into `abort(requestId)`,
 * and passes the sink and progress callback as comlink proxies.
 *
 * @module
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { RenderProgress, RenderRequest, RenderResult, RenderSink, RenderWorkerApi } from './protocol.ts';

/** The render client; `dispose()` terminates the worker. */
export interface RenderClient {
  render(
    request: RenderRequest,
    options: { sink: RenderSink; onProgress?: (p: RenderProgress) => void; signal?: AbortSignal },
  ): Promise<RenderResult>;
  /** The worker's JS heap in use, bytes (Chromium only), or null. */
  heapBytes(): Promise<number | null>;
  dispose(): void;
}

/**
 * Starts a render worker.
 *
 * @example
 * const renderer = createRenderClient();
 * const result = await renderer.render({ cuts, removedRanges, sources }, { sink, onProgress, signal });
 * renderer.dispose();
 */
export function createRenderClient(
  worker: Worker = new Worker(new URL('../../workers/render.worker.ts', import.meta.url), { type: 'module' }),
): RenderClient {
  const remote: Remote<RenderWorkerApi> = wrap<RenderWorkerApi>(worker);
  let seq = 0;
  const client: RenderClient = {
    async render(request, { sink, onProgress, signal }) {
      signal?.throwIfAborted();
      const requestId = `render-${++seq}`;
      const onAbort = () => void remote.abort(requestId);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        return await remote.render(request, proxy(sink), onProgress ? proxy(onProgress) : undefined, requestId);
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },
    heapBytes: () => remote.heapBytes(),
    dispose: () => worker.terminate(),
  };
  return client;
}
