/**
 * A test double of the engine runner, hosted in the harness page: it takes the work the
 * service worker's queue engine wrote to IndexedDB (woken by the `multicam-engine`
 * BroadcastChannel, and draining the store whenever asked, so nothing depends on message
 * timing) and completes or fails stages on the test's command through the real stage
 * reporter on the same database.
 *
 * @module
 */
import type { CameraMap, OutputFormat, RecordedLevels, Turn } from '../../../src/contract/types.ts';
import type { EngineStage, EngineWork } from '../../../src/contract/engine.ts';
import { ENGINE_CHANNEL, takeQueuedWork, type EngineMessage } from '../../../src/pipeline/queue-engine.ts';
import type { StageReporter } from '../../../src/jobs/reporter.ts';
import type { Database } from '../../../src/store/db.ts';
import { listEventsForJob } from '../../../src/store/events.ts';

/** What a stage completes with (the shape of test/contract/harness.ts `StageOutput`). */
export interface PageStageOutput {
  durationsMs?: Record<string, number>;
  turns?: Turn[];
  speakers?: string[];
  /** Diarizing: how loud each source was recorded (the Job's `audio.levels`). */
  levels?: RecordedLevels;
  cameraMap?: CameraMap | null;
  /** Rendered bytes, as a plain array across page.evaluate. */
  outputBytes?: number[];
  /** What the render made (the Job's `output_format`). */
  format?: OutputFormat;
}

/** The page-hosted test engine (see the module comment). */
export interface PageTestEngine {
  pendingStages(): Promise<EngineWork[]>;
  completeStage(jobId: string, stage: EngineStage, output?: PageStageOutput): Promise<void>;
  failStage(jobId: string, stage: EngineStage, options: { message: string; permanent?: boolean }): Promise<void>;
  events(jobId: string): Promise<Array<{ id: string; type: string; payload: Record<string, unknown> }>>;
  dispose(): void;
}

/** Starts consuming the work queue of `db` (named `dbName`), reporting through `reporter`. */
export function createPageTestEngine(db: Database, dbName: string, reporter: StageReporter): PageTestEngine {
  let pending: EngineWork[] = [];
  const channel = new BroadcastChannel(ENGINE_CHANNEL);
  const drain = async (): Promise<void> => {
    for (const work of await takeQueuedWork(db)) {
      if (!pending.some((p) => p.jobId === work.jobId && p.stage === work.stage)) pending.push(work);
    }
  };
  channel.onmessage = (event: MessageEvent<EngineMessage>) => {
    const message = event.data;
    if (message.dbName !== dbName) return;
    if (message.type === 'cancel') pending = pending.filter((p) => p.jobId !== message.jobId);
    else void drain();
  };
  const take = async (jobId: string, stage: EngineStage): Promise<void> => {
    await drain();
    const index = pending.findIndex((p) => p.jobId === jobId && p.stage === stage);
    if (index < 0) throw new Error(`no pending ${stage} stage for job ${jobId}; pending: ${JSON.stringify(pending)}`);
    pending.splice(index, 1);
  };
  return {
    async pendingStages() {
      await drain();
      // A deleted job's cancel message may still be in flight: the jobs store is the truth.
      const alive = await Promise.all(pending.map(async (p) => (await db.get('jobs', p.jobId)) !== undefined));
      pending = pending.filter((_, i) => alive[i]);
      return pending.map((p) => ({ ...p }));
    },
    async completeStage(jobId, stage, output = {}) {
      await take(jobId, stage);
      switch (stage) {
        case 'syncing':
          await reporter.stageSucceeded(
            jobId,
            'syncing',
            output.durationsMs === undefined ? {} : { durationsMs: output.durationsMs },
          );
          break;
        case 'diarizing':
          await reporter.stageSucceeded(jobId, 'diarizing', {
            turns: output.turns ?? [],
            ...(output.speakers === undefined ? {} : { speakers: output.speakers }),
            ...(output.levels === undefined ? {} : { levels: output.levels }),
          });
          break;
        case 'mapping':
          await reporter.stageSucceeded(jobId, 'mapping', { cameraMap: output.cameraMap ?? null });
          break;
        case 'rendering':
          await reporter.stageSucceeded(jobId, 'rendering', {
            output: new Blob([new Uint8Array(output.outputBytes ?? [0x66, 0x74, 0x79, 0x70])], { type: 'video/mp4' }),
            ...(output.format === undefined ? {} : { format: output.format }),
          });
          break;
      }
    },
    async failStage(jobId, stage, options) {
      await take(jobId, stage);
      await reporter.stageFailed(
        jobId,
        stage,
        options.permanent === undefined ? { message: options.message } : options,
      );
    },
    async events(jobId) {
      return (await listEventsForJob(db, jobId)).map(({ id, type, payload }) => ({ id, type, payload }));
    },
    dispose() {
      channel.close();
    },
  };
}
