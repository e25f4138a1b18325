/**
 * Repository of the `jobs` store. Every status change goes through {@link updateJob}, which
 * writes the job and its events in one transaction (the outbox guarantee).
 *
 * @module
 */
import { databaseHooks, type Database, type EventRecord, type JobRecord, type UploadRecord } from './db.ts';

/** What {@link insertJob} writes with the job, in the same transaction. */
export interface NewJobExtras {
  /** The job's multipart uploads. */
  uploads?: readonly UploadRecord[];
  /**
   * The `Idempotency-Key` the request claimed (claimIdempotencyKey): marked done with the job's
   * id, so a crash can never leave a job without its key (a retry would create a second job).
   */
  idempotencyKey?: string;
}

/**
 * Stores a new job with the next creation sequence number, and `extras`, in one transaction:
 * either all of it is stored or none.
 */
export async function insertJob(
  db: Database,
  job: Omit<JobRecord, 'seq'>,
  extras: NewJobExtras = {},
): Promise<JobRecord> {
  const tx = db.transaction(['jobs', 'meta', 'uploads', 'idempotency'], 'readwrite');
  const meta = tx.objectStore('meta');
  const counter = await meta.get('jobSeq');
  const seq = (typeof counter?.value === 'number' ? counter.value : 0) + 1;
  const record: JobRecord = { ...job, seq };
  const writes: Array<Promise<unknown>> = [
    meta.put({ key: 'jobSeq', value: seq }),
    tx.objectStore('jobs').add(record),
    ...(extras.uploads ?? []).map((upload) => tx.objectStore('uploads').put(upload)),
  ];
  if (extras.idempotencyKey !== undefined) {
    const idempotency = tx.objectStore('idempotency');
    const claim = await idempotency.get([job.accountId, extras.idempotencyKey]);
    if (!claim) throw new Error(`the Idempotency-Key claim of job ${job.id} is gone`);
    writes.push(idempotency.put({ ...claim, state: 'done', jobId: job.id }));
  }
  await Promise.all([...writes, tx.done]);
  return record;
}

/** A job by id, whatever its account. */
export async function getJobRecord(db: Database, jobId: string): Promise<JobRecord | undefined> {
  return db.get('jobs', jobId);
}

/** The account's newest jobs first. */
export async function listJobsForAccount(db: Database, accountId: string, limit: number): Promise<JobRecord[]> {
  const jobs: JobRecord[] = [];
  const range = IDBKeyRange.bound([accountId, -Infinity], [accountId, Infinity]);
  let cursor = await db.transaction('jobs').store.index('by-account-seq').openCursor(range, 'prev');
  while (cursor && jobs.length < limit) {
    jobs.push(cursor.value);
    cursor = await cursor.continue();
  }
  return jobs;
}

/** What an {@link updateJob} step decided. */
export interface JobUpdate<T> {
  /** The changed job to store, or null to leave it as it was. */
  job: JobRecord | null;
  /** Events caused by the change (stored in the same transaction). */
  events?: EventRecord[];
  result: T;
}

/**
 * Read-modify-write of one job and its events in one transaction. `step` must be synchronous
 * (an `await` inside would let the transaction commit early). Resolves `undefined` when the
 * job does not exist. Once a transaction that recorded events has committed, the
 * connection's `onEventsRecorded` hook (given to `openDatabase`) gets their ids.
 */
export async function updateJob<T>(
  db: Database,
  jobId: string,
  step: (job: JobRecord) => JobUpdate<T>,
): Promise<T | undefined> {
  const tx = db.transaction(['jobs', 'events'], 'readwrite');
  const jobs = tx.objectStore('jobs');
  const job = await jobs.get(jobId);
  if (!job) {
    await tx.done;
    return undefined;
  }
  let outcome: JobUpdate<T>;
  try {
    outcome = step(job);
  } catch (error) {
    tx.abort();
    await tx.done.catch(() => undefined);
    throw error;
  }
  const writes: Array<Promise<unknown>> = [];
  if (outcome.job) writes.push(jobs.put(outcome.job));
  for (const event of outcome.events ?? []) writes.push(tx.objectStore('events').add(event));
  await Promise.all([...writes, tx.done]);
  // After the commit, tell whoever opened the database (the service nudges the webhook
  // dispatcher and in-page subscribers in every context: the service worker records events on
  // routes such as approve; the dispatcher runs in a page).
  const recorded = outcome.events ?? [];
  const { onEventsRecorded } = databaseHooks(db);
  if (recorded.length > 0 && onEventsRecorded) onEventsRecorded(recorded.map((event) => event.id));
  return outcome.result;
}

/**
 * Removes the job record and its webhook outbox in one transaction (its files are deleted by
 * the caller) and returns the record as it was, or undefined when there was none. Events carry the job's data (reviewUrl, cuts, output URL), so they go too: an
 * event not yet delivered is about a job that no longer exists.
 */
export async function deleteJobRecord(db: Database, jobId: string): Promise<JobRecord | undefined> {
  const tx = db.transaction(['jobs', 'events'], 'readwrite');
  // The record as it was when deleted: a file recorded on it after the caller read the job (a
  // proxy finishing) is still the caller's to delete.
  const job = await tx.objectStore('jobs').get(jobId);
  const eventIds = await tx.objectStore('events').index('by-job').getAllKeys(jobId);
  await Promise.all([
    tx.objectStore('jobs').delete(jobId),
    ...eventIds.map((id) => tx.objectStore('events').delete(id)),
    tx.done,
  ]);
  return job;
}
