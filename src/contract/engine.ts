/**
 * The boundary between the routes and the background pipeline. Routes change job state only
 * by enqueueing work here; the engine reports back through the {@link StageReporter}.
 *
 * @module
 */
import type { PipelineStage } from '../contract/types.ts';

/**
 * Engine work: the background stages, plus `mapping` (the camera map being computed while the
 * job waits in `mapping`).
 */
export type EngineStage = PipelineStage | 'mapping';

/** One unit of engine work. */
export interface EngineWork {
  jobId: string;
  stage: EngineStage;
}

/**
 * What runs the pipeline. The service worker's engine is a queue (work store + BroadcastChannel);
 * tests use `test/support/test-engine.ts`.
 */
export interface Engine {
  /** A route or the reporter moved the job into a background stage; do the work later. Throwing means the stage could not start (the job is marked failed, 502). */
  enqueue(work: EngineWork): Promise<void>;
  /** deleteJob: stop any running stage of the job and drop its output. */
  cancel(jobId: string): Promise<void>;
}
