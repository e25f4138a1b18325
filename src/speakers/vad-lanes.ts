/**
 * The VAD lanes' coordination: speech probabilities of every channel of a diarize request, the
 * analysis worker the first lane and each further lane a worker of its own
 * (workers/vad-lane.worker.ts), every lane taking the next channel when it finishes one. Close
 * mics are gated first (the VAD runs only where a mic is above its floor, src/analysis/speech/vad-gate.ts)
 * and run at 8 kHz; on disk, each one's VAD input goes to a scratch file as it is made.
 *
 * @module
 */
import { transfer, wrap, type Remote } from 'comlink';
import { resample } from '../analysis/signal/signal-resample.ts';
import {
  BLEED_GATE_MARGIN_DB,
  closeMicStretches,
  joinStretches,
  joinStretchesTo,
  spreadGated,
  type GatedStretches,
} from '../analysis/speech/vad-gate.ts';
import type { ScratchSamples, ScratchSpace } from '../media/scratch.ts';
import { SILERO_FRAME_SAMPLES, type SileroRate } from '../models/silero-vad.ts';
import { VAD_LANES_MAX, type VadLaneApi, type VadLaneModel } from './protocol.ts';
import { filesOf, release, wholeSignal, type HeldRequest } from './signals.ts';
import type { LoadedVad } from './vad-model.ts';

/** Channels shorter than this run in one lane unless the request asks for more. */
const LANE_MIN_SECONDS = 120;

/** How many lanes the request's VAD may use: several for minutes of audio on several cores. */
export function lanesWanted(request: HeldRequest): number {
  const cores = navigator.hardwareConcurrency || 1;
  // A lane takes about a second to start (onnxruntime and the model): worth it for minutes of audio, not seconds.
  const long = request.channels.some((c) => c.length >= LANE_MIN_SECONDS * request.sampleRate);
  return request.vadLanes ?? (cores > 1 && long ? VAD_LANES_MAX : 1);
}

/** A new VAD lane worker (also the residual lane, residual-lane.ts). */
export function startLaneWorker(): Worker {
  return new Worker(new URL('../../workers/vad-lane.worker.ts', import.meta.url), { type: 'module' });
}

/** The speech probabilities of every channel, and how they were computed (the response's figures). */
export interface ChannelProbabilities {
  probs: Float32Array[];
  lanes: number;
  skipped: number;
  inputs: 'files' | 'memory';
}

/** What the VAD reads of each channel, made when a lane takes the channel. */
interface VadInputs {
  gated: GatedStretches[] | null;
  rate: SileroRate;
  /** Whether the VAD reads copies (else the request's own channels, transferred away and back). */
  copies: boolean;
  /** The channel's input in memory. */
  input(i: number): Float32Array;
  /** The scratch space the inputs are written to (close mics on disk), else null. */
  onDisk: ScratchSpace | null;
  /** The channel's input written to a file of {@link onDisk}. */
  file(i: number): Promise<ScratchSamples>;
  /** Share of the frames the gate spared the VAD. */
  skipped: number;
}

/**
 * The VAD's inputs: made when a lane takes the channel (so no more copies are held than lanes
 * run), or the request's own channel when the VAD reads it as it is. A channel on disk is read a
 * piece at a time.
 */
function vadInputs(request: HeldRequest, scratch: ScratchSpace | null): VadInputs {
  const { channels, sampleRate } = request;
  // Close mics: the VAD runs on what is above each mic's floor, joined (see vad-gate.ts).
  const gated =
    channels.length > 1 && request.vadGate !== false
      ? closeMicStretches(
          channels,
          SILERO_FRAME_SAMPLES,
          request.vadBleedGate === false ? {} : { bleedMarginDb: BLEED_GATE_MARGIN_DB },
        )
      : null;
  // Close mics: Silero at 8 kHz (its 32 ms frames line up with the 16 kHz ones).
  const rate = request.vadRate ?? (channels.length > 1 ? 8000 : 16000);
  const copies = gated !== null || rate !== sampleRate || channels.some((c) => !(c instanceof Float32Array));
  const input = (i: number): Float32Array => {
    const c = channels[i]!;
    if (!copies) return c as Float32Array;
    if (gated) return joinStretches(c, SILERO_FRAME_SAMPLES, gated[i]!, { from: sampleRate, to: rate });
    const whole = wholeSignal(c);
    if (rate === sampleRate) return whole === c ? whole.slice() : whole;
    const resampled = resample(whole, sampleRate, rate);
    if (whole !== c) release(whole);
    return resampled;
  };
  // An hour of a mic at 8 kHz is 0.12 GB: on disk, every lane's input at once would be 0.35 GB.
  const onDisk = scratch && gated && filesOf(channels) ? scratch : null;
  const file = async (i: number): Promise<ScratchSamples> => {
    const out = await onDisk!.samples(`vad-${i}.f32`);
    joinStretchesTo(channels[i]!, SILERO_FRAME_SAMPLES, gated![i]!, { from: sampleRate, to: rate }, (part) =>
      out.append(part),
    );
    return out;
  };
  const total = channels.reduce((n, c) => n + c.length, 0);
  const kept = gated ? gated.reduce((n, g) => n + g.keep.reduce((k, s) => k + s.end - s.start, 0), 0) : 0;
  const skipped = gated ? 1 - (kept * SILERO_FRAME_SAMPLES) / Math.max(1, total) : 0;
  return { gated, rate, copies, input, onDisk, file, skipped };
}

/**
 * `count` lane workers, each answering: their remotes, and a promise that rejects when one
 * crashes or `signal` aborts (calls into a crashed lane would never settle).
 */
async function startLanes(
  count: number,
  signal: AbortSignal,
): Promise<{ remotes: Remote<VadLaneApi>[]; stopped: Promise<never>; close(): void }> {
  const workers = Array.from({ length: count }, startLaneWorker);
  const close = (): void => {
    for (const worker of workers) worker.terminate();
  };
  const stopped = new Promise<never>((_, reject) => {
    for (const worker of workers) {
      worker.addEventListener('error', (event) =>
        reject(new Error(`a VAD lane failed: ${event.message || 'it could not start'}`)),
      );
    }
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  // The caller's race hears it; an abort after the lanes are done must not be an unhandled rejection.
  stopped.catch(() => undefined);
  const remotes = workers.map((worker) => wrap<VadLaneApi>(worker));
  // A worker this one starts comes up only while this one yields to its event loop, which the
  // VAD here does not do for a whole channel: the lanes are waited for first (else they sat
  // idle behind the first channel, 24 s of an hour's 48).
  try {
    await Promise.race([Promise.all(remotes.map((remote) => remote.ready())), stopped]);
  } catch (error) {
    close();
    throw error;
  }
  return { remotes, stopped, close };
}

/**
 * Speech probabilities of every channel. On wasm several channels run at once
 * (`request.vadLanes`): this worker is the first lane, each further lane a worker of its own,
 * and every lane takes the next channel when it finishes one. A channel goes to a lane and comes
 * back transferred, never copied. On WebGPU, one after the other. Close mics on disk: each one's
 * VAD input (its gated stretches at 8 kHz) goes to a file in `scratch` as it is made, and the
 * lane that takes it reads it a window at a time.
 */
export async function channelProbabilities(
  vad: LoadedVad,
  request: HeldRequest,
  signal: AbortSignal,
  scratch: ScratchSpace | null,
): Promise<ChannelProbabilities> {
  const inputs = vadInputs(request, scratch);
  const { onDisk, rate, copies, skipped } = inputs;
  const where = onDisk ? 'files' : 'memory';
  const channels = request.channels;
  const wanted = lanesWanted(request);
  const lanes =
    vad.model.executionProvider === 'wasm' && wanted >= 1
      ? Math.max(1, Math.min(channels.length, Math.floor(wanted)))
      : 1;
  const probs: Float32Array[] = [];
  let next = 0;
  const here = async (): Promise<void> => {
    for (let i = next++; i < channels.length; i = next++) {
      if (onDisk) {
        const file = await inputs.file(i);
        probs[i] = await vad.model.speechProbabilities(file, signal, rate);
        await onDisk.drop(file);
        continue;
      }
      const input = inputs.input(i);
      probs[i] = await vad.model.speechProbabilities(input, signal, rate);
      if (copies) release(input);
    }
  };
  const spread = (): Float32Array[] => (inputs.gated ? spreadGated(probs, inputs.gated) : probs);
  if (lanes === 1) {
    await here();
    return { probs: spread(), lanes, skipped, inputs: where };
  }
  const started = await startLanes(lanes - 1, signal);
  const lane = async (remote: Remote<VadLaneApi>): Promise<void> => {
    const model: VadLaneModel = {
      bytes: vad.bytes,
      ortWasmPath: request.ortWasmPath,
      ...(request.assetCache ? { assetCache: request.assetCache } : {}),
    };
    for (let i = next++; i < channels.length; i = next++) {
      if (onDisk) {
        const file = await inputs.file(i);
        const ref = onDisk.closeFile(file);
        probs[i] = await remote.probabilitiesFromFile(model, ref, rate);
        await onDisk.removeFile(ref.name);
        continue;
      }
      const channel = inputs.input(i);
      const whole = channel.byteOffset === 0 && channel.byteLength === channel.buffer.byteLength;
      const back = await remote.probabilities(
        model,
        whole ? transfer(channel, [channel.buffer as ArrayBuffer]) : channel,
        rate,
      );
      if (copies) release(back.channel);
      else channels[i] = back.channel;
      probs[i] = back.probs;
    }
  };
  try {
    // The lanes first: each has its channel sent before the VAD here holds this thread.
    await Promise.race([Promise.all([...started.remotes.map(lane), here()]), started.stopped]);
  } finally {
    started.close();
  }
  return { probs: spread(), lanes, skipped, inputs: where };
}
