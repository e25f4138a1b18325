/**
 * The sweeper of orphan chunk runs: bytes an upload, a render or a complete wrote before a
 * crash or a closed tab stopped it, which no file or part record will ever reference.
 *
 * Design: a run is "open" (store `runs`) from the transaction that writes its first chunk
 * until the transaction that references it from a file or part record (files.ts). Its record is
 * touched with every chunk. A run that no file or part references is collected when it has no
 * open record (written before version 3, or its writer's record is gone) or when its record is
 * older than the grace period (its writer has been silent that long: dead). The sweep is one
 * readwrite transaction, so it sees references and open records as one consistent state; a
 * writer that merely stalled past the grace period finds its record gone at its next chunk or
 * when it references the run, and fails with RunCollectedError rather than storing a file with
 * holes.
 *
 * @module
 */
import type { Database } from './db.ts';
import { runKeys } from './files.ts';

/** Default grace period: a run silent this long has no live writer (a signed upload URL lasts an hour). */
export const ORPHAN_GRACE_MS = 6 * 60 * 60 * 1000;

/** What a sweep collected. */
export interface SweepResult {
  /** Orphan runs whose chunks were deleted. */
  runs: number;
  /** Open-run records dropped (of collected runs, and stale ones with no chunk left). */
  records: number;
}

/**
 * Deletes every chunk run referenced by no file and no part record whose writer is gone (see
 * the module comment). Cheap on big stores: chunk keys are walked with a key cursor that jumps
 * from one run to the next (no Blob is loaded, one step per run, not per chunk); file, part and
 * open-run records are small.
 *
 * @example
 * await sweepOrphanRuns(db, { graceMs: ORPHAN_GRACE_MS }); // at engine start
 */
export async function sweepOrphanRuns(
  db: Database,
  options: { graceMs?: number; now?: number } = {},
): Promise<SweepResult> {
  const graceMs = options.graceMs ?? ORPHAN_GRACE_MS;
  const now = options.now ?? Date.now();
  const tx = db.transaction(['chunks', 'files', 'parts', 'runs'], 'readwrite');
  const referenced = new Set<string>();
  const [files, parts, open] = await Promise.all([
    tx.objectStore('files').getAll(),
    tx.objectStore('parts').getAll(),
    tx.objectStore('runs').getAll(),
  ]);
  for (const file of files) for (const segment of file.segments) referenced.add(segment.chunkFileId);
  for (const part of parts) referenced.add(part.chunkFileId);
  const touchedAt = new Map(open.map((r) => [r.chunkFileId, r.touchedAt]));
  const alive = (id: string): boolean => {
    const at = touchedAt.get(id);
    return at !== undefined && now - at < graceMs;
  };

  const writes: Array<Promise<unknown>> = [];
  const result: SweepResult = { runs: 0, records: 0 };
  const chunks = tx.objectStore('chunks');
  let cursor = await chunks.openKeyCursor();
  while (cursor) {
    const [runId] = cursor.key;
    if (!referenced.has(runId) && !alive(runId)) {
      writes.push(chunks.delete(runKeys(runId)));
      result.runs++;
    }
    // Jump past the rest of this run: no index reaches Infinity.
    cursor = await cursor.continue([runId, Infinity]);
  }
  // Records of runs collected, referenced already, or without a chunk and past the grace period.
  for (const [runId] of touchedAt) {
    if (alive(runId) && !referenced.has(runId)) continue;
    writes.push(tx.objectStore('runs').delete(runId));
    result.records++;
  }
  await Promise.all([...writes, tx.done]);
  return result;
}
