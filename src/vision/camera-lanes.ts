/**
 * A job's camera sampling queue: cameras wait for a lane (a vision worker) and run one at a
 * time on each; the job may use one lane, or two once the mapping stage waits on them.
 *
 * @module
 */

/** Work on one camera, started on the lane it was given. */
export type CameraTask = (lane: number) => Promise<void>;

/**
 * Cameras queued in order, each started on the first free lane of the lanes allowed.
 *
 * @example
 * const queue = new CameraLanes();
 * queue.add((lane) => sampleOn(lane, cam1));
 * queue.add((lane) => sampleOn(lane, cam2)); // waits for cam1: one lane
 * queue.widen(2); // cam2 starts on lane 1 now
 */
export class CameraLanes {
  private readonly pending: CameraTask[] = [];
  private readonly busy: boolean[] = [];
  private allowed = 1;

  /** How many lanes the queue may use. */
  get lanes(): number {
    return this.allowed;
  }

  /** Cameras not yet started. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Queues `task`; it starts at once when a lane is free. */
  add(task: CameraTask): void {
    this.pending.push(task);
    this.pump();
  }

  /** Lets the queue use `lanes` lanes (never fewer than now), starting waiting cameras on them. */
  widen(lanes: number): void {
    this.allowed = Math.max(this.allowed, lanes);
    this.pump();
  }

  private pump(): void {
    for (let lane = 0; lane < this.allowed; lane++) {
      if (this.busy[lane] || this.pending.length === 0) continue;
      this.busy[lane] = true;
      const task = this.pending.shift()!;
      void task(lane)
        .catch(() => undefined)
        .finally(() => {
          this.busy[lane] = false;
          this.pump();
        });
    }
  }
}
