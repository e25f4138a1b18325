/**
 * The typed protocol of the engine's analysis worker (workers/analysis.worker.ts) and its VAD
 * lanes (workers/vad-lane.worker.ts): sync alignment, voice activity, speaker detection and
 * quiet ranges run there, off the page's main thread. Results are plain data; failures the job
 * must name come back as values, not thrown errors, because comlink would strip their fields.
 * It sits in the speaker-detection room whose service (service.ts) implements it, so that the
 * engine's stages and the workers import it from here and workers import no engine code (the
 * fence in scripts/check-layers.mjs).
 *
 * @module
 */
import type { RecordedLevelsResult } from '../analysis/audio/recorded-levels.ts';
import type { FaceWitness } from '../analysis/faces/face-evidence.ts';
import type { SourceAlignment, SyncFailure, SyncSignal } from '../analysis/sync/sync.ts';
import type { TailPair } from '../analysis/sync/sync-tails.ts';
import type { SileroRate } from '../models/silero-vad.ts';
import type { ResidualLevelsJob, ResidualShareJob } from '../analysis/diarize/residual-levels.ts';
import type { DiarizationResult } from '../analysis/diarize/result.ts';
import type { MixMeasures } from '../analysis/speech/energy.ts';
import type { ScratchFileRef } from '../media/protocol.ts';
import type { HostModelFailure, HostModelSlot, HostModelUse } from '../models/host-models.ts';

export type { HostModelFailure, HostModelSlot, HostModelUse };

/** The model a VAD lane runs: Silero's bytes, and where onnxruntime's wasm is (and the page's asset cache, as in {@link DiarizeRequest}). */
export interface VadLaneModel {
  bytes: Uint8Array;
  ortWasmPath: string;
  assetCache?: string;
}

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
  /**
   * The page's asset cache (src/models/asset-cache.ts): the model and the wasm are fetched once
   * per page, whatever the number of workers. Absent: each worker fetches its own.
   */
  assetCache?: string;
  /** Host-supplied pyannote segmentation-3.0 (absolute URL): overlapped speech in single-mix mode. */
  segmentationModelUrl?: string;
  /** Host-supplied speaker-embedding model (absolute URL): speaker similarity in single-mix mode. */
  embeddingModelUrl?: string;
  /**
   * How many channels VAD runs at once on wasm, each lane a worker of its own (the analysis
   * worker is the first). Default: every channel, at most {@link VAD_LANES_MAX}; one on a
   * single-core machine and when every channel is under 2 minutes (a lane takes about a second
   * to start). The probabilities are the same whatever the count.
   */
  vadLanes?: number;
  /**
   * With several channels (close mics): run the VAD only where a mic is above its own noise
   * floor (src/analysis/speech/vad-gate.ts). Default true; false runs it on every frame.
   */
  vadGate?: boolean;
  /**
   * With the gate: skip too the frames where a mic carries only its neighbours' bleed
   * (closeMicStretches, BLEED_GATE_MARGIN_DB; those frames then take the neighbour's
   * probability, creditBleedFrames). Default true: the VAD runs on about half the frames, and
   * per-mic DER over the eval's 42 sets moved by −1.7 … +0.8 points a set, none over 5 %.
   * False runs the VAD on every frame above the floor.
   */
  vadBleedGate?: boolean;
  /**
   * The rate the VAD runs at: 8000 takes about half the time per frame. Default 8000 with
   * several channels (close mics: the levels decide who speaks, the VAD only whether someone
   * does), 16000 for a single mix.
   */
  vadRate?: SileroRate;
  /**
   * Single mix only: the cameras' steady faces (reference time). When two people's mouths move
   * in one detected speaker's turns, speaker detection runs again looking for more speakers
   * (src/analysis/faces/face-evidence.ts).
   */
  faces?: FaceWitness[];
}

/** One diarize source's decoded audio, with where it sits on the reference timeline. */
export interface DecodedSource {
  /** Mono samples in the source's own time; empty when they are in {@link file}. */
  samples: Float32Array;
  /** The samples' file in the request's scratch folder (32-bit floats), when the media worker wrote them there. */
  file?: ScratchFileRef & { length: number };
  sampleRate: number;
  offsetMs: number;
  driftPpm: number;
}

/**
 * Input of {@link AnalysisWorkerApi.diarizeSources}: decoded diarize sources, not yet on the
 * reference timeline; each is resampled onto it at `sampleRate` (16 kHz) for the channels.
 */
export interface DiarizeSourcesRequest extends Omit<DiarizeRequest, 'channels'> {
  sources: DecodedSource[];
  /**
   * The scratch folder (src/media/scratch.ts) the sources' files are in; the worker keeps its
   * channels and the WAV there too, and removes the sources' files once placed.
   */
  scratch?: string;
  /**
   * Sources in memory: keep the channels in memory too (a scratch folder is made otherwise,
   * with several channels, where the origin's storage has room). For comparisons.
   */
  keepInMemory?: boolean;
  /** Where the reference timeline ends (the last source's end), ms: every channel is this long. */
  lengthMs: number;
}

/** The most VAD lanes a diarize call starts by default (each holds an onnxruntime instance and a channel). */
export const VAD_LANES_MAX = 4;

/** What {@link AnalysisWorkerApi.diarize} returns. */
export interface DiarizeResponse {
  result: DiarizationResult;
  /** What the mix was measured for the cut planner (`measureMix`): the stage hands it on whole. */
  mix: MixMeasures;
  /** Where VAD ran and how long the stage took in the worker. */
  vadProvider: string;
  /** Loading the VAD model (0 when already loaded), ms. */
  vadLoadMs: number;
  /** Time in VAD (model load included), ms. */
  vadMs: number;
  /** How many channels VAD ran at once (1 on WebGPU and for a single channel). */
  vadLanes: number;
  /** Share of the frames the energy gate spared the VAD (0 without the gate). */
  vadSkipped: number;
  /** Where the VAD read each channel's input: files in the scratch folder (close mics on disk), or memory. */
  vadInputs: 'files' | 'memory';
  /** Threads that measured the crosstalk residuals (2: a lane took the second half; per-mic). */
  residualThreads: number;
  /** Where that lane read its half: the channels' own files (opened read-only by both), or copies it was sent. */
  residualShare?: 'files' | 'copies';
  elapsedMs: number;
  /** What each optional model slot did. */
  hostModels: Record<HostModelSlot, HostModelUse>;
  /** Single mix with faces: the speakers found before and after the faces asked for more, when they did. */
  faceSplit?: { from: number; to: number };
}

/** What {@link AnalysisWorkerApi.diarize} returns: a response, or the supplied model that failed. */
export type DiarizeOutcome = ({ ok: true } & DiarizeResponse) | { ok: false; modelFailure: HostModelFailure };

/**
 * What {@link AnalysisWorkerApi.diarizeSources} returns: a diarize outcome and, when it
 * succeeded, the mix of the channels as 16-bit WAV (the job's audio), each source's recorded
 * levels and the time spent putting the sources on the reference timeline, mixing and writing
 * it (ms).
 */
export type DiarizeSourcesOutcome =
  | ({
      ok: true;
      audio: Blob;
      prepareMs: number;
      /**
       * The worker's scratch folder in the private file system that holds `audio` (per-mic
       * jobs): removed with {@link AnalysisWorkerApi.dropScratch} once the audio is stored.
       */
      scratch?: string;
      /**
       * Each source's recorded loudness and its speakers' planned levelling (recorded-levels.ts),
       * in request order, measured on the channels before speaker detection filtered them.
       */
      levels: RecordedLevelsResult;
    } & DiarizeResponse)
  | { ok: false; modelFailure: HostModelFailure };

/** The analysis worker's API (used as comlink `Remote<AnalysisWorkerApi>`). */
export interface AnalysisWorkerApi {
  /** `alignSources` on decoded audio (`origin: 'reference'` for heads that tails will refine). */
  align(signals: SyncSignal[], referenceId?: string, origin?: 'earliest' | 'reference'): Promise<AlignResult>;
  /** `alignWithTails`: the heads' alignment refined by each source's tail (see sync-tails.ts). */
  alignTails(head: SourceAlignment[], tails: TailPair[]): Promise<AlignResult>;
  /**
   * The diarizing stage's call: each source onto the reference timeline (offset, drift), the
   * channels' mix as WAV, then VAD per channel and per-mic diarization (several channels) or
   * single-mix clustering (one, with the supplied segmentation and speaker-embedding models
   * when given).
   */
  diarizeSources(request: DiarizeSourcesRequest, requestId: string): Promise<DiarizeSourcesOutcome>;
  /** Aborts the diarizeSources call started with `requestId`. */
  abort(requestId: string): void;
  /** Removes a scratch folder a diarizeSources outcome named (its WAV is no longer read). */
  dropScratch(name: string): Promise<void>;
}

/**
 * `state[0]` of a share of the crosstalk residuals given to a lane ({@link VadLaneApi.residualLevels});
 * `state[1]` is the lane's heartbeat, one more for every block it measures.
 */
export const ResidualShare = {
  /** Sent, not yet taken: the analysis worker may withdraw it. */
  waiting: 0,
  taken: 1,
  /** Its levels are in the job's `out`. */
  done: 2,
  failed: 3,
  /** The analysis worker measures it itself (the lane did not take it, or went quiet). */
  withdrawn: 4,
} as const;

/** The channels a share of the crosstalk residuals reads on disk: one file per channel (32-bit floats, above 80 Hz), whole. */
export interface ResidualShareFiles {
  folder: string;
  names: string[];
}

/** A VAD lane's API (workers/vad-lane.worker.ts), used by the analysis worker. */
export interface VadLaneApi {
  /** Answers once the lane runs (before the analysis worker may wait on it without yielding). */
  ready(): Promise<true>;
  /**
   * Measures a share of the crosstalk residuals (residual-levels.ts) into `job.out`, both in
   * shared memory, while the analysis worker measures the rest; `state` (shared) says how it
   * goes ({@link ResidualShare}). Takes it only while it is still waiting.
   */
  residualLevels(job: ResidualLevelsJob, state: Int32Array): Promise<void>;
  /**
   * {@link residualLevels} of a share whose channels are the analysis worker's files in its
   * scratch folder (the private file system), which both open read-only: read a piece at a
   * time (residualLevelsRead), so the lane holds no copy of the share.
   */
  residualLevelsFromFiles(
    job: Omit<ResidualShareJob, 'channels'>,
    files: ResidualShareFiles,
    state: Int32Array,
  ): Promise<void>;
  /**
   * {@link probabilities} of a signal the analysis worker wrote to a file in its scratch folder
   * (a close mic's VAD input), read a window at a time: the probabilities, transferred.
   */
  probabilitiesFromFile(model: VadLaneModel, file: ScratchFileRef, rate?: SileroRate): Promise<Float32Array>;
  /**
   * Silero's speech probabilities of `channel` (at `rate`, default 16 kHz) on wasm, the model loaded on the first
   * call. The channel is transferred in and back, with the probabilities.
   */
  probabilities(
    model: VadLaneModel,
    channel: Float32Array,
    rate?: SileroRate,
  ): Promise<{ channel: Float32Array; probs: Float32Array }>;
}
