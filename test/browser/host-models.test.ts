/**
 * The model slots of single-mix speaker detection in a real Chromium: the engine page starts
 * the engine with `assets.segmentationModelUrl` (pyannote segmentation-3.0 from
 * ../shared/models, served by the test server only, never copied into the repository) and
 * `assets.embeddingModelUrl` (the TEST DOUBLE embedding model of test/support/onnx-model.ts,
 * written to .cache); a one-source job goes through diarizing and the stage metrics must say
 * both models were used. Skipped, saying why, when the segmentation model is absent.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CreateJobResponse, GetJobResponse } from '../../src/contract/types.ts';
import type { StageRunRecord } from '../../src/pipeline/runner.ts';
import { launchChromium, type LaunchedChromium } from '../../src/cli/chromium.ts';
import { SEGMENTATION_MODEL_PATH } from '../../tools/diarization/vad-node.ts';
import { serveStatic, type StaticServer } from '../../src/cli/serve.ts';
import { buildSite, siteLinks } from '../support/build-site.ts';
import { callEngine, ENGINE_PAGE, engineApi, putUploads, servedSizes } from '../support/engine-page.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS, type Truth } from '../support/fixtures.ts';
import { fbankSpreadEmbeddingModel } from '../support/onnx-model.ts';
import { requireSharedData } from '../support/shared-data.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SITE = join(ROOT, '.cache/host-models-site');
/** The test-double embedding model, written here and served as /test-models/. */
const TEST_MODELS = join(ROOT, '.cache/host-models-test-models');
const SEGMENTATION_FILE = 'pyannote-segmentation-3.0.int8.onnx';
// Absent here: skipped; absent where CI=true: the file fails naming the model.
const absent = !requireSharedData([SEGMENTATION_MODEL_PATH]);

let chromium: LaunchedChromium;
let server: StaticServer;
let page: Page;
let truth: Truth;
let apiKey: string;

describe.skipIf(absent)(
  'host-supplied models in the engine (skipped when ../shared lacks the segmentation model)',
  () => {
    beforeAll(async () => {
      const fixture = await ensureFixture('tiny');
      truth = fixture.truth;
      mkdirSync(TEST_MODELS, { recursive: true });
      writeFileSync(join(TEST_MODELS, 'embedding-test-double.onnx'), fbankSpreadEmbeddingModel());
      await buildSite({
        pages: { engine: ENGINE_PAGE },
        shared: true,
        outDir: SITE,
        sw: true,
        links: {
          wasm: join(ROOT, 'wasm'),
          models: join(ROOT, 'models'),
          fixture: fixture.dir,
          'host-models': dirname(SEGMENTATION_MODEL_PATH),
          'test-models': TEST_MODELS,
        },
      });
      server = await serveStatic(SITE, { allow: siteLinks(SITE) });
      chromium = await launchChromium();
      page = await chromium.context.newPage();
      page.on('pageerror', (e) => console.error('[host-models page]', e));
      await page.goto(`${server.origin}${ENGINE_PAGE}`);
      await page.waitForSelector('body[data-ready="1"]');
      // Relative URLs: the runner resolves them against the page.
      const started = await callEngine<{ apiKey: string | null }>(
        page,
        'start',
        `multicam-host-models-${process.pid}-${Date.now()}`,
        true,
        {
          segmentationModelUrl: `/host-models/${SEGMENTATION_FILE}`,
          embeddingModelUrl: '/test-models/embedding-test-double.onnx',
        },
      );
      apiKey = started.apiKey!;
    }, FIXTURE_TIMEOUT_MS + 120_000);

    afterAll(async () => {
      await chromium?.close();
      await server?.close();
    });

    /** Creates a two-camera job on `on` (account `key`), uploads it, starts processing; returns the job id. */
    async function startJob(on: Page, key: string): Promise<string> {
      // Two cameras and no audio source: speaker detection runs single-mix on the first camera's audio.
      const cameras = truth.sources.slice(0, 2);
      const urls = cameras.map((c) => `/fixture/${c.file}`);
      const sizes = await servedSizes(on, urls);
      const created = await engineApi<CreateJobResponse>(on, key, 'POST', '/jobs', {
        sources: cameras.map((c, i) => ({ label: c.label, kind: 'video', ext: 'mp4', fileSize: sizes[i] })),
      });
      expect(created.status, JSON.stringify(created.json)).toBe(200);
      await putUploads(on, created.json.uploads, urls);
      const processing = await engineApi(on, key, 'POST', `/jobs/${created.json.jobId}/process`);
      expect(processing.status, JSON.stringify(processing.json)).toBe(200);
      return created.json.jobId;
    }

    /** The diarizing runs of `jobId` on `on`, once there is one (or after 90 s). */
    async function diarizingRuns(on: Page, jobId: string): Promise<StageRunRecord[]> {
      const until = Date.now() + 90_000;
      let runs: StageRunRecord[] = [];
      while (Date.now() < until) {
        runs = (await callEngine<StageRunRecord[]>(on, 'history')).filter(
          (h) => h.jobId === jobId && h.stage === 'diarizing',
        );
        if (runs.length > 0) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      return runs;
    }

    test('single-mix speaker detection runs the supplied segmentation and embedding models and says so in its metrics', async () => {
      const jobId = await startJob(page, apiKey);
      const runs = await diarizingRuns(page, jobId);
      console.log('[host-models] diarizing:', JSON.stringify(runs));
      const job = (await engineApi<GetJobResponse>(page, apiKey, 'GET', `/jobs/${jobId}`)).json.job;
      expect(runs[0]?.outcome, runs[0]?.failure?.message ?? job.error_message ?? 'no diarizing run').toBe('succeeded');
      expect(runs[0]!.metrics).toMatchObject({ channels: 1, segmentationModel: 'used', embeddingModel: 'used' });
      expect(runs[0]!.metrics!['segmentationMs']).toBeGreaterThan(0);
      expect(job.turns.length).toBeGreaterThan(0);
    });

    test('a supplied model of the wrong kind fails the job at once, naming its URL', async () => {
      const other = await chromium.context.newPage();
      try {
        await other.goto(`${server.origin}${ENGINE_PAGE}`);
        await other.waitForSelector('body[data-ready="1"]');
        // The embedding test double in the segmentation slot: not segmentation-3.0.
        const started = await callEngine<{ apiKey: string | null }>(
          other,
          'start',
          `multicam-host-models-bad-${process.pid}-${Date.now()}`,
          true,
          {
            segmentationModelUrl: '/test-models/embedding-test-double.onnx',
          },
        );
        const jobId = await startJob(other, started.apiKey!);
        const runs = await diarizingRuns(other, jobId);
        const job = (await engineApi<GetJobResponse>(other, started.apiKey!, 'GET', `/jobs/${jobId}`)).json.job;
        console.log('[host-models] wrong model:', JSON.stringify(runs), job.status, job.error_message);
        expect(runs.map((r) => r.outcome)).toEqual(['failed']);
        const modelUrl = `${server.origin}/test-models/embedding-test-double.onnx`;
        expect(runs[0]!.failure?.message).toContain(
          `speaker detection: the segmentation model ${modelUrl} cannot be used`,
        );
        expect(job.status).toBe('failed');
        expect(job.error_message).toContain(modelUrl);
      } finally {
        await other.close();
      }
    });
  },
);
