/**
 * multicam: edit multicam video podcasts entirely inside the browser. The public barrel:
 * the service (route handler, accounts, stage reporter), the engine boundary, the typed
 * client, and the contract's types, errors, validation and state machine.
 *
 * @example
 * import { createService, MulticamClient } from 'multicam';
 * const service = await createService({ engine });
 * const { apiKey } = await service.accounts.create();
 * const client = new MulticamClient({ baseUrl: `${location.origin}/api`, apiKey });
 *
 * @module
 */

// The service
export { createService } from './service.ts';
export type { AccountsApi, MulticamService, ServiceOptions } from './service.ts';
export type { LocalAttachResult } from './routes/uploads.ts';

// The engine boundary
export type { Engine, EngineStage, EngineWork } from './contract/engine.ts';
export type {
  DiarizingOutput,
  MappingOutput,
  RenderingOutput,
  StageFailure,
  StageOutputs,
  StageReporter,
  SyncingOutput,
} from './jobs/reporter.ts';

// The typed client
export { MulticamClient } from './client/client.ts';
export type { ClientOptions, CreateJobResult } from './client/client.ts';

// The contract
export { ApiError, ERROR_STATUS } from './contract/errors.ts';
export { transition, allowedFrom, isRetryableStage, RETRYABLE_STAGES, TRANSITIONS } from './contract/machine.ts';
export type { Transition, TransitionRule, Trigger } from './contract/machine.ts';
export { nextAction, SUPPORT_MAILTO } from './contract/next-action.ts';
export type { NextActionInput } from './contract/next-action.ts';
export {
  AUTO_MAP_MODES,
  ERROR_CODES,
  EVENT_TYPES,
  JOB_STATUSES,
  LIMITS,
  NEXT_ACTION_TYPES,
  PRESET_IDS,
  SILENCE_DEFAULTS,
  SILENCE_MODES,
  SILENCE_RANGES,
  SOURCE_EXTS,
  SOURCE_KINDS,
} from './contract/types.ts';
export type {
  AutoMapMode,
  CameraConfidence,
  CameraKind,
  CameraMap,
  CameraMapCamera,
  CameraSupport,
  CreateJobRequest,
  CreateJobResponse,
  Cut,
  ErrorBody,
  ErrorCode,
  ErrorExtras,
  EventPayload,
  EventType,
  FrameRateFraction,
  GetJobResponse,
  Job,
  JobListItem,
  JobSource,
  JobStatus,
  JobStatusResponse,
  JobSummary,
  ListJobsResponse,
  MultipartKeyRequest,
  MultipartUpload,
  NextAction,
  NextActionType,
  OkResponse,
  PipelineStage,
  PresetId,
  ProxyStatus,
  PutUpload,
  RecutRequest,
  RecutResponse,
  RequestUploadPartUrlsRequest,
  RequestUploadPartUrlsResponse,
  ResolvedSilenceSettings,
  RetryRequest,
  SilenceMode,
  SilenceSettings,
  SourceExt,
  SourceInput,
  SourceKind,
  SourceProxy,
  SourceTimecode,
  StartProcessingRequest,
  StartProcessingResponse,
  SubmitSpeakerMappingRequest,
  SubmitSpeakerMappingResponse,
  TimeRange,
  Track,
  Turn,
  UpdateCutsRequest,
  UploadInfo,
} from './contract/types.ts';

// Storage (for workers reading stored files)
export type { EventRecord } from './store/db.ts';

// Webhooks: Standard Webhooks signing, the durable outbox dispatcher, in-page subscription
export { signWebhook, signatureHeader, signatureV1, decodeSigningSecret, SigningSecretError } from './webhooks/sign.ts';
export type { WebhookSignatureHeaders } from './webhooks/sign.ts';
export { WebhookDispatcher, WEBHOOK_REQUEST_HEADERS } from './webhooks/dispatcher.ts';
export type { WebhookDispatcherOptions } from './webhooks/dispatcher.ts';
export { startWebhookDelivery } from './webhooks/delivery.ts';
export type { WebhookDelivery, WebhookDeliveryOptions } from './webhooks/delivery.ts';
export { subscribeToEvents } from './webhooks/subscribe.ts';
export type { SubscribedEvent, EventSubscription } from './webhooks/subscribe.ts';
export { openEventsOutbox } from './webhooks/page-outbox.ts';
export type { EventsOutbox, EventsOutboxOptions } from './webhooks/page-outbox.ts';
export type { OutboxEvent, OutboxDelivery } from './webhooks/outbox.ts';
export { announceEvents, EVENTS_CHANNEL } from './webhooks/events-channel.ts';
export { DEFAULT_RETRY_SCHEDULE } from './webhooks/schedule.ts';
export type { RetrySchedule } from './webhooks/schedule.ts';

// Silence removal and cut generation (pure)
export { planEdit, checkCutList, resolveSilence } from './analysis/edit/edit.ts';

// Media (probe and decode in a worker) and audio sync (pure)
export { createMediaClient } from './media/client.ts';
export type { MediaCallOptions, MediaClient } from './media/client.ts';
export { UnreadableMediaError, NoAudioTrackError, MediaAbortError } from './media/errors.ts';
export type { MediaProbe, MediaWorkerApi, DecodedAudio } from './media/protocol.ts';
export { alignSources, toSourceTime, toReferenceTime, SyncError } from './analysis/sync/sync.ts';
export type { SourceAlignment, SyncSignal, ClockMapping } from './analysis/sync/sync.ts';

// Export to editing software (FCPXML, Premiere xmeml, OpenTimelineIO, CMX 3600 EDL)
export { exportEdit, EXPORT_FORMATS, ExportError } from './export/index.ts';
export type { ExportFormat, ExportableJob, ExportOptions, ExportedFile } from './export/index.ts';

// Render (WebCodecs + mediabunny, ffmpeg.wasm for AAC and as the video fallback)
export { renderEdit, RenderError, RenderAbortError, avcCodecString } from './render/render.ts';
export { createRenderClient } from './render/client.ts';
export type { RenderClient } from './render/client.ts';
export { planRender, keptPieces, RenderPlanError } from './render/plan.ts';
export type { RenderPlan, RenderSegment } from './render/plan.ts';
export type {
  RenderSource,
  RenderRequest,
  RenderSink,
  RenderProgress,
  RenderResult,
  RenderOutputOptions,
  RenderWorkerApi,
} from './render/protocol.ts';

// The engine runner (runs in a page: one per browser profile, stages in web workers)
export { startEngineRunner, engineLockName, WorkerCrashError } from './pipeline/runner.ts';
export type { EngineRunner, EngineRunnerOptions, StageRunRecord } from './pipeline/runner.ts';
