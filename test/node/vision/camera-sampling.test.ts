/**
 * Each job's camera sampling (src/vision/camera-sampling.ts), on vision workers faked in this
 * test: a camera is sampled once per job and source, a failed one is sampled again on the next
 * call, a hurried job's waiting cameras start on a second worker, and dropping a job cancels its
 * calls and ends that second worker once no job uses it.
 */
import type { Remote } from 'comlink';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { StageAssets } from '../../../src/pipeline/stages/context.ts';
import { CameraSampling, type VisionLanes } from '../../../src/vision/camera-sampling.ts';
import type { CameraMotion, VisionWorkerApi } from '../../../src/vision/protocol.ts';

/** Vision workers faked for the test: each call waits until the test settles it. */
function fakeVisionLanes() {
  const log: string[] = [];
  const calls: Array<{ lane: number; settle(error?: Error): Promise<void> }> = [];
  /** The face models each call was sent. */
  const sent: unknown[] = [];
  const lanes: Array<Remote<VisionWorkerApi> | undefined> = [];
  const worker = (lane: number): Remote<VisionWorkerApi> =>
    ({
      cameraMotion: (_blob: Blob, options: { jobKey?: string; faces?: unknown }) => {
        log.push(`sample@${lane} ${options.jobKey} faces:${options.faces !== undefined}`);
        sent.push(options.faces);
        return new Promise<CameraMotion>((resolve, reject) => {
          calls.push({
            lane,
            settle: async (error) => {
              if (error) reject(error);
              else resolve({ lane } as unknown as CameraMotion);
              await new Promise((r) => setTimeout(r, 0));
            },
          });
        });
      },
      cancel: async (jobKey: string) => void log.push(`cancel@${lane} ${jobKey}`),
    }) as unknown as Remote<VisionWorkerApi>;
  const vision: VisionLanes = {
    remote: (lane) => (lanes[lane] ??= worker(lane)),
    started: () => lanes.filter((remote) => remote !== undefined),
    close: (lane) => {
      if (lanes[lane]) log.push(`close@${lane}`);
      lanes[lane] = undefined;
    },
  };
  return { vision, log, calls, sent };
}

const blob = async (): Promise<Blob> => new Blob([]);
const settled = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('camera sampling', () => {
  beforeEach(() => vi.stubGlobal('navigator', { hardwareConcurrency: 2 }));
  afterEach(() => vi.unstubAllGlobals());

  test('a camera is sampled once per job and source, with the face models; a failed one again', async () => {
    const { vision, log, calls, sent } = fakeVisionLanes();
    // The engine's stage assets, which hold more than the vision worker's: only its own reach it.
    const assets: StageAssets = {
      vadModelUrl: 'https://host/vad.onnx',
      ortWasmPath: 'https://host/ort/',
      faceModelUrl: 'https://host/face.onnx',
      activeSpeakerModelUrl: 'https://host/asd.onnx',
      ffmpegWasmBase: 'https://host/wasm/',
    };
    const cameras = new CameraSampling(vision, assets);
    const first = cameras.sample('job1', 'cam1', blob);
    expect(cameras.sample('job1', 'cam1', blob)).toBe(first);
    await settled();
    expect(log).toEqual(['sample@0 motion_job1 faces:true']);
    expect(sent).toEqual([
      {
        faceModelUrl: 'https://host/face.onnx',
        ortWasmPath: 'https://host/ort/',
        activeSpeakerModelUrl: 'https://host/asd.onnx',
      },
    ]);
    await calls[0]!.settle(new Error('no frames'));
    await expect(first).rejects.toThrow('no frames');
    const again = cameras.sample('job1', 'cam1', blob);
    expect(again).not.toBe(first);
    await settled();
    await calls[1]!.settle();
    await expect(again).resolves.toEqual({ lane: 0 });
    expect(log).toHaveLength(2);
  });

  test('one worker until the job is hurried, then two; dropping it cancels and ends the second', async () => {
    const { vision, log, calls } = fakeVisionLanes();
    const cameras = new CameraSampling(vision, { faceModelUrl: null, ortWasmPath: 'https://host/ort/' });
    for (const cam of ['cam1', 'cam2', 'cam3']) void cameras.sample('job1', cam, blob).catch(() => undefined);
    await settled();
    expect(log).toEqual(['sample@0 motion_job1 faces:false']);
    expect(cameras.hurry('job1')).toBe(2);
    await settled();
    expect(calls.map((call) => call.lane)).toEqual([0, 1]);
    cameras.drop('job1');
    expect(log.slice(2)).toEqual(['cancel@0 motion_job1', 'cancel@1 motion_job1', 'close@1']);
    expect(cameras.hurry('job1')).toBe(1);
  });
});
