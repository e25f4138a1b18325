/**
 * The mapping stage with the active-speaker slot filled: its metrics say which path judged each
 * camera's faces (`speakingBy`) and why a camera fell back to mouth motion (`asdFallback`), and a
 * model that could not be loaded is a warning on the job, never a silent fallback.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { CameraFaces } from '../../../src/analysis/faces/face-tracks.ts';
import { runMapping } from '../../../src/pipeline/stages/mapping.ts';
import type { StageAssets, StageRun, StageWorkers } from '../../../src/pipeline/stages/context.ts';
import type { JobRecord } from '../../../src/store/db.ts';
import { getJobRecord } from '../../../src/store/jobs.ts';
import type { CameraMotion } from '../../../src/vision/protocol.ts';
import { createNodeHarness, type NodeHarness } from '../../contract/node-harness.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A job with three cameras, their files stored. */
async function newJob(): Promise<{ h: NodeHarness; job: JobRecord }> {
  const h = await createNodeHarness();
  cleanups.push(() => h.dispose());
  const { apiKey } = await h.createAccount();
  const created = await h.service.handle(
    new Request('http://localhost/api/jobs', {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sources: ['Cam A', 'Cam B', 'Cam C'].map((label) => ({ label, fileSize: 1000 })),
      }),
    }),
  );
  expect(created.status).toBe(200);
  const job = (await getJobRecord(h.db, ((await created.json()) as { jobId: string }).jobId))!;
  for (const s of job.sources) s.fileId = `file_${s.id}`;
  return { h, job };
}

const faces = (activity: CameraFaces['activity']): CameraFaces => ({
  tracks: [
    {
      cx: 0.5,
      cy: 0.4,
      w: 0.2,
      h: 0.2,
      presence: 1,
      t: new Float64Array([0, 40]),
      activity: new Float32Array([1, 2]),
    },
  ],
  runs: 1,
  unsteadyRuns: 0,
  activity,
});

const motion = (extra: Partial<CameraMotion>): CameraMotion => ({
  samples: {
    t: new Float64Array([0, 100]),
    whole: new Float32Array(2),
    left: new Float32Array(2),
    middle: new Float32Array(2),
    right: new Float32Array(2),
    sceneCut: new Uint8Array(2),
  },
  frames: 2,
  runs: 1,
  durationS: 0.2,
  elapsedMs: 1,
  lumaPath: 'y-plane',
  faces: null,
  faceDetections: 1,
  faceDetectMs: 1,
  ...extra,
});

async function map(job: JobRecord, h: NodeHarness, motions: CameraMotion[], assets: Partial<StageAssets> = {}) {
  const workers: StageWorkers = {
    media: () => {
      throw new Error('not used');
    },
    analysis: () => {
      throw new Error('not used');
    },
    render: () => {
      throw new Error('not used');
    },
    vision: () => ({ cameraMap: () => Promise.resolve(null) }) as unknown as ReturnType<StageWorkers['vision']>,
    cameraMotion: (_job, sourceId) => Promise.resolve(motions[job.sources.findIndex((s) => s.id === sourceId)]!),
    hurryCameraMotion: () => 1,
    dropCameraMotion: () => undefined,
  };
  const run: StageRun = {
    db: h.db,
    job,
    workers,
    assets: { vadModelUrl: '', ortWasmPath: '', faceModelUrl: 'x', ...assets },
    signal: new AbortController().signal,
    onProgress: () => undefined,
  };
  return runMapping(run);
}

describe('mapping with an active-speaker model', () => {
  test('the metrics say which path judged each camera, and why one fell back', async () => {
    const { h, job } = await newJob();
    const result = await map(
      job,
      h,
      [
        motion({ faces: faces('asd'), asdRuns: 20, asdMs: 1234.4 }),
        motion({ faces: faces('mouth'), asdRuns: 0, asdMs: 0, asdFallback: 'the camera has no audio track' }),
        motion({ faces: null }),
      ],
      { activeSpeakerModelUrl: 'http://localhost/host-models/lr-asd.onnx' },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings).toBeUndefined();
    expect(result.metrics).toMatchObject({
      faceCameras: 2,
      speakingBy: 'asd,mouth,-',
      asdMs: 1234,
      asdFallback: '"Cam B": the camera has no audio track',
    });
  });

  test('a model that cannot be loaded is a warning on the job, and the metrics say mouth motion judged', async () => {
    const { h, job } = await newJob();
    const failed = {
      asdError: 'the active-speaker model http://localhost/x.onnx is not served (HTTP 404)',
      asdFallback: 'the active-speaker model could not be loaded (HTTP 404)',
    };
    const result = await map(
      job,
      h,
      [motion({ faces: faces('mouth'), ...failed }), motion({ faces: faces('mouth'), ...failed }), motion({})],
      { activeSpeakerModelUrl: 'http://localhost/x.onnx' },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: 'active_speaker_model_unavailable', stage: 'mapping' }),
    ]);
    expect(result.warnings?.[0]?.message).toMatch(/active-speaker model could not be loaded \(.*HTTP 404\)/);
    expect(result.metrics).toMatchObject({ speakingBy: 'mouth,mouth,-' });
    expect(String(result.metrics?.['asdFallback'])).toMatch(/^"Cam A": .*; "Cam B": /);
  });

  test('without the slot the metrics only say mouth motion judged', async () => {
    const { h, job } = await newJob();
    const result = await map(job, h, [motion({ faces: faces('mouth') }), motion({}), motion({})]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.metrics).toMatchObject({ speakingBy: 'mouth,-,-' });
    expect(result.metrics).not.toHaveProperty('asdMs');
    expect(result.metrics).not.toHaveProperty('asdFallback');
  });
});
