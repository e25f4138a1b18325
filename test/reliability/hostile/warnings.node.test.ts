/**
 * Silent fallbacks reach the job (issue #48): a face model that fails to load, a camera whose
 * pictures cannot be read, a decoder fallback, a storage estimate that fails and a webhook that
 * cannot be signed each leave a warning on the Job and the JobSummary (once per code and source),
 * and an unsigned webhook is never sent. A source too short to sync, or in a codec the browser
 * cannot decode, fails at once, named by its label, without offering a retry.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createNodeHarness, type NodeHarness } from '../../contract/node-harness.ts';
import { caller } from '../world.ts';
import { startWebhookReceiver } from '../../support/webhook-receiver.ts';
import { completeEvent } from '../../node/webhooks/outbox-fixture.ts';
import { WebhookDispatcher } from '../../../src/webhooks/dispatcher.ts';
import { readEvent } from '../../../src/webhooks/outbox.ts';
import { runMapping } from '../../../src/pipeline/stages/mapping.ts';
import { MIN_SYNC_SOURCE_MS, runSyncing } from '../../../src/pipeline/stages/syncing.ts';
import type { StageRun, StageWorkers } from '../../../src/pipeline/stages/context.ts';
import type { JobRecord } from '../../../src/store/db.ts';
import { getJobRecord } from '../../../src/store/jobs.ts';
import type { CameraMotion } from '../../../src/vision/protocol.ts';

type Json = Record<string, any>; // response bodies read loosely, as a client would

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(options: Parameters<typeof createNodeHarness>[0] = {}): Promise<NodeHarness> {
  const h = await createNodeHarness(options);
  cleanups.push(() => h.dispose());
  return h;
}

/** A job with two video sources, created through the API. */
async function newJob(h: NodeHarness, body: Json = {}) {
  const { apiKey } = await h.createAccount();
  const call = caller(h, apiKey);
  const created = await call('POST', '/jobs', {
    sources: [
      { label: 'Cam A', fileSize: 1000 },
      { label: 'Cam B', fileSize: 1000 },
    ],
    ...body,
  });
  expect(created.status, created.text).toBe(200);
  const jobId = (created.json as Json)['jobId'] as string;
  const job = (await getJobRecord(h.db, jobId))!;
  return { call, jobId, job };
}

async function jobAndSummary(call: ReturnType<typeof caller>, jobId: string): Promise<[Json, Json]> {
  const job = ((await call('GET', `/jobs/${jobId}`)).json as Json)['job'] as Json;
  const summary = (await call('GET', `/jobs/${jobId}?view=summary`)).json as Json;
  return [job, summary];
}

/** A TEST DOUBLE of the stage workers: only what the stage under test calls. */
function workersDouble(parts: Partial<StageWorkers>): StageWorkers {
  const missing = (name: string) => () => {
    throw new Error(`workers double: ${name} not given`);
  };
  return {
    media: missing('media'),
    analysis: missing('analysis'),
    vision: missing('vision'),
    render: missing('render'),
    cameraMotion: missing('cameraMotion'),
    hurryCameraMotion: () => 1,
    dropCameraMotion: () => undefined,
    ...parts,
  };
}

function stageRun(h: NodeHarness, job: JobRecord, workers: StageWorkers): StageRun {
  return {
    db: h.db,
    job,
    workers,
    assets: { vadModelUrl: '', ortWasmPath: '', faceModelUrl: 'x' },
    signal: new AbortController().signal,
    onProgress: () => undefined,
  };
}

describe('job warnings', () => {
  test('warnings appear on the Job and the JobSummary, once per code and source; old records read as none', async () => {
    const h = await harness();
    const { call, jobId, job } = await newJob(h);
    const [before] = await jobAndSummary(call, jobId);
    expect(before['warnings']).toEqual([]);
    const source = job.sources[0]!.id;
    const fallback = { code: 'decoder_fallback', message: 'read by ffmpeg.wasm', sourceId: source, stage: 'syncing' };
    await h.service.reporter.addWarnings(jobId, [fallback]);
    // The automatic retry of the stage reports it again; another source is another warning.
    await h.service.reporter.addWarnings(jobId, [
      { ...fallback, message: 'again' },
      { ...fallback, sourceId: job.sources[1]!.id },
    ]);
    const [full, summary] = await jobAndSummary(call, jobId);
    expect(full['warnings']).toHaveLength(2);
    expect(full['warnings'][0]).toMatchObject({ ...fallback, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(summary['warnings']).toEqual(full['warnings']);

    // A record stored before warnings existed has no field at all.
    const stored = (await getJobRecord(h.db, jobId))!;
    delete stored.warnings;
    await h.db.put('jobs', stored);
    expect((await jobAndSummary(call, jobId))[1]['warnings']).toEqual([]);
  });

  test('a storage estimate that fails creates the job with a warning instead of skipping the check silently', async () => {
    const h = await harness({
      // TEST DOUBLE of navigator.storage.estimate() refusing.
      storageEstimate: () => Promise.reject(new Error('estimate refused')),
    });
    const { call, jobId } = await newJob(h);
    const [job, summary] = await jobAndSummary(call, jobId);
    expect(job['warnings']).toEqual([expect.objectContaining({ code: 'storage_estimate_unavailable' })]);
    expect(job['warnings'][0].message).toMatch(/\(estimate refused\), so it was not checked that the files fit/);
    expect(summary['warnings']).toHaveLength(1);
  });

  test('a webhook that cannot be signed is not sent, fails in the outbox with the reason, and warns on the job', async () => {
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    const h = await harness();
    const { call, jobId, job } = await newJob(h, { callbackUrl: receiver.url });
    const event = completeEvent(receiver.url, { jobId, accountId: job.accountId });
    await h.db.put('events', event);
    const dispatcher = new WebhookDispatcher({
      db: h.db,
      signingSecrets: () => Promise.reject(new Error('secrets store unreadable')),
      schedule: { attempts: 1, attemptTimeoutMs: 1_000, backoffMs: [] },
      locks: null,
      listen: false,
    });
    cleanups.push(() => dispatcher.stop());
    await dispatcher.deliverDue();
    expect(receiver.posts()).toHaveLength(0);
    const stored = await readEvent(h.db, event.id);
    expect(stored?.delivery.state).toBe('failed');
    expect(stored?.delivery.log[0]?.error).toMatch(/not sent: it could not be signed.*secrets store unreadable/);
    const [full, summary] = await jobAndSummary(call, jobId);
    expect(full['warnings']).toEqual([expect.objectContaining({ code: 'webhook_not_signed' })]);
    expect(full['warnings'][0].message).toMatch(/"complete" webhook .* was not sent/);
    expect(summary['warnings']).toHaveLength(1);
  });
});

describe('stages report what they fell back on', () => {
  const motion = (facesError?: string): CameraMotion => ({
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
    lumaPath: 'none',
    faces: null,
    faceDetections: 0,
    faceDetectMs: 0,
    ...(facesError ? { facesError } : {}),
  });

  test('mapping: a face model that failed to load and a camera that could not be read become warnings', async () => {
    const h = await harness();
    const { job } = await newJob(h);
    for (const s of job.sources) s.fileId = `file_${s.id}`;
    const [a, b] = job.sources;
    const result = await runMapping(
      stageRun(
        h,
        job,
        workersDouble({
          cameraMotion: (_job, sourceId) =>
            sourceId === a!.id
              ? Promise.resolve(motion('HTTP 404 for the face model'))
              : Promise.reject(new Error('no frame decoded')),
          vision: () => ({ cameraMap: () => Promise.resolve(null) }) as unknown as ReturnType<StageWorkers['vision']>,
        }),
      ),
    );
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: 'camera_not_sampled', sourceId: b!.id, stage: 'mapping' }),
      expect.objectContaining({ code: 'face_model_unavailable', stage: 'mapping' }),
    ]);
    expect(result.warnings?.[0]?.message).toContain('"Cam B"');
    expect(result.warnings?.[1]?.message).toMatch(/face model could not be loaded \(HTTP 404/);
  });

  test('syncing: a source whose upload was judged not media fails at once, permanently, without a decoder', async () => {
    const h = await harness();
    const { job } = await newJob(h);
    for (const s of job.sources) s.fileId = `file_${s.id}`;
    const message = `the file of source Cam B (${job.sources[1]!.id}) is not a video or audio file (it starts with hello …)`;
    job.sources[1]!.mediaProblem = { code: 'FILE_NOT_MEDIA', message };
    let probed = 0;
    const result = await runSyncing(
      stageRun(
        h,
        job,
        workersDouble({
          cameraMotion: () => new Promise(() => undefined),
          media: () =>
            ({
              probe: () => {
                probed++;
                return Promise.reject(new Error('moov atom not found'));
              },
            }) as unknown as ReturnType<StageWorkers['media']>,
        }),
      ),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure).toEqual({ message, permanent: true });
    expect(probed).toBe(0);
  });

  test('syncing: a source read by the ffmpeg.wasm fallback warns once; a source too short fails permanently by its label', async () => {
    const h = await harness();
    const { job } = await newJob(h);
    for (const s of job.sources) s.fileId = `file_${s.id}`;
    await h.db.put('files', { id: `file_${job.sources[0]!.id}`, size: 0, type: '', segments: [], createdAt: 0 });
    await h.db.put('files', { id: `file_${job.sources[1]!.id}`, size: 0, type: '', segments: [], createdAt: 0 });
    const [a, b] = job.sources;
    const probe = (durationMs: number, fallbackReason?: string) => ({
      engine: 'ffmpeg.wasm',
      container: 'x',
      mimeType: null,
      durationMs,
      video: null,
      audio: { codec: 'aac', sampleRate: 8000, channels: 1 },
      streams: [],
      ...(fallbackReason ? { fallbackReason } : {}),
    });
    const media = (bDurationMs: number) =>
      workersDouble({
        cameraMotion: () => new Promise(() => undefined),
        media: () =>
          ({
            probe: (_blob: Blob, o: { label: string }) =>
              Promise.resolve(
                o.label === 'Cam A' ? probe(60_000, 'unsupported codec hev1') : probe(bDurationMs, undefined),
              ),
            decodeAudio: (_blob: Blob, o: { label: string }) =>
              Promise.resolve({
                engine: 'ffmpeg.wasm',
                samples: new Float32Array(8),
                sampleRate: 8000,
                ...(o.label === 'Cam A' ? { fallbackReason: 'unsupported codec hev1' } : {}),
              }),
          }) as unknown as ReturnType<StageWorkers['media']>,
        analysis: () =>
          ({
            align: () =>
              Promise.resolve({
                ok: false,
                failures: [{ message: `source ${b!.id} shares no recognisable audio with reference ${a!.id}` }],
              }),
          }) as unknown as ReturnType<StageWorkers['analysis']>,
      });

    const failedAlign = await runSyncing(stageRun(h, job, media(60_000)));
    expect(failedAlign.warnings).toEqual([
      expect.objectContaining({ code: 'decoder_fallback', sourceId: a!.id, stage: 'syncing' }),
    ]);
    expect(failedAlign.warnings?.[0]?.message).toMatch(/could not read source "Cam A" \(unsupported codec hev1\)/);
    // Sources are named by their labels, the reference too, never by their ids.
    expect(!failedAlign.ok && failedAlign.failure.message).toBe(
      'source "Cam B" shares no recognisable audio with reference "Cam A"',
    );

    const short = await runSyncing(stageRun(h, job, media(2_000)));
    expect(short.ok).toBe(false);
    if (short.ok) return;
    expect(short.failure.permanent).toBe(true);
    expect(short.failure.message).toBe(
      `source "Cam B" is only 2.0 s long; syncing needs at least ${MIN_SYNC_SOURCE_MS / 1000} s of sound from every source: use a longer recording`,
    );
  });

  test('syncing: a codec the browser cannot decode fails at once by the file and codec; AC-3 goes to the opted-in ffmpeg core', async () => {
    const h = await harness();
    const { job } = await newJob(h);
    for (const s of job.sources) s.fileId = `file_${s.id}`;
    for (const s of job.sources)
      await h.db.put('files', { id: s.fileId!, size: 0, type: '', segments: [], createdAt: 0 });
    // Cam B's probe, as the media worker reports what WebCodecs said of each stream.
    const run = (camB: { video: Json | null; audio: Json }, ffmpegCore: boolean) => {
      const decoded: string[] = [];
      const workers = workersDouble({
        cameraMotion: () => new Promise(() => undefined),
        media: () =>
          ({
            probe: (_blob: Blob, o: { label: string }) =>
              Promise.resolve({
                engine: 'mediabunny',
                container: 'MP4',
                mimeType: null,
                durationMs: 60_000,
                streams: [],
                ...(o.label === 'Cam B'
                  ? camB
                  : { video: { codec: 'avc', decodable: true }, audio: { codec: 'aac', decodable: true } }),
              }),
            decodeAudio: (_blob: Blob, o: { label: string }) => {
              decoded.push(o.label);
              return Promise.resolve({ engine: 'mediabunny', samples: new Float32Array(8), sampleRate: 8000 });
            },
          }) as unknown as ReturnType<StageWorkers['media']>,
        analysis: () =>
          ({
            align: () => Promise.resolve({ ok: false, failures: [{ message: 'aligned no further (double)' }] }),
          }) as unknown as ReturnType<StageWorkers['analysis']>,
      });
      const base = stageRun(h, job, workers);
      const assets = ffmpegCore ? { ...base.assets, ffmpegWasmBase: '/wasm/' } : base.assets;
      return { result: runSyncing({ ...base, assets }), decoded };
    };
    const avc = { codec: 'avc', decodable: true };
    const ac3 = { codec: 'ac3', codecId: 'A_AC3', decodable: false };

    const noCore = run({ video: avc, audio: ac3 }, false);
    const failed = await noCore.result;
    expect(failed.ok).toBe(false);
    if (failed.ok) return;
    expect(failed.failure.permanent).toBe(true);
    expect(failed.failure.message).toMatch(
      /^source "Cam B" has AC-3 \(Dolby Digital\) audio, which this browser cannot decode: turn on the optional ffmpeg decoder/,
    );
    expect(noCore.decoded).toEqual([]); // before any decoding

    // With the core opted in, the sound is decoded (through ffmpeg.wasm in the real worker).
    const withCore = run({ video: avc, audio: ac3 }, true);
    const aligned = await withCore.result;
    expect(!aligned.ok && aligned.failure.message).toBe('aligned no further (double)');
    expect(withCore.decoded).toEqual(['Cam A', 'Cam B']);

    // HEVC pictures: the core does not read pictures, so the camera fails either way.
    const hevc = await run({ video: { codec: 'hevc', codecId: 'hvc1', decodable: false }, audio: avc }, true).result;
    expect(!hevc.ok && hevc.failure).toMatchObject({ permanent: true });
    expect(!hevc.ok && hevc.failure.message).toMatch(
      /^source "Cam B" is HEVC \(H\.265\) video, which this browser cannot decode, so its pictures cannot be used for the camera map/,
    );
  });
});
