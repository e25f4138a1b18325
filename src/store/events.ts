/**
 * Repository of the `events` store (the webhook outbox). Events are written by
 * {@link "./jobs.ts".updateJob} in the transaction of their transition; this module builds
 * records and reads them back.
 *
 * @module
 */
import type { EventType } from '../contract/types.ts';
import type { Database, EventRecord, JobRecord } from './db.ts';

/** A new outbox record for `job` (counted on the job); delivery `skipped` when the job has no callbackUrl. */
export function makeEvent(job: JobRecord, type: EventType, payload: Record<string, unknown>, now: number): EventRecord {
  job.eventCount += 1;
  return {
    seq: job.eventCount,
    id: `msg_${crypto.randomUUID()}`,
    accountId: job.accountId,
    jobId: job.id,
    type,
    payload,
    callbackUrl: job.callbackUrl,
    createdAt: now,
    delivery: { state: job.callbackUrl === null ? 'skipped' : 'pending', attempts: 0, nextAttemptAt: now, log: [] },
  };
}

/** Events of one job, oldest first. */
export async function listEventsForJob(db: Database, jobId: string): Promise<EventRecord[]> {
  const events = await db.getAllFromIndex('events', 'by-job', jobId);
  return events.sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq);
}
