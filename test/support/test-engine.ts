/**
 * A TEST DOUBLE of the pipeline engine: it records the work routes enqueue and completes or
 * fails stages only when a test says so, through the real stage reporter. It computes nothing:
 * outputs are what the test passes (or the small defaults below).
 *
 * @module
 */
import type { Engine, EngineStage, EngineWork } from '../../src/contract/engine.ts';
import type { StageFailure, StageOutputs, StageReporter } from '../../src/jobs/reporter.ts';
import type { StageOutput } from '../contract/harness.ts';

/** Two speakers alternating every 10 s for a minute, SPEAKER_00 talking more. */
export const DEFAULT_TURNS = [
  { speaker: 'SPEAKER_00', startMs: 0, endMs: 12_000 },
  { speaker: 'SPEAKER_01', startMs: 12_000, endMs: 20_000 },
  { speaker: 'SPEAKER_00', startMs: 20_000, endMs: 34_000 },
  { speaker: 'SPEAKER_01', startMs: 34_000, endMs: 42_000 },
  { speaker: 'SPEAKER_00', startMs: 42_000, endMs: 60_000 },
];

/** The test double engine. Call {@link TestEngine.attach} with the service's reporter first. */
export class TestEngine implements Engine {
  /** Work waiting to be completed or failed, oldest first. */
  readonly pending: EngineWork[] = [];
  /** Job ids passed to cancel(). */
  readonly cancelled: string[] = [];
  /** When set, the next enqueue of this stage throws (a stage that cannot start → 502). */
  refuseNext: EngineStage | null = null;
  private reporter: StageReporter | null = null;

  attach(reporter: StageReporter): void {
    this.reporter = reporter;
  }

  async enqueue(work: EngineWork): Promise<void> {
    if (this.refuseNext === work.stage) {
      this.refuseNext = null;
      throw new Error(`test engine refused ${work.stage}`);
    }
    this.pending.push({ ...work });
  }

  async cancel(jobId: string): Promise<void> {
    this.cancelled.push(jobId);
    for (let i = this.pending.length - 1; i >= 0; i--) if (this.pending[i]!.jobId === jobId) this.pending.splice(i, 1);
  }

  private take(jobId: string, stage: EngineStage): StageReporter {
    const index = this.pending.findIndex((w) => w.jobId === jobId && w.stage === stage);
    if (index < 0)
      throw new Error(
        `test engine: no pending ${stage} work for job ${jobId} (pending: ${JSON.stringify(this.pending)})`,
      );
    this.pending.splice(index, 1);
    if (!this.reporter) throw new Error('test engine: attach(reporter) was not called');
    return this.reporter;
  }

  /** Completes a pending stage with `output` (or defaults: no durations, {@link DEFAULT_TURNS}, no camera map, 4 KiB of output). */
  async complete(jobId: string, stage: EngineStage, output: StageOutput = {}): Promise<void> {
    const reporter = this.take(jobId, stage);
    switch (stage) {
      case 'syncing': {
        const out: StageOutputs['syncing'] = {};
        if (output.durationsMs) out.durationsMs = output.durationsMs;
        return reporter.stageSucceeded(jobId, 'syncing', out);
      }
      case 'diarizing': {
        const out: StageOutputs['diarizing'] = { turns: output.turns ?? DEFAULT_TURNS };
        if (output.speakers) out.speakers = output.speakers;
        if (output.levels) out.levels = output.levels;
        return reporter.stageSucceeded(jobId, 'diarizing', out);
      }
      case 'mapping':
        return reporter.stageSucceeded(jobId, 'mapping', { cameraMap: output.cameraMap ?? null });
      case 'rendering': {
        const bytes = output.outputBytes ?? new Uint8Array(4096).map((_, i) => i % 251);
        return reporter.stageSucceeded(jobId, 'rendering', {
          output: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'video/mp4' }),
        });
      }
    }
  }

  /** Fails a pending stage through the reporter (which may re-enqueue it once). */
  async fail(jobId: string, stage: EngineStage, failure: StageFailure): Promise<void> {
    const reporter = this.take(jobId, stage);
    await reporter.stageFailed(jobId, stage, failure);
  }
}
