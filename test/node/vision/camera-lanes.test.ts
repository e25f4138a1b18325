/**
 * A job's camera sampling queue (src/vision/camera-lanes.ts): one camera at a time until the
 * mapping stage widens it, then two, each on a lane of its own, in order.
 */
import { describe, expect, test } from 'vitest';
import { CameraLanes } from '../../../src/vision/camera-lanes.ts';

/** A camera's work held until the test finishes it (test double for a vision worker's sampling). */
function heldCamera(name: string, log: string[]): { task: (lane: number) => Promise<void>; finish(): Promise<void> } {
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  return {
    task: (lane) => {
      log.push(`${name}@${lane}`);
      return finished;
    },
    // Lets the queue's continuation run.
    finish: async () => {
      done();
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
}

describe('camera lanes', () => {
  test('one lane: cameras run one after another, in order', async () => {
    const log: string[] = [];
    const queue = new CameraLanes();
    const cams = ['cam1', 'cam2', 'cam3'].map((name) => heldCamera(name, log));
    for (const cam of cams) queue.add(cam.task);
    expect(log).toEqual(['cam1@0']);
    expect(queue.waiting).toBe(2);
    await cams[0]!.finish();
    expect(log).toEqual(['cam1@0', 'cam2@0']);
    await cams[1]!.finish();
    await cams[2]!.finish();
    expect(log).toEqual(['cam1@0', 'cam2@0', 'cam3@0']);
    expect(queue.waiting).toBe(0);
  });

  test('widened to two lanes: the next waiting camera starts at once on the second, and each lane takes the next when free', async () => {
    const log: string[] = [];
    const queue = new CameraLanes();
    const cams = ['cam1', 'cam2', 'cam3', 'cam4'].map((name) => heldCamera(name, log));
    for (const cam of cams) queue.add(cam.task);
    queue.widen(2);
    expect(queue.lanes).toBe(2);
    expect(log).toEqual(['cam1@0', 'cam2@1']);
    await cams[1]!.finish(); // lane 1 frees first
    expect(log).toEqual(['cam1@0', 'cam2@1', 'cam3@1']);
    await cams[0]!.finish();
    expect(log).toEqual(['cam1@0', 'cam2@1', 'cam3@1', 'cam4@0']);
    // Never narrowed.
    queue.widen(1);
    expect(queue.lanes).toBe(2);
  });

  test('a camera that fails frees its lane for the next', async () => {
    const log: string[] = [];
    const queue = new CameraLanes();
    queue.add(async (lane) => {
      log.push(`bad@${lane}`);
      throw new Error('cannot decode');
    });
    const next = heldCamera('cam2', log);
    queue.add(next.task);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toEqual(['bad@0', 'cam2@0']);
    await next.finish();
  });
});
