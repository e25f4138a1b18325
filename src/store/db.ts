/**
 * The IndexedDB database: one typed schema, its name and version, and migration steps.
 * One repository module per store lives beside this file.
 *
 * @module
 */
import { wrap, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import type {
  AutoMapMode,
  CameraMap,
  Cut,
  EventType,
  JobSource,
  JobStatus,
  RecordedLevels,
  ResolvedAudioSettings,
  SourceGain,
  TimeRange,
  Track,
  Turn,
  OutputFormat,
} from '../contract/types.ts';
import type { EngineStage } from '../contract/engine.ts';
import type { StoredWarning } from '../contract/warnings.ts';
import type { MixMeasures, PlanSettings } from '../analysis/edit/edit.ts';

/** The default database name. */
export const DB_NAME = 'multicam';
/** The schema version; each bump adds an `if (oldVersion < n)` step in `upgrade`. */
export const DB_VERSION = 3;

/** An account: quota, usage, webhook signing secrets. */
export interface AccountRecord {
  id: string;
  name: string | null;
  quotaMinutes: number | null;
  /** Input minutes billed so far (never refunded). */
  usedMinutes: number;
  createdAt: number;
  /** Webhook signing secrets, newest first; an old one stays in force until `expiresAt`. */
  signingSecrets: Array<{ secret: string; createdAt: number; expiresAt: number | null }>;
}

/** An API key, stored as its SHA-256 hash. */
export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  /** SHA-256 of the plaintext key, hex. */
  hash: string;
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
}

/** How a source is uploaded; fixed at creation so replays give the same uploadId. */
export type UploadPlan =
  { method: 'put' } | { method: 'multipart'; uploadId: string; key: string; partSize: number; partCount: number };

/** Why the last upload of a source was refused: a size check (the spec's codes). */
export type SourceFileErrorCode = 'FILE_TOO_LARGE' | 'FILE_SIZE_MISMATCH';

/**
 * What the first bytes of a source's stored file say when they are not media: `FILE_EMPTY` or
 * `FILE_NOT_MEDIA`. The upload itself is accepted, as a presigned PUT is; the job carries a
 * warning at once and its syncing stage fails at once with this message (docs/decisions/012).
 */
export interface SourceMediaProblem {
  code: 'FILE_EMPTY' | 'FILE_NOT_MEDIA';
  message: string;
}

/**
 * A camera's proxy as stored (docs/proxies.md): built and stored as a file of the job, or why
 * not. Absent: not built yet (`pending` in the view). A proxy that failed for a reason that may
 * pass (a file used in place that no page holds) is not recorded: the engine tries again later.
 */
export type StoredProxy =
  | {
      status: 'ready';
      fileId: string;
      width: number;
      height: number;
      /** Bytes stored. */
      size: number;
      /** Wall-clock ms the build took, and the source's length in ms (× real time = durationMs / buildMs). */
      buildMs: number;
      durationMs: number;
      /** The video codec written (`avc` where the browser encodes H.264). */
      codec: string;
    }
  | { status: 'failed' | 'unavailable'; reason: string };

/** A job source with where its upload stands. */
export interface SourceRecord extends Omit<JobSource, 'proxy'> {
  /** The camera's proxy (cameras only), once the engine built it or gave up; absent before. */
  proxyFile?: StoredProxy;
  /** The stored upload, once complete. */
  fileId: string | null;
  upload: UploadPlan;
  /** The last upload failed its size check (reported by startProcessing until uploaded again). */
  sizeError: { code: SourceFileErrorCode; message: string } | null;
  /** The stored file's first bytes are not media (absent or null: they are, or not checked). */
  mediaProblem?: SourceMediaProblem | null;
}

/**
 * A stored job: everything the contract shows plus what the pipeline needs (camelCase; views.ts
 * maps it to Job). The planner's settings (`presetId`, `silence`) and what speaker detection
 * measured of the mix (`quietRanges`; absent on jobs from before) are kept under the planner's
 * own names, so a job is the planner's input (src/jobs/replan.ts).
 */
export interface JobRecord extends PlanSettings, Partial<MixMeasures> {
  id: string;
  accountId: string;
  /** Creation order (ties in `createdAt` are common with an injected clock). */
  seq: number;
  /**
   * Origin + base path of the request that created the job: events are built from it (on the
   * page's origin instead where the service knows it, see `ServiceOptions.pageOrigin`).
   */
  apiBase: string;
  /**
   * Signed into every review token of the job; revoking the job's review links bumps it, and a
   * token of another version answers 401. Absent (records before it existed): 0.
   */
  reviewTokenVersion?: number;
  title: string | null;
  status: JobStatus;
  sources: SourceRecord[];
  tracks: Track[];
  turns: Turn[];
  /** Detected speakers, most talkative first. */
  speakers: string[];
  /** Names people gave the speakers (nameSpeakers); absent on records stored before names. */
  speakerNames?: Record<string, string>;
  cuts: Cut[];
  removedRanges: TimeRange[] | null;
  cameraMap: CameraMap | null;
  /** createJob's `audio` (loudness target, true-peak ceiling); absent on jobs from before: the defaults. */
  audio?: ResolvedAudioSettings;
  /** The gains a person set per source (updateCuts `audio.gains`); absent when none was ever set. */
  audioGains?: Record<string, SourceGain>;
  /** How loud speaker detection's sources were recorded, and the levelling planned (the Job's `audio.levels`); absent before. */
  audioLevels?: RecordedLevels;
  review: boolean;
  autoMap: AutoMapMode;
  callbackUrl: string | null;
  diarizeSourceIds: string[] | null;
  errorMessage: string | null;
  failedAtStatus: string | null;
  /** Unreadable or damaged files: retrying will not help. */
  failurePermanent: boolean;
  /** Automatic retries used per stage since the stage last started from a route. */
  stageAttempts: Partial<Record<EngineStage, number>>;
  progress: number | null;
  /** The analysis stage running and its fraction done (syncing, diarizing, mapping); absent on older records. */
  stageProgress?: { stage: EngineStage; fraction: number } | null;
  outputFileId: string | null;
  renderedAt: number | null;
  /** What the last render made; absent on records stored before it was kept. */
  outputFormat?: OutputFormat | null;
  audioFileId: string | null;
  /** When the job entered mapping (speaker detection done); null before. */
  mappingSince: number | null;
  /** Whether the `mapping` event was sent since the job entered mapping. */
  mappingAsked: boolean;
  /** Who set the tracks: null until mapped. */
  mappedBy: 'client' | 'service' | null;
  /** Whether processing was started (for `alreadyProcessed`). */
  processingStarted: boolean;
  billedMinutes: number;
  /** Events recorded for this job so far (orders events with equal `createdAt`). */
  eventCount: number;
  /** What went wrong without failing the job (src/contract/warnings.ts); absent on older records (read as none). */
  warnings?: StoredWarning[];
  createdAt: number;
  updatedAt: number;
}

/** What identifies a file used in place (see local-files.ts): its bytes are not stored. */
export interface LocalFileInfo {
  name: string;
  /** `File.lastModified` when it was picked: a file changed since is refused. */
  lastModified: number;
  /** A File System Access handle, when the page was given one: it outlives the page. */
  handle?: FileSystemFileHandle;
}

/**
 * A stored file: a list of segments (one for a PUT, one per part for multipart), each a run of
 * chunks; or, with `local`, a file used in place (no segments).
 */
export interface FileRecord {
  id: string;
  size: number;
  type: string;
  segments: Array<{ chunkFileId: string; chunkSizes: number[] }>;
  createdAt: number;
  local?: LocalFileInfo;
  /** The multipart upload whose parts became this file (a repeated complete answers from it). */
  uploadId?: string;
}

/**
 * One chunk of a run (at most `CHUNK_SIZE` bytes): a Blob, or its bytes where the browser's
 * IndexedDB refuses Blob values (WebKit in an ephemeral session, as WebKitGTK runs under
 * WebDriver: "Error preparing Blob/File data to be stored in object store"). Read it with
 * `chunkBlob` (files.ts).
 */
export interface ChunkRecord {
  fileId: string;
  index: number;
  blob: Blob | ArrayBuffer;
}

/**
 * A run of chunks being written and not yet referenced by a file or part record (store `runs`,
 * version 3). Written in the same transaction as the run's first chunk, touched with every
 * chunk, and deleted in the transaction that references the run (or deletes it). The sweeper
 * (sweep.ts) collects a run that no record references once its `touchedAt` is older than the
 * grace period: a writer that crashed or whose tab closed. A writer whose run was collected
 * finds its record gone at its next chunk or when it references the run, and fails.
 */
export interface OpenRunRecord {
  chunkFileId: string;
  /** When the last chunk was written (ms since epoch, this machine's clock). */
  touchedAt: number;
}

/** A multipart upload of one source. */
export interface UploadRecord {
  uploadId: string;
  key: string;
  accountId: string;
  jobId: string;
  sourceId: string;
  partSize: number;
  partCount: number;
  fileSize: number;
  createdAt: number;
}

/** One uploaded part of a multipart upload: its own run of chunks. */
export interface PartRecord {
  uploadId: string;
  partNumber: number;
  chunkFileId: string;
  chunkSizes: number[];
  size: number;
}

/** An `Idempotency-Key` of an account and the job it created. */
export interface IdempotencyRecord {
  accountId: string;
  key: string;
  bodyHash: string;
  state: 'in_progress' | 'done';
  jobId: string | null;
  createdAt: number;
}

/** The events outbox record (docs/architecture.md). */
export interface EventRecord {
  id: string;
  accountId: string;
  jobId: string;
  type: EventType;
  payload: Record<string, unknown>;
  callbackUrl: string | null;
  createdAt: number;
  /** Order of the event among its job's events (1, 2, …); an extra field beyond architecture.md. */
  seq: number;
  delivery: {
    state: 'pending' | 'delivered' | 'failed' | 'skipped';
    attempts: number;
    nextAttemptAt: number;
    log: Array<{ attempt: number; at: number; durationMs: number; status?: number; error?: string }>;
  };
}

/** A queued unit of engine work (src/store/work.ts): written by the service worker's queue engine, taken by the page running the pipeline. */
export interface WorkRecord {
  /** Auto-increment: queue order. */
  seq?: number;
  jobId: string;
  stage: EngineStage;
  createdAt: number;
}

/** An installation-wide value (URL signing secret, counters). */
export interface MetaRecord {
  key: string;
  value: unknown;
}

/** The typed schema of every store. */
export interface MulticamDB extends DBSchema {
  meta: { key: string; value: MetaRecord };
  accounts: { key: string; value: AccountRecord };
  apiKeys: { key: string; value: ApiKeyRecord; indexes: { 'by-hash': string; 'by-account': string } };
  jobs: { key: string; value: JobRecord; indexes: { 'by-account-seq': [string, number] } };
  files: { key: string; value: FileRecord };
  chunks: { key: [string, number]; value: ChunkRecord };
  uploads: { key: string; value: UploadRecord; indexes: { 'by-key': string; 'by-job': string } };
  parts: { key: [string, number]; value: PartRecord };
  idempotency: { key: [string, string]; value: IdempotencyRecord; indexes: { 'by-job': string } };
  events: { key: string; value: EventRecord; indexes: { 'by-job': string } };
  work: { key: number; value: WorkRecord; indexes: { 'by-job': string } };
  runs: { key: string; value: OpenRunRecord };
}

/** An open connection to the database. */
export type Database = IDBPDatabase<MulticamDB>;

/**
 * What the layers above attach to a connection when they open it: the store imports nothing
 * above itself, so whoever opens the database says what a commit announces.
 */
export interface DatabaseHooks {
  /**
   * Called with the events' ids after a transaction that recorded events has committed
   * ({@link "./jobs.ts".updateJob}). The service wires `announceEvents` (src/webhooks/events-channel.ts).
   */
  onEventsRecorded?: (ids: readonly string[]) => void;
}

const hooksOf = new WeakMap<Database, DatabaseHooks>();

/** The hooks given to {@link openDatabase} for `db` (none for a connection opened without). */
export function databaseHooks(db: Database): DatabaseHooks {
  return hooksOf.get(db) ?? {};
}

function upgrade(
  db: Database,
  oldVersion: number,
  _tx: IDBPTransaction<MulticamDB, StoreNames<MulticamDB>[], 'versionchange'>,
): void {
  if (oldVersion < 1) {
    db.createObjectStore('meta', { keyPath: 'key' });
    db.createObjectStore('accounts', { keyPath: 'id' });
    const keys = db.createObjectStore('apiKeys', { keyPath: 'keyId' });
    keys.createIndex('by-hash', 'hash', { unique: true });
    keys.createIndex('by-account', 'accountId');
    const jobs = db.createObjectStore('jobs', { keyPath: 'id' });
    jobs.createIndex('by-account-seq', ['accountId', 'seq']);
    db.createObjectStore('files', { keyPath: 'id' });
    db.createObjectStore('chunks', { keyPath: ['fileId', 'index'] });
    const uploads = db.createObjectStore('uploads', { keyPath: 'uploadId' });
    uploads.createIndex('by-key', 'key');
    uploads.createIndex('by-job', 'jobId');
    db.createObjectStore('parts', { keyPath: ['uploadId', 'partNumber'] });
    const idem = db.createObjectStore('idempotency', { keyPath: ['accountId', 'key'] });
    idem.createIndex('by-job', 'jobId');
    const events = db.createObjectStore('events', { keyPath: 'id' });
    events.createIndex('by-job', 'jobId');
  }
  if (oldVersion < 2) {
    const work = db.createObjectStore('work', { keyPath: 'seq', autoIncrement: true });
    work.createIndex('by-job', 'jobId');
  }
  if (oldVersion < 3) {
    // Runs written before this version have no record: the sweeper treats an unreferenced one as orphaned.
    db.createObjectStore('runs', { keyPath: 'chunkFileId' });
  }
}

/**
 * Opens (and migrates) the database. `factory` defaults to the global `indexedDB`; tests pass
 * a fresh fake-indexeddb `IDBFactory`, which `idb`'s `openDB` cannot take, hence `wrap`.
 * `hooks` are kept with the connection (see {@link databaseHooks}).
 */
export async function openDatabase(
  name: string = DB_NAME,
  factory: IDBFactory = indexedDB,
  hooks: DatabaseHooks = {},
): Promise<Database> {
  const request = factory.open(name, DB_VERSION);
  request.addEventListener('upgradeneeded', (event) => {
    const db = wrap(request.result) as unknown as Database;
    const tx = wrap(request.transaction as IDBTransaction) as unknown as IDBPTransaction<
      MulticamDB,
      StoreNames<MulticamDB>[],
      'versionchange'
    >;
    upgrade(db, event.oldVersion, tx);
  });
  const db = (await wrap(request)) as unknown as Database;
  // A newer version opened elsewhere (another tab, a worker after an update) must not be
  // blocked by this connection: close it and let the newer code take over.
  db.addEventListener('versionchange', () => db.close());
  hooksOf.set(db, hooks);
  return db;
}
