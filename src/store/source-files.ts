/**
 * Claiming a source's file: the upload's parts (or a freshly written run), the file record, the
 * source's `fileId` and the deletion of the file it replaces change in ONE transaction over
 * `jobs`, `files`, `chunks`, `parts` and `runs`. Two requests racing for one source (a client
 * retrying a slow completeMultipartUpload, two PUTs at once) are ordered by IndexedDB: the
 * second sees what the first did, so it can answer the same result and never deletes the
 * first's file, and no chunk is lost or left behind whichever way it ends.
 *
 * @module
 */
import type { Database, FileRecord, JobRecord, PartRecord, SourceRecord } from './db.ts';
import { closeRuns, inTransaction, partKeys, runKeys } from './files.ts';
import { localFileRegistry } from './local-files.ts';

/** What a {@link changeSourceFile} step decided. Fields left out are left as they are. */
export interface SourceFileChange<T> {
  /**
   * The source's file from now on: a new record (its runs are runs this context has just
   * written, or the parts read), or null for none. The file it replaces is deleted with its
   * chunks in the same transaction.
   */
  file?: FileRecord | null;
  /** The source's recorded upload error; null clears it. */
  sizeError?: SourceRecord['sizeError'];
  /** Forget the parts read; their chunks are deleted unless the new file uses them. */
  dropParts?: boolean;
  result: T;
}

/**
 * Reads job `jobId`, its source `sourceId` and the parts of `uploadId` (by part number), lets
 * `step` decide (synchronously: an `await` would commit the transaction early; it may change
 * `job`, e.g. `updatedAt`, and may throw to change nothing), and applies the decision in the
 * same transaction. Resolves `{ found: false }` when the job or source does not exist (nothing
 * changed). A new file whose run was collected meanwhile rejects with RunCollectedError.
 */
export async function changeSourceFile<T>(
  db: Database,
  o: { jobId: string; sourceId: string; uploadId?: string },
  step: (job: JobRecord, source: SourceRecord, parts: PartRecord[]) => SourceFileChange<T>,
): Promise<{ found: false } | { found: true; result: T }> {
  const tx = db.transaction(['jobs', 'files', 'chunks', 'parts', 'runs'], 'readwrite');
  const files = tx.objectStore('files');
  const chunks = tx.objectStore('chunks');
  const partStore = tx.objectStore('parts');
  let released: string | null = null;
  const outcome = await inTransaction(tx, async () => {
    const job = await tx.objectStore('jobs').get(o.jobId);
    const source = job?.sources.find((s) => s.id === o.sourceId);
    const parts =
      o.uploadId === undefined
        ? []
        : (await partStore.getAll(partKeys(o.uploadId))).sort((a, b) => a.partNumber - b.partNumber);
    if (!job || !source) return { found: false as const };
    const change = step(job, source, parts);
    const writes: Array<Promise<unknown>> = [];
    const partRuns = new Set(parts.map((p) => p.chunkFileId));
    const kept = new Set<string>();
    if (change.file !== undefined) {
      const next = change.file;
      if (next) {
        await closeRuns(tx.objectStore('runs'), next.segments, writes, partRuns);
        for (const segment of next.segments) kept.add(segment.chunkFileId);
        writes.push(files.put(next));
      }
      const previousId = source.fileId;
      if (previousId !== null && previousId !== next?.id) {
        const previous = await files.get(previousId);
        if (previous) {
          writes.push(files.delete(previousId));
          for (const segment of previous.segments)
            if (!kept.has(segment.chunkFileId)) writes.push(chunks.delete(runKeys(segment.chunkFileId)));
          if (previous.local) released = previousId;
        }
      }
      source.fileId = next?.id ?? null;
    }
    if (change.sizeError !== undefined) source.sizeError = change.sizeError;
    if (change.dropParts && o.uploadId !== undefined) {
      writes.push(partStore.delete(partKeys(o.uploadId)));
      for (const part of parts) if (!kept.has(part.chunkFileId)) writes.push(chunks.delete(runKeys(part.chunkFileId)));
    }
    if (change.file !== undefined || change.sizeError !== undefined) writes.push(tx.objectStore('jobs').put(job));
    await Promise.all(writes);
    return { found: true as const, result: change.result };
  });
  // A replaced file used in place: this context no longer needs to hold the picked File.
  if (released !== null) localFileRegistry(db.name).release(released);
  return outcome;
}
