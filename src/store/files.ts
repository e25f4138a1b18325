/**
 * Repository of the `files`, `chunks`, `uploads` and `parts` stores: files are stored as
 * 8 MiB Blob chunks keyed `[chunkFileId, index]`, written while the request body streams in,
 * and read back lazily, so no file is ever held whole in memory. A multipart upload stores each
 * part as its own run of chunks; completing it only links the runs into one file record.
 * A run is "open" (store `runs`) from its first chunk until a file or part record references it,
 * so a run whose writer died can be told from one being written (see sweep.ts).
 * See docs/decisions/001-storage.md.
 *
 * @module
 */
import type { ChunkRecord, Database, FileRecord, LocalFileInfo, PartRecord, UploadRecord } from './db.ts';
import { MEDIA_SNIFF_BYTES } from '../contract/media-sniff.ts';
import { localFileRegistry } from './local-files.ts';

/** Bytes per stored chunk. */
export const CHUNK_SIZE = 8 * 1024 * 1024;

/** A run of chunks just written. */
export interface WrittenRun {
  chunkFileId: string;
  chunkSizes: number[];
  size: number;
}

/** Thrown by {@link writeRun} when the stream is longer than allowed (its chunks are already deleted). */
export class StreamTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the body is larger than ${maxBytes} bytes`);
    this.name = 'StreamTooLargeError';
  }
}

/**
 * Thrown when a run being written or referenced has lost its open-run record: the sweeper
 * collected it (its writer was silent longer than the grace period) or it was deleted. Its
 * bytes are gone; the writer must start again.
 */
export class RunCollectedError extends Error {
  constructor(readonly chunkFileId: string) {
    super(`the bytes written so far were collected after a long pause (run ${chunkFileId}); send the file again`);
    this.name = 'RunCollectedError';
  }
}

/** All chunk keys of one run. */
export function runKeys(chunkFileId: string): IDBKeyRange {
  return IDBKeyRange.bound([chunkFileId, 0], [chunkFileId, Infinity]);
}

/** A stored chunk's bytes as a Blob, however they were stored (see {@link ChunkRecord}). */
export function chunkBlob(chunk: ChunkRecord): Blob {
  return chunk.blob instanceof Blob ? chunk.blob : new Blob([chunk.blob]);
}

/**
 * Databases that refused a Blob value and took the same bytes as an ArrayBuffer: their later
 * chunks are stored as bytes at once (each refusal costs an aborted transaction).
 */
const blobsRefused = new WeakSet<Database>();

/**
 * Writes chunk `index` of a run and touches the run's open record in the same transaction (the
 * first chunk creates it). A later chunk whose record is gone fails with {@link RunCollectedError}
 * instead of writing a chunk no one would ever reference.
 */
async function putChunk(db: Database, chunkFileId: string, index: number, blob: Blob): Promise<void> {
  if (blobsRefused.has(db)) return putChunkValue(db, chunkFileId, index, await blob.arrayBuffer());
  try {
    await putChunkValue(db, chunkFileId, index, blob);
  } catch (error) {
    if (error instanceof RunCollectedError || !refusesBlob(error)) throw error;
    // Read outside any transaction (a transaction closes while a Blob is read), then retry.
    await putChunkValue(db, chunkFileId, index, await blob.arrayBuffer());
    blobsRefused.add(db);
  }
}

/** WebKit's refusal of a Blob value in an ephemeral session (an UnknownError naming Blob data). */
function refusesBlob(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /Blob\/File data/i.test(message);
}

async function putChunkValue(
  db: Database,
  chunkFileId: string,
  index: number,
  blob: Blob | ArrayBuffer,
): Promise<void> {
  const tx = db.transaction(['chunks', 'runs'], 'readwrite');
  const runs = tx.objectStore('runs');
  if (index > 0 && !(await runs.get(chunkFileId))) {
    tx.abort();
    await tx.done.catch(() => undefined);
    throw new RunCollectedError(chunkFileId);
  }
  await Promise.all([
    tx.objectStore('chunks').put({ fileId: chunkFileId, index, blob }),
    runs.put({ chunkFileId, touchedAt: Date.now() }),
    tx.done,
  ]);
}

/**
 * Streams `body` into chunk records, one transaction per chunk (nothing else is awaited
 * inside them). On any error the chunks written so far are deleted. The run stays open (see
 * {@link RunCollectedError}) until a file or part record references it.
 */
export async function writeRun(
  db: Database,
  body: ReadableStream<Uint8Array> | Blob | null,
  maxBytes: number,
): Promise<WrittenRun> {
  const chunkFileId = crypto.randomUUID();
  const chunkSizes: number[] = [];
  let size = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;

  const flush = async (bytes: number): Promise<void> => {
    // Take exactly `bytes` from the pending pieces; the rest stays pending.
    const take: Uint8Array[] = [];
    let need = bytes;
    while (need > 0) {
      const piece = pending[0]!;
      if (piece.byteLength <= need) {
        take.push(piece);
        pending.shift();
        need -= piece.byteLength;
      } else {
        take.push(piece.subarray(0, need));
        pending[0] = piece.subarray(need);
        need = 0;
      }
    }
    pendingBytes -= bytes;
    const blob = new Blob(take as BlobPart[]);
    await putChunk(db, chunkFileId, chunkSizes.length, blob);
    chunkSizes.push(bytes);
  };

  try {
    if (body instanceof Blob) {
      if (body.size > maxBytes) throw new StreamTooLargeError(maxBytes);
      for (let offset = 0; offset < body.size; offset += CHUNK_SIZE) {
        const blob = body.slice(offset, Math.min(body.size, offset + CHUNK_SIZE));
        await putChunk(db, chunkFileId, chunkSizes.length, blob);
        chunkSizes.push(blob.size);
      }
      size = body.size;
    } else if (body) {
      const reader = body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          size += value.byteLength;
          if (size > maxBytes) throw new StreamTooLargeError(maxBytes);
          pending.push(value);
          pendingBytes += value.byteLength;
          while (pendingBytes >= CHUNK_SIZE) await flush(CHUNK_SIZE);
        }
      } finally {
        reader.releaseLock();
      }
      if (pendingBytes > 0) await flush(pendingBytes);
      pending = [];
    }
  } catch (error) {
    await deleteRun(db, chunkFileId);
    throw error;
  }
  return { chunkFileId, chunkSizes, size };
}

/** Deletes the chunks of one run and its open record, in one transaction. */
export async function deleteRun(db: Database, chunkFileId: string): Promise<void> {
  const tx = db.transaction(['chunks', 'runs'], 'readwrite');
  await Promise.all([
    tx.objectStore('chunks').delete(runKeys(chunkFileId)),
    tx.objectStore('runs').delete(chunkFileId),
    tx.done,
  ]);
}

/** The first bytes of a run (at most {@link MEDIA_SNIFF_BYTES}; none for an empty run), to sniff what it holds. */
export async function readRunHead(db: Database, chunkFileId: string): Promise<Uint8Array> {
  const chunk = await db.get('chunks', [chunkFileId, 0]);
  if (!chunk) return new Uint8Array(0);
  return new Uint8Array(await chunkBlob(chunk).slice(0, MEDIA_SNIFF_BYTES).arrayBuffer());
}

/** A store of a transaction that includes `runs`. */
type RunsStore = { get(key: string): Promise<unknown>; delete(key: string): Promise<unknown> };

/**
 * Inside a transaction that references the runs of `segments`: checks that each non-empty run is still
 * open (else {@link RunCollectedError}) and closes it, unless `owned` says the run is already
 * referenced (a part being turned into the file). The deletes join `writes`.
 */
export async function closeRuns(
  runs: RunsStore,
  segments: FileRecord['segments'],
  writes: Array<Promise<unknown>>,
  owned: ReadonlySet<string> = new Set(),
): Promise<void> {
  for (const { chunkFileId, chunkSizes } of segments) {
    if (chunkSizes.length === 0 || owned.has(chunkFileId)) continue;
    if (!(await runs.get(chunkFileId))) throw new RunCollectedError(chunkFileId);
    writes.push(runs.delete(chunkFileId));
  }
}

/** Runs `body` over `tx`; aborts the transaction when it throws, so nothing of it is kept. */
export async function inTransaction<T>(tx: { abort(): void; done: Promise<void> }, body: () => Promise<T>): Promise<T> {
  try {
    const result = await body();
    await tx.done;
    return result;
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // already finished
    }
    await tx.done.catch(() => undefined);
    throw error;
  }
}

/** Stores a file record for runs this context has just written (closing them), in one transaction. */
export async function putFile(db: Database, file: FileRecord): Promise<void> {
  const tx = db.transaction(['files', 'runs'], 'readwrite');
  await inTransaction(tx, async () => {
    const writes: Array<Promise<unknown>> = [];
    await closeRuns(tx.objectStore('runs'), file.segments, writes);
    writes.push(tx.objectStore('files').put(file));
    await Promise.all(writes);
  });
}

/** A file record by id. */
export async function getFile(db: Database, fileId: string): Promise<FileRecord | undefined> {
  return db.get('files', fileId);
}

/** Writes a whole file (renders, audio) and returns its id. */
export async function storeFile(
  db: Database,
  body: ReadableStream<Uint8Array> | Blob,
  type: string,
  now: number,
  maxBytes = Number.MAX_SAFE_INTEGER,
): Promise<string> {
  const run = await writeRun(db, body, maxBytes);
  const id = crypto.randomUUID();
  await putFile(db, {
    id,
    size: run.size,
    type,
    segments: [{ chunkFileId: run.chunkFileId, chunkSizes: run.chunkSizes }],
    createdAt: now,
  });
  return id;
}

/**
 * Appends a file chunk by chunk as its bytes are produced (a render's output), so the file is
 * never held whole: at most one 8 MiB chunk is pending. {@link FileWriter.close} stores the
 * file record and gives its id; {@link FileWriter.abort} deletes what was written.
 */
export interface FileWriter {
  /** Appends bytes (copied: the caller may reuse its buffer). */
  write(data: Uint8Array): Promise<void>;
  /** Bytes written so far. */
  readonly size: number;
  /** Flushes the last chunk, stores the file record and returns the file id. */
  close(): Promise<string>;
  /** Deletes the chunks written so far; the writer is unusable afterwards. */
  abort(): Promise<void>;
}

/**
 * Starts a streamed file of MIME `type`.
 *
 * @example
 * const writer = createFileWriter(db, 'video/mp4', Date.now());
 * await writer.write(bytes);
 * const fileId = await writer.close();
 */
export function createFileWriter(db: Database, type: string, now: number): FileWriter {
  const chunkFileId = crypto.randomUUID();
  const chunkSizes: number[] = [];
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let size = 0;
  let state: 'open' | 'closed' | 'aborted' = 'open';
  const flush = async (): Promise<void> => {
    if (pendingBytes === 0) return;
    const blob = new Blob(pending as BlobPart[]);
    const bytes = pendingBytes;
    pending = [];
    pendingBytes = 0;
    await putChunk(db, chunkFileId, chunkSizes.length, blob);
    chunkSizes.push(bytes);
  };
  const assertOpen = (what: string): void => {
    if (state !== 'open') throw new Error(`file writer: ${what} after the file was ${state}`);
  };
  return {
    get size() {
      return size;
    },
    async write(data) {
      assertOpen('write');
      let offset = 0;
      while (offset < data.byteLength) {
        const n = Math.min(CHUNK_SIZE - pendingBytes, data.byteLength - offset);
        pending.push(data.slice(offset, offset + n));
        pendingBytes += n;
        offset += n;
        if (pendingBytes === CHUNK_SIZE) await flush();
      }
      size += data.byteLength;
    },
    async close() {
      assertOpen('close');
      state = 'closed';
      await flush();
      const id = crypto.randomUUID();
      await putFile(db, { id, size, type, segments: [{ chunkFileId, chunkSizes }], createdAt: now });
      return id;
    },
    async abort() {
      if (state === 'aborted') return;
      state = 'aborted';
      pending = [];
      pendingBytes = 0;
      // The whole key range: a put in flight when abort came is ordered before this delete,
      // and a later one finds the open record gone.
      await deleteRun(db, chunkFileId);
    },
  };
}

/**
 * Records a file used in place (nothing of it is stored) and keeps `file` in this context's
 * registry; returns its id. See local-files.ts.
 */
export async function putLocalFile(
  db: Database,
  file: File,
  o: { type: string; now: number; handle?: FileSystemFileHandle },
): Promise<string> {
  const id = crypto.randomUUID();
  const local: LocalFileInfo = {
    name: file.name,
    lastModified: file.lastModified,
    ...(o.handle ? { handle: o.handle } : {}),
  };
  await putFile(db, { id, size: file.size, type: o.type, segments: [], createdAt: o.now, local });
  localFileRegistry(db.name).hold(id, file);
  return id;
}

/** Deletes a file record and every chunk of it in one transaction (a file used in place is only forgotten). */
export async function deleteFile(db: Database, fileId: string): Promise<void> {
  const tx = db.transaction(['files', 'chunks'], 'readwrite');
  const file = await inTransaction(tx, async () => {
    const found = await tx.objectStore('files').get(fileId);
    if (found) {
      await Promise.all([
        tx.objectStore('files').delete(fileId),
        ...found.segments.map((s) => tx.objectStore('chunks').delete(runKeys(s.chunkFileId))),
      ]);
    }
    return found;
  });
  if (file?.local) localFileRegistry(db.name).release(fileId);
}

/** The chunk pieces covering bytes `[start, end)` of `file`, in order. */
function piecesOf(
  file: FileRecord,
  start: number,
  end: number,
): Array<{ chunkFileId: string; index: number; from: number; to: number }> {
  const pieces: Array<{ chunkFileId: string; index: number; from: number; to: number }> = [];
  let offset = 0;
  for (const segment of file.segments) {
    for (let index = 0; index < segment.chunkSizes.length; index++) {
      const chunkSize = segment.chunkSizes[index]!;
      const chunkStart = offset;
      const chunkEnd = offset + chunkSize;
      offset = chunkEnd;
      if (chunkEnd <= start || chunkStart >= end) continue;
      pieces.push({
        chunkFileId: segment.chunkFileId,
        index,
        from: Math.max(start, chunkStart) - chunkStart,
        to: Math.min(end, chunkEnd) - chunkStart,
      });
    }
  }
  return pieces;
}

async function readChunk(db: Database, chunkFileId: string, index: number): Promise<Blob> {
  const chunk = await db.get('chunks', [chunkFileId, index]);
  if (!chunk) throw new Error(`chunk ${index} of ${chunkFileId} is missing`);
  return chunkBlob(chunk);
}

/**
 * Rewrites the first bytes of a stored file in place: `patch` gets the first `headBytes` of its
 * first chunk (fewer when the chunk is shorter) and returns bytes of the same length, or null to
 * leave the file as it is. Used once a streamed file is complete, to write what only the end
 * knows into its header (src/media/fmp4-duration.ts). Returns whether the file was changed.
 */
export async function rewriteFileStart(
  db: Database,
  fileId: string,
  patch: (head: Uint8Array) => Uint8Array | null,
  headBytes = 64 * 1024,
): Promise<boolean> {
  const file = await db.get('files', fileId);
  const run = file?.segments[0];
  if (!run || run.chunkSizes.length === 0) return false;
  // Read outside any transaction (a transaction closes while a Blob is read).
  const chunk = await readChunk(db, run.chunkFileId, 0);
  const head = new Uint8Array(await chunk.slice(0, headBytes).arrayBuffer());
  const patched = patch(head);
  if (patched === null) return false;
  if (patched.byteLength !== head.byteLength)
    throw new Error(`rewriteFileStart: the patch gave ${patched.byteLength} bytes for ${head.byteLength}`);
  const whole = new Blob([patched as BlobPart, chunk.slice(head.byteLength)]);
  const put = (blob: Blob | ArrayBuffer) => db.put('chunks', { fileId: run.chunkFileId, index: 0, blob });
  if (blobsRefused.has(db)) await put(await whole.arrayBuffer());
  else {
    try {
      await put(whole);
    } catch (error) {
      if (!refusesBlob(error)) throw error;
      await put(await whole.arrayBuffer());
      blobsRefused.add(db);
    }
  }
  return true;
}

/**
 * A composed Blob of the file's chunks (browsers reference chunk Blobs rather than copying
 * them). Rejects when the file does not exist.
 */
export async function openFileBlob(db: Database, fileId: string): Promise<Blob> {
  const file = await db.get('files', fileId);
  if (!file) throw new Error(`file ${fileId} does not exist`);
  if (file.local) return localFileRegistry(db.name).resolve(file);
  const blobs: Blob[] = [];
  for (const piece of piecesOf(file, 0, file.size)) blobs.push(await readChunk(db, piece.chunkFileId, piece.index));
  return new Blob(blobs, { type: file.type });
}

/**
 * Bytes `[start, end)` as a response body: a stream that reads one stored chunk at a time, on
 * demand, or a slice of the file used in place (rejects with LocalFileUnavailableError when no
 * context holds it).
 */
export async function readRange(db: Database, file: FileRecord, start: number, end: number): Promise<BodyInit> {
  if (file.local) return (await localFileRegistry(db.name).resolve(file)).slice(start, end);
  return streamRange(db, file, start, end);
}

/** Bytes `[start, end)` of a stored file as a stream that reads one chunk at a time, on demand. */
function streamRange(db: Database, file: FileRecord, start: number, end: number): ReadableStream<Uint8Array> {
  const pieces = piecesOf(file, start, end);
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const piece = pieces[next++];
      if (!piece) {
        controller.close();
        return;
      }
      const blob = await readChunk(db, piece.chunkFileId, piece.index);
      controller.enqueue(new Uint8Array(await blob.slice(piece.from, piece.to).arrayBuffer()));
    },
  });
}

// ---- multipart uploads ----

/** Stores a multipart upload record. */
export async function putUpload(db: Database, upload: UploadRecord): Promise<void> {
  await db.put('uploads', upload);
}

/** A multipart upload by id. */
export async function getUpload(db: Database, uploadId: string): Promise<UploadRecord | undefined> {
  return db.get('uploads', uploadId);
}

/** The multipart uploads of a job (deleteJob removes them). */
export async function uploadsOfJob(db: Database, jobId: string): Promise<UploadRecord[]> {
  return db.getAllFromIndex('uploads', 'by-job', jobId);
}

/**
 * Stores a part (closing its run), replacing and deleting an earlier upload of the same part
 * number, in one transaction.
 */
export async function putPart(db: Database, part: PartRecord): Promise<void> {
  const tx = db.transaction(['parts', 'chunks', 'runs'], 'readwrite');
  await inTransaction(tx, async () => {
    const writes: Array<Promise<unknown>> = [];
    const segment = { chunkFileId: part.chunkFileId, chunkSizes: part.chunkSizes };
    await closeRuns(tx.objectStore('runs'), [segment], writes);
    const previous = await tx.objectStore('parts').get([part.uploadId, part.partNumber]);
    if (previous && previous.chunkFileId !== part.chunkFileId)
      writes.push(tx.objectStore('chunks').delete(runKeys(previous.chunkFileId)));
    writes.push(tx.objectStore('parts').put(part));
    await Promise.all(writes);
  });
}

/** The stored parts of an upload, by part number. */
export async function partsOf(db: Database, uploadId: string): Promise<PartRecord[]> {
  return db.getAll('parts', partKeys(uploadId));
}

/** All part keys of one upload. */
export function partKeys(uploadId: string): IDBKeyRange {
  return IDBKeyRange.bound([uploadId, 0], [uploadId, Infinity]);
}

/** Deletes the parts of an upload and their bytes in one transaction (abort); with `upload`, the upload record too. */
export async function dropParts(db: Database, uploadId: string, upload = false): Promise<void> {
  const tx = db.transaction(['parts', 'chunks', 'uploads'], 'readwrite');
  await inTransaction(tx, async () => {
    const parts = await tx.objectStore('parts').getAll(partKeys(uploadId));
    await Promise.all([
      tx.objectStore('parts').delete(partKeys(uploadId)),
      ...parts.map((p) => tx.objectStore('chunks').delete(runKeys(p.chunkFileId))),
      ...(upload ? [tx.objectStore('uploads').delete(uploadId)] : []),
    ]);
  });
}

/** Deletes an upload record together with its parts and their bytes, in one transaction. */
export async function deleteUpload(db: Database, uploadId: string): Promise<void> {
  await dropParts(db, uploadId, true);
}
