/**
 * A VAD lane of the analysis worker: Silero VAD on wasm (one thread), one channel at a time, so
 * that the channels of a per-mic job run side by side on several cores. Started by the
 * analysis worker (a worker of its own), fed through {@link VadLaneApi} with comlink; a
 * channel is transferred in and comes back with its probabilities.
 *
 * @module
 */
import { expose, transfer } from 'comlink';
import { loadOrt } from '../../models/ort-loader.ts';
import { configureOrtWasm } from '../../models/ort-runtime.ts';
import { SileroVad } from '../../models/silero-vad.ts';
import type { VadLaneApi } from './protocol.ts';

let vad: Promise<SileroVad> | undefined;

const api: VadLaneApi = {
  async probabilities(model, channel) {
    vad ??= (async () => {
      const runtime = await loadOrt('wasm');
      configureOrtWasm(runtime, model.ortWasmPath, 1);
      return SileroVad.create(runtime, model.bytes, { executionProvider: 'wasm' });
    })();
    const probs = await (await vad).speechProbabilities(channel);
    return transfer({ channel, probs }, [channel.buffer as ArrayBuffer, probs.buffer as ArrayBuffer]);
  },
};

expose(api);
