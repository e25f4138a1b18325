/**
 * The streamed file writer of src/store/files.ts over fake-indexeddb: pieces of any size are
 * regrouped into 8 MiB chunks, the file reads back byte for byte, and an aborted writer
 * leaves no chunk behind and refuses further writes.
 */
import 'fake-indexeddb/auto';
import { IDBFactory, IDBObjectStore } from 'fake-indexeddb';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { seededRandom } from '../../../src/analysis/signal/random.ts';
import { openDatabase, type Database } from '../../../src/store/db.ts';
import { CHUNK_SIZE, chunkBlob, createFileWriter, getFile, openFileBlob, storeFile } from '../../../src/store/files.ts';

const TOTAL = 16_789_561;
const MiB = 1024 * 1024;

let db: Database;

beforeEach(async () => {
  db = await openDatabase('multicam-file-writer-test', new IDBFactory());
});
afterEach(() => db.close());

/** Seeded bytes, so a misplaced or dropped piece shows as a mismatch. */
function bytesOf(length: number, seed: number): Uint8Array {
  const random = seededRandom(seed);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(random() * 256);
  return out;
}

/** Writes `data` in uneven pieces (1 B to about 3 MiB, several crossing a chunk boundary). */
async function writeUnevenly(write: (piece: Uint8Array) => Promise<void>, data: Uint8Array): Promise<number> {
  const random = seededRandom(99);
  let pieces = 0;
  for (let pos = 0; pos < data.length; pieces++) {
    const n = Math.min(
      data.length - pos,
      pieces % 5 === 0 ? 1 + Math.floor(random() * 1000) : 1 + Math.floor(random() * 3 * MiB),
    );
    await write(data.subarray(pos, pos + n));
    pos += n;
  }
  return pieces;
}

test(`${TOTAL} bytes written in uneven pieces are stored as 8 MiB, 8 MiB and the rest, and read back identical`, async () => {
  expect(CHUNK_SIZE).toBe(8 * MiB);
  const data = bytesOf(TOTAL, 5);
  const writer = createFileWriter(db, 'video/mp4', 1_700_000_000_000);
  const pieces = await writeUnevenly((p) => writer.write(p), data);
  expect(pieces).toBeGreaterThan(5);
  expect(writer.size).toBe(TOTAL);
  const fileId = await writer.close();

  const file = await getFile(db, fileId);
  expect(file).toMatchObject({ id: fileId, size: TOTAL, type: 'video/mp4', createdAt: 1_700_000_000_000 });
  expect(file!.segments).toHaveLength(1);
  expect(file!.segments[0]!.chunkSizes).toEqual([8 * MiB, 8 * MiB, TOTAL - 16 * MiB]);
  const chunks = await db.getAll('chunks');
  expect(chunks.map((c) => [c.fileId, c.index, chunkBlob(c).size])).toEqual(
    [0, 1, 2].map((i) => [file!.segments[0]!.chunkFileId, i, file!.segments[0]!.chunkSizes[i]]),
  );

  const blob = await openFileBlob(db, fileId);
  expect(blob.size).toBe(TOTAL);
  expect(blob.type).toBe('video/mp4');
  const back = new Uint8Array(await blob.arrayBuffer());
  expect(Buffer.compare(Buffer.from(back), Buffer.from(data))).toBe(0);
});

test('abort removes every chunk written so far, writes no file, and a later write or close is refused', async () => {
  const writer = createFileWriter(db, 'audio/wav', 1);
  await writeUnevenly((p) => writer.write(p), bytesOf(9 * MiB, 6));
  expect(await db.count('chunks')).toBe(1);
  await writer.abort();
  expect(await db.count('chunks')).toBe(0);
  expect(await db.count('files')).toBe(0);
  await expect(writer.write(new Uint8Array(10))).rejects.toThrow(/write after the file was aborted/);
  await expect(writer.close()).rejects.toThrow(/close after the file was aborted/);
  expect(await db.count('chunks')).toBe(0);
  // Aborting twice is harmless.
  await writer.abort();
});

test("where IndexedDB refuses Blob values (WebKit's ephemeral sessions), chunks are stored as bytes and read back the same", async () => {
  // Test double of WebKitGTK under WebDriver: a put whose value holds a Blob fails as WebKit's does.
  // Saved to be restored and called with the store as `this` (put.call below).
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const put = IDBObjectStore.prototype.put;
  let refused = 0;
  IDBObjectStore.prototype.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
    if ((value as { blob?: unknown } | null)?.blob instanceof Blob) {
      refused++;
      throw new DOMException('Error preparing Blob/File data to be stored in object store', 'UnknownError');
    }
    return put.call(this, value, key);
  } as typeof put;
  try {
    const data = bytesOf(CHUNK_SIZE * 2 + 1234, 5);
    const fileId = await storeFile(db, new Blob([data as BlobPart]), 'video/mp4', 1);
    const writer = createFileWriter(db, 'video/mp4', 2);
    await writer.write(data.subarray(0, 100));
    const written = await writer.close();
    // Refused once: the database is then known to want bytes.
    expect(refused).toBe(1);
    const chunks = await db.getAll('chunks');
    expect(chunks.every((c) => c.blob instanceof ArrayBuffer)).toBe(true);
    const same = async (id: string, bytes: Uint8Array): Promise<boolean> =>
      Buffer.from(await (await openFileBlob(db, id)).arrayBuffer()).equals(bytes);
    expect(await same(fileId, data)).toBe(true);
    expect(await same(written, data.subarray(0, 100))).toBe(true);
  } finally {
    IDBObjectStore.prototype.put = put;
  }
});
