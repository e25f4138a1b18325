/**
 * A VAD lane of the analysis worker: Silero VAD on wasm (one thread), one channel at a time, so
 * that the channels of a per-mic job run side by side on several cores. Started by the
 * analysis worker (a worker of its own), fed through {@link VadLaneApi} with comlink; a
 * channel is transferred in and comes back with its probabilities. After the VAD, a lane
 * measures half of the crosstalk residuals while the analysis worker measures the other half
 * (shared memory: the analysis worker waits on it without yielding).
 *
 * @module
 */
import { expose, transfer } from 'comlink';
import type { SileroVad } from '../src/models/silero-vad.ts';
import { ResidualShare, type VadLaneApi, type VadLaneModel } from '../src/speakers/protocol.ts';
import { residualLevels, residualLevelsRead } from '../src/analysis/diarize/residual-levels.ts';
import { openScratchReader, type ScratchSamples } from '../src/media/scratch.ts';
import { startSilero } from '../src/models/silero-loader.ts';

let vad: Promise<SileroVad> | undefined;

/** The lane's Silero session, started on the first call. */
function loaded(model: VadLaneModel): Promise<SileroVad> {
  // With the page's asset cache, onnxruntime's wasm comes from it (fetched once per page).
  vad ??= startSilero('wasm', model.bytes, model.ortWasmPath, model.assetCache).then((started) => started.model);
  return vad;
}

/** Thrown from the heartbeat when the analysis worker took the share back. */
class Withdrawn extends Error {}

/**
 * Measures a share (`measure`, which calls its heartbeat for every block) if it is still
 * waiting, and says in `state` how it went.
 */
async function takeShare(state: Int32Array, measure: (heartbeat: () => void) => Promise<void> | void): Promise<void> {
  if (Atomics.compareExchange(state, 0, ResidualShare.waiting, ResidualShare.taken) !== ResidualShare.waiting) return;
  try {
    await measure(() => {
      Atomics.add(state, 1, 1);
      Atomics.notify(state, 0);
      if (Atomics.load(state, 0) === ResidualShare.withdrawn) throw new Withdrawn();
    });
    Atomics.compareExchange(state, 0, ResidualShare.taken, ResidualShare.done);
  } catch (error) {
    if (!(error instanceof Withdrawn)) console.warn('a share of the crosstalk residuals failed:', error);
    Atomics.compareExchange(state, 0, ResidualShare.taken, ResidualShare.failed);
  }
  Atomics.notify(state, 0);
}

const api: VadLaneApi = {
  async ready() {
    return true;
  },
  residualLevels(job, state) {
    return takeShare(state, (heartbeat) => void residualLevels(job, undefined, heartbeat));
  },
  residualLevelsFromFiles(job, files, state) {
    return takeShare(state, async (heartbeat) => {
      const channels: ScratchSamples[] = [];
      try {
        for (const name of files.names) channels.push(await openScratchReader({ folder: files.folder, name }));
        residualLevelsRead({ ...job, channels }, undefined, { progress: heartbeat });
      } finally {
        for (const channel of channels) channel.close();
      }
    });
  },
  async probabilitiesFromFile(model, file, rate) {
    const input = await openScratchReader(file);
    try {
      const probs = await (await loaded(model)).speechProbabilities(input, undefined, rate);
      return transfer(probs, [probs.buffer as ArrayBuffer]);
    } finally {
      input.close();
    }
  },
  async probabilities(model, channel, rate) {
    const probs = await (await loaded(model)).speechProbabilities(channel, undefined, rate);
    return transfer({ channel, probs }, [channel.buffer as ArrayBuffer, probs.buffer as ArrayBuffer]);
  },
};

expose(api);
