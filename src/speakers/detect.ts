/**
 * Speaker detection of channels already on the reference timeline: the VAD of every channel
 * (vad-lanes.ts), then per-mic detection with several channels (in memory, or read from their
 * scratch files) or single-mix clustering with one, where the host's segmentation and
 * speaker-embedding models (when supplied) give overlap and speaker similarity and the cameras'
 * faces may ask for more speakers. The algorithms are pure (src/analysis/diarize/); this module
 * only decides which runs on what.
 *
 * @module
 */
import { diarizeMix, type MixOptions } from '../analysis/diarize/mix.ts';
import { diarizeFiltered, diarizePerMic, lowCutChannels } from '../analysis/diarize/per-mic.ts';
import type { ResidualHelper } from '../analysis/diarize/residual-levels.ts';
import type { DiarizationResult } from '../analysis/diarize/result.ts';
import type { MixMeasures } from '../analysis/speech/energy.ts';
import { faceSplitHint } from '../analysis/faces/face-evidence.ts';
import type { ScratchSamples, ScratchSpace } from '../media/scratch.ts';
import { HostModelError, HostModelSlots } from '../models/host-models.ts';
import type { OrtModule } from '../models/ort-runtime.ts';
import type { DiarizeOutcome, DiarizeRequest, HostModelSlot, HostModelUse } from './protocol.ts';
import { residualLane } from './residual-lane.ts';
import { filesOf, type HeldRequest } from './signals.ts';
import { channelProbabilities } from './vad-lanes.ts';
import { VadModel } from './vad-model.ts';

/** What detection found, and what the optional models and the faces did. */
interface Detected {
  result: DiarizationResult;
  hostModels: Record<HostModelSlot, HostModelUse>;
  faceSplit?: { from: number; to: number };
}

/**
 * Per-mic detection of channels on disk: each goes through the low cut back into its own file
 * (its levels measured as it goes), then is read a piece at a time, the files opened again
 * read-only so that the residual lane reads them too. An hour of three mics (0.7 GB) is never
 * in memory; the files go once it is done.
 */
async function perMicOnDisk(
  stored: readonly ScratchSamples[],
  scratch: ScratchSpace,
  sampleRate: number,
  probs: readonly Float32Array[],
  helper: ResidualHelper | undefined,
): Promise<DiarizationResult> {
  const levels = lowCutChannels(stored, sampleRate, probs, (i, at, block) => stored[i]!.write(at, block));
  const files: ScratchSamples[] = [];
  try {
    for (const file of stored) files.push(await scratch.readOnly(file));
    const channels = files.map((samples, i) => ({ samples, levels: levels[i]! }));
    return diarizeFiltered(channels, sampleRate, probs, helper ? { residualHelper: helper } : {});
  } finally {
    for (const file of files) await scratch.drop(file);
  }
}

/**
 * The analysis worker's speaker detection: it keeps the VAD model and the host model slots
 * loaded between jobs.
 */
export class SpeakerDetector {
  private readonly vad = new VadModel();
  private hostSlots: HostModelSlots | undefined;

  /**
   * VAD and speaker detection of channels already on the reference timeline; `mix` is what the
   * caller measured of the mix (who then lets the mix go). Per-mic detection overwrites the
   * channels (their low-cut copies, in place): on disk, where they are ({@link perMicOnDisk});
   * else in memory (`inMemory`, which reads a single channel on disk back).
   */
  async diarizeChannels(
    request: HeldRequest,
    mix: MixMeasures,
    signal: AbortSignal,
    inMemory: () => Promise<Float32Array[]>,
    scratch: ScratchSpace | null,
  ): Promise<DiarizeOutcome> {
    const t0 = performance.now();
    // Started now, so that it is up when the VAD is done.
    const lane = residualLane(request, scratch);
    let detected: Detected;
    let ran;
    try {
      const loaded = await this.vad.load(request);
      const loadMs = performance.now() - t0;
      const { probs, lanes, skipped, inputs } = await channelProbabilities(loaded, request, signal, scratch);
      signal.throwIfAborted();
      ran = { loaded, loadMs, lanes, skipped, inputs, vadMs: performance.now() - t0 };
      const helper = lane ? await lane.helper : undefined;
      const onDisk = request.channels.length > 1 && scratch ? filesOf(request.channels) : null;
      detected = onDisk
        ? {
            result: await perMicOnDisk(onDisk, scratch!, request.sampleRate, probs, helper),
            hostModels: HostModelSlots.skippedPerMic(request),
          }
        : await this.detect(loaded.runtime, { ...request, channels: await inMemory() }, probs, signal, helper);
    } catch (error) {
      if (error instanceof HostModelError) return { ok: false, modelFailure: error.failure };
      throw error;
    } finally {
      lane?.close();
    }
    const { loaded, loadMs, lanes, skipped, inputs, vadMs } = ran;
    const { result, hostModels, faceSplit } = detected;
    return {
      ok: true,
      result,
      mix,
      vadProvider: loaded.model.executionProvider,
      vadLanes: lanes,
      vadSkipped: skipped,
      vadInputs: inputs,
      residualThreads: lane?.used() ? 2 : 1,
      ...(lane?.used() ? { residualShare: lane.used()! } : {}),
      vadLoadMs: loadMs,
      vadMs,
      elapsedMs: performance.now() - t0,
      hostModels,
      ...(faceSplit ? { faceSplit } : {}),
    };
  }

  /**
   * Speaker detection of the VAD'd channels in memory: per-mic with several, single-mix with
   * one, the host models running (on wasm) in `runtime`, the ort module the VAD was loaded
   * with. Throws HostModelError when a supplied model cannot be used.
   */
  private async detect(
    runtime: OrtModule,
    request: DiarizeRequest,
    probs: readonly Float32Array[],
    signal: AbortSignal,
    residualHelper: ResidualHelper | undefined,
  ): Promise<Detected> {
    if (request.channels.length > 1) {
      return {
        result: diarizePerMic(request.channels, request.sampleRate, probs, {
          overwriteChannels: true,
          ...(residualHelper ? { residualHelper } : {}),
        }),
        hostModels: HostModelSlots.skippedPerMic(request),
      };
    }
    const mix = request.channels[0]!;
    if (this.hostSlots?.runtime !== runtime) {
      void this.hostSlots?.dispose();
      this.hostSlots = new HostModelSlots(runtime);
    }
    const host = await this.hostSlots.run(request, mix, signal);
    signal.throwIfAborted();
    const options: MixOptions = {
      ...(host.overlap ? { overlap: host.overlap } : {}),
      ...(host.localSpeakers ? { localSpeakers: host.localSpeakers } : {}),
      ...(host.embeddings ? { embeddings: host.embeddings } : {}),
    };
    const result = diarizeMix(mix, request.sampleRate, probs[0]!, options);
    // Faces that say two people talk where the audio found one: look again for more speakers.
    const hint = result.kind === 'speakers' && request.faces ? faceSplitHint(result.turns, request.faces) : null;
    if (hint && result.kind === 'speakers' && hint.minSpeakers > result.speakers.length) {
      const again = diarizeMix(mix, request.sampleRate, probs[0]!, { ...options, minSpeakers: hint.minSpeakers });
      // Taken only when it found more speakers and the faces now agree with it.
      if (
        again.kind === 'speakers' &&
        again.speakers.length > result.speakers.length &&
        faceSplitHint(again.turns, request.faces!) === null
      ) {
        return {
          result: again,
          hostModels: host.uses,
          faceSplit: { from: result.speakers.length, to: again.speakers.length },
        };
      }
    }
    return { result, hostModels: host.uses };
  }
}
