/**
 * The media worker: probing and audio decoding off the main thread, exposed with comlink as
 * {@link MediaWorkerApi} (src/media/protocol.ts). Decoded samples are transferred, not copied.
 *
 * @module
 */
import { expose, transfer } from 'comlink';
import { createMediaService } from '../src/media/media-service.ts';
import type { MediaWorkerApi } from '../src/media/protocol.ts';
import { usePromptAudioDecoder } from '../src/media/prompt-audio-decoder.ts';

// WebKit's AudioDecoder holds its output until flush(): decode audio through the decoder that copes.
usePromptAudioDecoder();

const service = createMediaService();

const api: MediaWorkerApi = {
  probe: (blob, options) => service.probe(blob, options),
  async decodeAudio(blob, options, onProgress) {
    // Progress goes back on the callback's own MessageChannel, the result on the worker's port:
    // without waiting for the last report, it could arrive after the result.
    let last: void | Promise<void> = undefined;
    const out = await service.decodeAudio(blob, options, onProgress ? (p) => void (last = onProgress(p)) : undefined);
    await Promise.resolve(last).catch(() => undefined);
    return transfer(out, [out.samples.buffer]);
  },
  async buildProxy(blob, options, sink, onProgress) {
    let last: void | Promise<void> = undefined;
    const built = await service.buildProxy(
      blob,
      options,
      sink,
      onProgress ? (p) => void (last = onProgress(p)) : undefined,
    );
    await Promise.resolve(last).catch(() => undefined);
    return built;
  },
  abort: (requestId) => service.abort(requestId),
  dispose: () => service.dispose(),
};

expose(api);
