/**
 * What the one contract suite needs from a runtime. Two implementations:
 * - Node (`node-harness.ts`): the pure handler over fake-indexeddb, called with `new Request`.
 * - Chromium (`browser-harness.ts`): every request is a real `fetch` from a page, answered by
 *   the real service worker; `servedByServiceWorker` proves it.
 *
 * @module
 */
import type { PipelineStage, Turn, CameraMap, OutputFormat, RecordedLevels } from '../../src/contract/types.ts';

/** Engine work: the background stages, plus `mapping` (the camera map computed while the job waits in mapping). */
export type EngineStage = PipelineStage | 'mapping';

/** A response carried back from wherever it was produced, readable in Node. */
export interface HarnessResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON body, or null when the body is not JSON. */
  json: unknown;
  text: string;
  /** True when the response came from the service worker (browser) or the handler (Node). */
  servedByServiceWorker: boolean;
}

/**
 * A body of `length` bytes, each `byte`, made where the request is sent (inside the page in a
 * browser), so a 100 MB part need not cross the driver's protocol as base64 first.
 */
export interface FilledBody {
  fill: number;
  length: number;
}

export interface HarnessRequestInit {
  method?: string;
  headers?: Record<string, string>;
  /** A JSON value (sent with content-type application/json), a string sent as is, or bytes. */
  json?: unknown;
  body?: string | Uint8Array | FilledBody;
}

/** What a test engine stage completes with. */
export interface StageOutput {
  durationsMs?: Record<string, number>;
  turns?: Turn[];
  speakers?: string[];
  /** Diarizing: how loud each source was recorded (the Job's `audio.levels`). */
  levels?: RecordedLevels;
  cameraMap?: CameraMap | null;
  outputBytes?: Uint8Array;
  /** What the render made (the Job's `output_format`), where a test needs one. */
  format?: OutputFormat;
}

export interface ContractHarness {
  /** The base URL clients use, e.g. `http://127.0.0.1:5173/api` or `https://api.example.com/api`. */
  readonly baseUrl: string;
  /**
   * The origin links in responses and events are built on: the page's in the browser (the
   * service worker's own), the base URL's in Node unless a page origin is given.
   */
  readonly linkOrigin: string;
  /** Whether the clock can be moved (expiry cases run only where it can). */
  readonly canAdvanceClock: boolean;
  /** A request to an absolute URL, or a path relative to the base URL's origin. */
  request(url: string, init?: HarnessRequestInit): Promise<HarnessResponse>;
  /** Library API: a new account with one API key. */
  createAccount(options?: { quotaMinutes?: number | null }): Promise<{ accountId: string; apiKey: string }>;
  createApiKey(accountId: string): Promise<string>;
  revokeApiKey(apiKey: string): Promise<void>;
  /** Test engine: stages waiting to run, completed and failed on command. */
  pendingStages(): Promise<Array<{ jobId: string; stage: EngineStage }>>;
  completeStage(jobId: string, stage: EngineStage, output?: StageOutput): Promise<void>;
  failStage(jobId: string, stage: EngineStage, options: { message: string; permanent?: boolean }): Promise<void>;
  /** Events recorded for a job, in order (the webhook outbox). */
  events(jobId: string): Promise<Array<{ id: string; type: string; payload: Record<string, unknown> }>>;
  advanceClock(ms: number): Promise<void>;
  dispose(): Promise<void>;
}
