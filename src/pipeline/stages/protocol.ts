/**
 * The typed protocol of the engine's analysis worker (src/pipeline/stages/analysis.worker.ts):
 * sync alignment, voice activity, speaker detection and quiet ranges run there, off the page's
 * main thread. Results are plain data; failures the job must name come back as values, not
 * thrown errors, because comlink would strip their fields.
 *
 * @module
 */
import type { SourceAlignment, SyncFailure, SyncSignal } from '../../analysis/sync.ts';
import type { DiarizationResult } from '../../analysis/diarize/result.ts';
import type { TimeRange } from '../../contract/types.ts';

/** What {@link AnalysisWorkerApi.align} returns. */
export type AlignResult = { ok: true; alignments: SourceAlignment[] } | { ok: false; failures: SyncFailure[] };

/** Input of {@link AnalysisWorkerApi.diarize}: diarize channels already on the reference timeline, 16 kHz. */
export interface DiarizeRequest {
  /** One mono signal per diarize source, sample 0 at reference time 0. */
  channels: Float32Array[];
  sampleRate: number;
  /** Where the VAD model and onnxruntime's wasm are served (absolute URLs). */
  modelUrl: string;
  ortWasmPath: string;
}

/** What {@link AnalysisWorkerApi.diarize} returns. */
export interface DiarizeResponse {
  result: DiarizationResult;
  /** Quiet stretches of the mix (reference ms), for silence removal. */
  quietRanges: TimeRange[];
  /** Where VAD ran and how long the stage took in the worker. */
  vadProvider: string;
  /** Loading the VAD model (0 when already loaded), ms. */
  vadLoadMs: number;
  /** Time in VAD (model load included), ms. */
  vadMs: number;
  elapsedMs: number;
}

/** The analysis worker's API (used as comlink `Remote<AnalysisWorkerApi>`). */
export interface AnalysisWorkerApi {
  /** `alignSources` on decoded audio. */
  align(signals: SyncSignal[], referenceId?: string): Promise<AlignResult>;
  /** VAD per channel, then per-mic diarization (several channels) or single-mix clustering (one). */
  diarize(request: DiarizeRequest, requestId: string): Promise<DiarizeResponse>;
  /** Aborts the diarize call started with `requestId`. */
  abort(requestId: string): void;
}
