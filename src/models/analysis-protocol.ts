/**
 * The analysis worker's protocol (workers/analysis.worker.ts), used through comlink
 * `Remote<AnalysisWorkerApi>`: VAD, then per-mic or single-mix diarization, off the main
 * thread. Samples are 16 kHz mono Float32 and should be passed with `transfer`.
 *
 * @module
 */
import type { MixOptions } from '../analysis/diarize/mix.ts';
import type { PerMicOptions } from '../analysis/diarize/per-mic.ts';
import type { DiarizationResult } from '../analysis/diarize/result.ts';
import type { ExecutionProviderName } from './ort-runtime.ts';

/** What {@link AnalysisWorkerApi.init} needs: model bytes and where the ort wasm files are. */
export interface AnalysisInit {
  /** models/silero_vad_v6.onnx */
  vadModel: Uint8Array;
  /** Optional slot: pyannote segmentation-3.0 supplied by the host app. */
  segmentationModel?: Uint8Array;
  /** Usually '/wasm/ort/' (pinned by scripts/copy-assets.mjs). */
  wasmPaths: string;
  /** wasm threads (needs cross-origin isolation above 1). */
  threads: number;
  /** Use WebGPU when the worker sees a hardware adapter. Default true. */
  preferWebGpu?: boolean;
}

/** The worker's API. Long calls take a `requestId` so `abort(requestId)` can stop them. */
export interface AnalysisWorkerApi {
  init(init: AnalysisInit): Promise<{ executionProvider: ExecutionProviderName; segmentation: boolean }>;
  /** Silero speech probability per 32 ms frame. */
  speechProbabilities(samples: Float32Array, requestId?: string): Promise<Float32Array>;
  /** VAD (and the segmentation model's overlap, when loaded) then {@link diarizeMix}. */
  diarizeMix(samples: Float32Array, options?: MixOptions, requestId?: string): Promise<DiarizationResult>;
  /** VAD on every channel then {@link diarizePerMic}. Channels must be aligned and equally long. */
  diarizePerMic(channels: Float32Array[], options?: PerMicOptions, requestId?: string): Promise<DiarizationResult>;
  abort(requestId: string): void;
  dispose(): Promise<void>;
}
