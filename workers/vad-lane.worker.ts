/**
 * A VAD lane of the analysis worker: Silero VAD on wasm (one thread), one channel at a time, so
 * that the channels of a per-mic job run side by side on several cores. Started by the
 * analysis worker (a worker of its own), fed through {@link VadLaneApi} with comlink; a
 * channel is transferred in and comes back with its probabilities.
 *
 * @module
 */
import { expose, transfer } from 'comlink';
import type { SileroVad } from '../src/models/silero-vad.ts';
import type { VadLaneApi } from '../src/pipeline/stages/protocol.ts';
import { startSilero } from '../src/models/silero-loader.ts';

let vad: Promise<SileroVad> | undefined;

const api: VadLaneApi = {
  async probabilities(model, channel, rate) {
    vad ??= startSilero('wasm', model.bytes, model.ortWasmPath).then((started) => started.model);
    const probs = await (await vad).speechProbabilities(channel, undefined, rate);
    return transfer({ channel, probs }, [channel.buffer as ArrayBuffer, probs.buffer as ArrayBuffer]);
  },
};

expose(api);
