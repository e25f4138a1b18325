/**
 * Each job's camera sampling, queued on the vision workers: a camera's motion features and faces
 * are computed once per job and source (the syncing stage starts them, the mapping stage awaits
 * them), one camera at a time on the first vision worker, two at a time once the mapping stage
 * hurries them ({@link CameraLanes}); a failed one is forgotten, so the next call samples it
 * again. The engine runner (src/pipeline/runner.ts) owns the workers; this class owns the order.
 *
 * @module
 */
import type { Remote } from 'comlink';
import { CameraLanes } from './camera-lanes.ts';
import { visionAssetsOf, type CameraMotion, type VisionAssets, type VisionWorkerApi } from './protocol.ts';

/** The vision workers cameras run on: lane 0 for everything, lane 1 while a job is hurried. */
export interface VisionLanes {
  /** The vision worker of `lane`, started on first use. */
  remote(lane: number): Remote<VisionWorkerApi>;
  /** The vision workers running now (a job's calls are cancelled on each). */
  started(): Remote<VisionWorkerApi>[];
  /** Ends the worker of `lane`, if it runs. */
  close(lane: number): void;
}

/** A job's camera sampling: its queue, and each source's result. */
interface JobCameras {
  lanes: CameraLanes;
  bySource: Map<string, Promise<CameraMotion>>;
}

/**
 * The camera sampling queue of every job the engine works on.
 *
 * @example
 * const cameras = new CameraSampling(visionLanes, { faceModelUrl, ortWasmPath });
 * void cameras.sample(jobId, 'cam1', () => blobOf('cam1')); // during syncing
 * cameras.hurry(jobId); // the mapping stage waits: a second lane
 * const motion = await cameras.sample(jobId, 'cam1', () => blobOf('cam1')); // the same promise
 */
export class CameraSampling {
  private readonly jobs = new Map<string, JobCameras>();

  /** The vision assets every camera is sampled with; none where the face model is off (motion only). */
  private readonly faces: VisionAssets | undefined;

  /**
   * @param vision the vision workers
   * @param assets where the face (and host) models are (say the engine's `StageAssets`, which
   *   holds more): only the vision assets reach the workers, whole
   */
  constructor(
    private readonly vision: VisionLanes,
    assets: VisionAssets,
  ) {
    this.faces = assets.faceModelUrl ? visionAssetsOf(assets) : undefined;
  }

  /** A camera's motion features, sampled once per job and source (a failed one is sampled again on the next call). */
  sample(jobId: string, sourceId: string, blob: () => Promise<Blob>): Promise<CameraMotion> {
    let job = this.jobs.get(jobId);
    if (!job) this.jobs.set(jobId, (job = { lanes: new CameraLanes(), bySource: new Map() }));
    const known = job.bySource.get(sourceId);
    if (known) return known;
    const queue = job;
    const options = { jobKey: `motion_${jobId}`, ...(this.faces ? { faces: this.faces } : {}) };
    const started = new Promise<CameraMotion>((resolve, reject) => {
      queue.lanes.add(async (lane) => {
        try {
          resolve(await this.vision.remote(lane).cameraMotion(await blob(), options));
        } catch (error) {
          reject(error);
        }
      });
    });
    queue.bySource.set(sourceId, started);
    started.catch(() => {
      if (queue.bySource.get(sourceId) === started) queue.bySource.delete(sourceId);
    });
    return started;
  }

  /**
   * Lets a job's cameras not yet started run on a second vision worker (on two cores or more).
   * Says how many vision workers the job's cameras now use.
   */
  hurry(jobId: string): number {
    const lanes = this.jobs.get(jobId)?.lanes;
    if (lanes && lanes.waiting > 0 && (navigator.hardwareConcurrency || 1) >= 2) lanes.widen(2);
    return lanes?.lanes ?? 1;
  }

  /** Stops and forgets a job's camera sampling; the second vision worker goes once no job uses it. */
  drop(jobId: string): void {
    if (!this.jobs.delete(jobId)) return;
    for (const remote of this.vision.started()) void remote.cancel(`motion_${jobId}`);
    if (![...this.jobs.values()].some((job) => job.lanes.lanes > 1)) this.vision.close(1);
  }

  /** Forgets every job (the workers are gone). */
  clear(): void {
    this.jobs.clear();
  }
}
