/**
 * The stage reporter: what engines call when a stage finishes. It applies the spec's
 * transition table and records events in the same IndexedDB transaction. It lives in the job
 * domain beside the decision after the camera map and its deadline (mapping-decision.ts) and
 * the job's warnings (warnings.ts), which the routes use too: the engine reports through it,
 * and neither the engine nor the routes import the other.
 *
 * @module
 */
import type { MixMeasures } from '../analysis/speech/energy.ts';
import type { CameraMap, JobSource, OutputFormat, RecordedLevels, Turn } from '../contract/types.ts';
import type { NewWarning } from '../contract/warnings.ts';
import type { ServiceContext } from './context.ts';
import { eventOutputUrl, reviewUrl } from './links.ts';
import { applyMappingResult } from './mapping-decision.ts';
import { addJobWarnings } from './warnings.ts';
import { updateAccount } from '../store/accounts.ts';
import type { JobRecord } from '../store/db.ts';
import { deleteFile, storeFile } from '../store/files.ts';
import { getJobRecord, updateJob } from '../store/jobs.ts';
import { validSourceTimecode } from '../media/timecode.ts';
import type { EngineStage } from '../contract/engine.ts';
import { applyTrigger, enqueueOrFail, failInPlace, talkTimes } from './transitions.ts';

/** Output of `syncing`: per-source durations and offsets on the reference timeline (keys: source ids). */
export interface SyncingOutput {
  durationsMs?: Record<string, number>;
  offsetsMs?: Record<string, number>;
  driftPpm?: Record<string, number>;
  /** What probing found of each source's streams (frame rate, frame size, audio format), kept on its Job source. */
  media?: Record<string, ProbedSourceMedia>;
}

/** A source's streams as probing found them: the Job source's additive fields of the same names. */
export type ProbedSourceMedia = Pick<
  JobSource,
  'frameRate' | 'frameRateExact' | 'variableFrameRate' | 'width' | 'height' | 'sampleRate' | 'channels' | 'timecode'
>;

const positive = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n) && n > 0;

/** Copies the probed fields that hold sensible values onto `source` (an engine's report is not trusted blindly). */
function applyProbedMedia(source: JobSource, media: ProbedSourceMedia): void {
  if (positive(media.frameRate)) source.frameRate = media.frameRate;
  const exact = media.frameRateExact;
  if (exact && Number.isInteger(exact.num) && Number.isInteger(exact.den) && exact.num > 0 && exact.den > 0)
    source.frameRateExact = { num: exact.num, den: exact.den };
  if (media.variableFrameRate !== undefined) source.variableFrameRate = media.variableFrameRate === true;
  for (const key of ['width', 'height', 'sampleRate', 'channels'] as const) {
    const value = media[key];
    if (positive(value) && Number.isInteger(value)) source[key] = value;
  }
  const tc = media.timecode;
  if (tc && validSourceTimecode(tc))
    source.timecode = {
      start: tc.start,
      frameRate: { num: tc.frameRate.num, den: tc.frameRate.den },
      dropFrame: tc.dropFrame,
    };
}

/** Output of `diarizing`: speech turns and the speakers, most talkative first (derived from turns when omitted). */
export interface DiarizingOutput {
  turns: Turn[];
  speakers?: string[];
  /** The mixed audio used for speaker detection (served as `audioUrl`). */
  audio?: Blob;
  /**
   * What speaker detection measured of that audio for the cut planner (`measureMix`): kept on
   * the job whole, under the planner's names (the job record extends `MixMeasures`).
   */
  mix?: MixMeasures;
  /** How loud each speaker-detection source was recorded and the levelling planned (the Job's `audio.levels`). */
  levels?: RecordedLevels;
}

/** Output of `mapping`: the camera map proposal, or null when none could be computed. */
export interface MappingOutput {
  cameraMap: CameraMap | null;
}

/** A file the stage already wrote into the store (a render streamed there as it was produced). */
export interface StoredFileRef {
  fileId: string;
}

/** Output of `rendering`: the rendered file, stored in chunks without holding it whole, or already stored. */
export interface RenderingOutput {
  output: Blob | ReadableStream<Uint8Array> | StoredFileRef;
  /** MIME type of the output; default `video/mp4`. */
  type?: string;
  /** What the render made (container, codecs, why Opus), shown as the job's `output_format`. */
  format?: OutputFormat;
}

/** Stage output by stage. */
export interface StageOutputs {
  syncing: SyncingOutput;
  diarizing: DiarizingOutput;
  mapping: MappingOutput;
  rendering: RenderingOutput;
}

/** How a stage failed. `permanent`: unreadable or damaged files; no automatic retry, nextAction `contact_support`. */
export interface StageFailure {
  message: string;
  permanent?: boolean;
}

/** What engines call to report stage results. Reports for a job that moved on or was deleted are ignored. */
export interface StageReporter {
  stageSucceeded<S extends EngineStage>(jobId: string, stage: S, output: StageOutputs[S]): Promise<void>;
  /** One automatic retry unless `permanent`; then `failed` with a `failed` event. A failed `mapping` stage means no proposal: `mapping` event without cameraMap. */
  stageFailed(jobId: string, stage: EngineStage, failure: StageFailure): Promise<void>;
  /** Progress 0..1 of `stage` (default rendering) while the job is in it. */
  setProgress(jobId: string, progress: number, stage?: EngineStage): Promise<void>;
  /** Source durations (bills the account in input minutes), offsets and probed formats, keyed by source id. */
  setSourceInfo(jobId: string, info: SyncingOutput): Promise<void>;
  /** Stores a camera map proposal without deciding anything (autoMap `off`: it appears in getJob). */
  setCameraMap(jobId: string, cameraMap: CameraMap): Promise<void>;
  /**
   * Records what went wrong without failing the stage (a fallback taken, a model not loaded) on
   * the job's `warnings`, once per code and source; a deleted job is left alone.
   */
  addWarnings(jobId: string, warnings: readonly NewWarning[]): Promise<void>;
}

/** Stores the durations, offsets, drifts and stream formats syncing found and bills the footage minutes not billed yet. */
async function setSourceInfo(ctx: ServiceContext, jobId: string, info: SyncingOutput): Promise<void> {
  const { db } = ctx;
  const billed = await updateJob(db, jobId, (job) => {
    for (const source of job.sources) {
      const duration = info.durationsMs?.[source.id];
      if (duration !== undefined && Number.isFinite(duration) && duration >= 0) source.durationMs = duration;
      const offset = info.offsetsMs?.[source.id];
      if (offset !== undefined && Number.isFinite(offset)) source.offsetMs = offset;
      const drift = info.driftPpm?.[source.id];
      if (drift !== undefined && Number.isFinite(drift)) source.driftPpm = drift;
      const media = info.media?.[source.id];
      if (media) applyProbedMedia(source, media);
    }
    // Billed in input minutes: all uploaded footage. Re-reported durations bill only the difference.
    const minutes = job.sources.reduce((sum, s) => sum + (s.durationMs ?? 0), 0) / 60_000;
    const delta = Math.max(0, minutes - job.billedMinutes);
    job.billedMinutes += delta;
    job.updatedAt = ctx.now();
    return { job, result: { accountId: job.accountId, delta } };
  });
  if (billed && billed.delta > 0) {
    await updateAccount(db, billed.accountId, (account) => {
      account.usedMinutes += billed.delta;
    });
  }
}

/** Syncing done: store what it found and move the job on to diarizing. */
async function syncingSucceeded(ctx: ServiceContext, jobId: string, output: SyncingOutput): Promise<void> {
  const { db } = ctx;
  await setSourceInfo(ctx, jobId, output);
  const moved = await updateJob(db, jobId, (job) => {
    if (job.status !== 'syncing') return { job: null, result: false };
    applyTrigger(job, 'syncSucceeded', ctx.now());
    job.stageAttempts = { ...job.stageAttempts, diarizing: 0 };
    return { job, result: true };
  });
  if (moved) await enqueueOrFail(ctx, jobId, 'diarizing');
}

/** Diarizing done: store the turns and the mix, move the job to mapping and queue the camera map. */
async function diarizingSucceeded(ctx: ServiceContext, jobId: string, output: DiarizingOutput): Promise<void> {
  const { db } = ctx;
  const before = await getJobRecord(db, jobId);
  if (!before || before.status !== 'diarizing') return;
  const link = await reviewUrl(ctx, before.apiBase, before);
  const audioFileId = output.audio
    ? await storeFile(db, output.audio, output.audio.type || 'audio/wav', ctx.now())
    : null;
  let replacedAudio: string | null = null;
  const moved = await updateJob(db, jobId, (job) => {
    if (job.status !== 'diarizing') return { job: null, result: false };
    const now = ctx.now();
    job.turns = output.turns;
    job.speakers = output.speakers ?? talkTimes(output.turns).map((t) => t.speaker);
    // Names stay with the labels still detected (a label no longer found names nobody).
    if (job.speakerNames)
      job.speakerNames = Object.fromEntries(Object.entries(job.speakerNames).filter(([l]) => job.speakers.includes(l)));
    if (output.mix) Object.assign(job, output.mix);
    // Measured again with every detection: levels of an earlier run would name other speakers.
    if (output.levels) job.audioLevels = output.levels;
    else delete job.audioLevels;
    if (audioFileId !== null) {
      replacedAudio = job.audioFileId;
      job.audioFileId = audioFileId;
    }
    applyTrigger(job, 'diarizeSucceeded', now);
    job.mappedBy = null;
    job.cameraMap = null;
    job.mappingSince = now;
    job.mappingAsked = job.autoMap === 'off';
    const events = [];
    if (job.autoMap === 'off') {
      const event = applyTrigger(job, 'mappingNeeded', now, () => ({ reviewUrl: link, speakers: job.speakers }));
      if (event) events.push(event);
    }
    return { job, events, result: true };
  });
  if (!moved) {
    if (audioFileId !== null) await deleteFile(db, audioFileId);
    return;
  }
  if (replacedAudio !== null) await deleteFile(db, replacedAudio);
  // The camera map is worked out in every mode (with `off` it only appears in getJob).
  try {
    await ctx.engine.enqueue({ jobId, stage: 'mapping' });
  } catch {
    await applyMappingResult(ctx, jobId, null);
  }
}

/** Rendering done: store the output (replacing an earlier one) and finish the job. */
async function renderingSucceeded(ctx: ServiceContext, jobId: string, output: RenderingOutput): Promise<void> {
  const { db } = ctx;
  const stored = 'fileId' in output.output ? output.output.fileId : null;
  const before = await getJobRecord(db, jobId);
  if (!before || before.status !== 'rendering') {
    if (stored !== null) await deleteFile(db, stored);
    return;
  }
  const now = ctx.now();
  const fileId =
    stored ??
    (await storeFile(db, output.output as Blob | ReadableStream<Uint8Array>, output.type ?? 'video/mp4', now));
  const outputUrl = await eventOutputUrl(ctx, before, fileId, now);
  let previous: string | null = null;
  const done = await updateJob(db, jobId, (job) => {
    if (job.status !== 'rendering') return { job: null, result: false };
    previous = job.outputFileId;
    job.outputFileId = fileId;
    job.renderedAt = now;
    job.outputFormat = output.format ?? null;
    job.progress = null;
    const event = applyTrigger(job, 'renderSucceeded', now, () => ({ outputUrl }));
    return { job, events: event ? [event] : [], result: true };
  });
  // A job deleted or moved on while rendering: its output is removed now.
  if (!done) await deleteFile(db, fileId);
  else if (previous !== null) await deleteFile(db, previous);
}

/** A stage failed: retry it once unless the failure is permanent, else fail the job. */
async function stageFailed(
  ctx: ServiceContext,
  jobId: string,
  stage: EngineStage,
  failure: StageFailure,
): Promise<void> {
  if (stage === 'mapping') return applyMappingResult(ctx, jobId, null);
  const retry = await updateJob(ctx.db, jobId, (job: JobRecord) => {
    if (job.status !== stage) return { job: null, result: false };
    const attempts = job.stageAttempts[stage] ?? 0;
    if (!failure.permanent && attempts < 1) {
      job.stageAttempts = { ...job.stageAttempts, [stage]: attempts + 1 };
      job.updatedAt = ctx.now();
      return { job, result: true };
    }
    const event = failInPlace(job, 'stageFailed', stage, failure.message, failure.permanent === true, ctx.now());
    return { job, events: event ? [event] : [], result: false };
  });
  if (retry) await enqueueOrFail(ctx, jobId, stage);
}

/** Creates the reporter the engine calls; see {@link StageReporter}. */
export function createStageReporter(ctx: ServiceContext): StageReporter {
  const reporter: StageReporter = {
    async stageSucceeded(jobId, stage, output) {
      switch (stage) {
        case 'syncing':
          return syncingSucceeded(ctx, jobId, output as SyncingOutput);
        case 'diarizing':
          return diarizingSucceeded(ctx, jobId, output as DiarizingOutput);
        case 'mapping':
          return applyMappingResult(ctx, jobId, (output as MappingOutput).cameraMap);
        case 'rendering':
          return renderingSucceeded(ctx, jobId, output as RenderingOutput);
      }
    },

    stageFailed: (jobId, stage, failure) => stageFailed(ctx, jobId, stage, failure),

    async setProgress(jobId, progress, stage = 'rendering') {
      const clamped = Math.min(1, Math.max(0, Number.isFinite(progress) ? progress : 0));
      await updateJob(ctx.db, jobId, (job) => {
        if (job.status !== stage) return { job: null, result: undefined };
        // The mapping stage's work is over once a decision or a proposal is in, or a person was asked.
        if (stage === 'mapping' && (job.mappedBy !== null || job.cameraMap !== null || job.mappingAsked))
          return { job: null, result: undefined };
        if (stage === 'rendering') job.progress = clamped;
        else job.stageProgress = { stage, fraction: clamped };
        return { job, result: undefined };
      });
    },

    setSourceInfo: (jobId, info) => setSourceInfo(ctx, jobId, info),

    async setCameraMap(jobId, cameraMap) {
      await updateJob(ctx.db, jobId, (job) => {
        job.cameraMap = cameraMap;
        job.updatedAt = ctx.now();
        return { job, result: undefined };
      });
    },

    addWarnings: (jobId, warnings) => addJobWarnings(ctx, jobId, warnings),
  };
  return reporter;
}
