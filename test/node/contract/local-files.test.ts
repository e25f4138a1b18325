/**
 * Files used in place (attachLocalFile): the storage check, the checks of a picked file, that
 * nothing is stored, and the way back when no page holds the file. The cross-page and service
 * worker paths run in Chromium (test/browser/demo.test.ts): Node's BroadcastChannel clones a
 * File as a plain Blob.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ApiError } from '../../../src/contract/errors.ts';
import { getFile, openFileBlob } from '../../../src/store/files.ts';
import { LocalFileUnavailableError, localFileRegistry } from '../../../src/store/local-files.ts';
import { bearerCaller, createNodeHarness, type LooseJson, type NodeHarness } from '../../contract/node-harness.ts';

let h: NodeHarness;
afterEach(async () => h?.dispose());

type Json = LooseJson;

const call = bearerCaller(() => h);

const picked = (name: string, size: number, lastModified = 1_700_000_000_000): File =>
  new File([new Uint8Array(size).fill(7)], name, { type: 'video/mp4', lastModified });

async function localJob(apiKey: string, sizes = [1000, 2000]): Promise<{ jobId: string; ids: string[] }> {
  const created = await call(apiKey, 'POST', '/jobs', {
    sources: sizes.map((fileSize, i) => ({ label: `Cam ${i + 1}`, ext: 'mp4', fileSize, local: true })),
  });
  expect(created.status).toBe(200);
  return { jobId: created.body.jobId, ids: Object.keys(created.body.uploads) };
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('createJob with sources used in place', () => {
  test('local sources count only towards the render in the storage check; local needs a fileSize; the Job shows it', async () => {
    h = await createNodeHarness({ storageEstimate: async () => ({ quota: 10e9, usage: 9.3e9 }) });
    const { apiKey } = await h.service.accounts.create();
    const sources = [
      { label: 'A', fileSize: 1e9 },
      { label: 'B', fileSize: 1e9 },
    ];
    const copied = await call(apiKey, 'POST', '/jobs', { sources });
    expect(copied.status).toBe(507);
    expect(copied.body.error).toContain('use the files in place');
    // In place: 25 % of 2 GB for the render and 10 % for the cameras' proxies (stored even for
    // files used in place) fit in the 0.7 GB left.
    const inPlace = await call(apiKey, 'POST', '/jobs', { sources: sources.map((s) => ({ ...s, local: true })) });
    expect(inPlace.status).toBe(200);
    const job = await call(apiKey, 'GET', `/jobs/${inPlace.body.jobId}`);
    expect(job.body.job.sources.map((s: Json) => s.local)).toEqual([true, true]);
    const noSize = await call(apiKey, 'POST', '/jobs', { sources: [{ label: 'A', local: true }] });
    expect(noSize.status).toBe(400);
    expect(noSize.body).toMatchObject({ code: 'INVALID_FILE_SIZE', sourceIndex: 0 });
    expect(noSize.body.error).toContain('sources[0].fileSize is required with local: true');
    const notBool = await call(apiKey, 'POST', '/jobs', { sources: [{ label: 'A', fileSize: 1, local: 'yes' }] });
    expect(notBool.status).toBe(400);
    expect(notBool.body.error).toBe('sources[0].local must be a boolean');
  });
});

describe('attachLocalFile', () => {
  test('a picked file becomes the source in place: no chunk stored, the same File read back, processing starts', async () => {
    h = await createNodeHarness();
    const { apiKey } = await h.service.accounts.create();
    const { jobId, ids } = await localJob(apiKey);
    const files = [picked('cam1.mp4', 1000), picked('cam2.mp4', 2000)];
    const results = await Promise.all(ids.map((id, i) => h.service.attachLocalFile(jobId, id, files[i]!)));
    expect(results.map((r) => r.reattached)).toEqual([false, false]);
    expect(await h.db.count('chunks')).toBe(0);
    const record = await getFile(h.db, results[0]!.fileId);
    expect(record).toMatchObject({ size: 1000, type: 'video/mp4', segments: [], local: { name: 'cam1.mp4' } });
    expect(await openFileBlob(h.db, results[0]!.fileId)).toBe(files[0]);
    const started = await call(apiKey, 'POST', `/jobs/${jobId}/process`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
  });

  test('a file of another size is refused (FILE_SIZE_MISMATCH, reported again by startProcessing); unknown sources are 404', async () => {
    h = await createNodeHarness();
    const { apiKey } = await h.service.accounts.create();
    const { jobId, ids } = await localJob(apiKey);
    const wrong = await refusal(h.service.attachLocalFile(jobId, ids[0]!, picked('other.mp4', 999)));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'FILE_SIZE_MISMATCH', sourceId: ids[0] });
    expect(wrong.message).toContain('"other.mp4", is 999 bytes but its declared fileSize is 1000');
    expect(await h.db.count('files')).toBe(0);
    await h.service.attachLocalFile(jobId, ids[1]!, picked('cam2.mp4', 2000));
    const started = await call(apiKey, 'POST', `/jobs/${jobId}/process`);
    expect(started.status).toBe(400);
    expect(started.body.code).toBe('FILE_SIZE_MISMATCH');
    const missing = await refusal(h.service.attachLocalFile(jobId, 'src_nope', picked('cam1.mp4', 1000)));
    expect(missing.status).toBe(404);
  });

  test('when no page holds the file: a clear error; the same file picked again (any status) reads again; another file is refused', async () => {
    h = await createNodeHarness();
    const { apiKey } = await h.service.accounts.create();
    const { jobId, ids } = await localJob(apiKey);
    const cam1 = picked('cam1.mp4', 1000);
    const { fileId } = await h.service.attachLocalFile(jobId, ids[0]!, cam1);
    await h.service.attachLocalFile(jobId, ids[1]!, picked('cam2.mp4', 2000));
    expect((await call(apiKey, 'POST', `/jobs/${jobId}/process`)).status).toBe(200);
    // A reload: the page that held the file is gone (and no other answers).
    localFileRegistry(h.db.name).release(fileId);
    const lost = await openFileBlob(h.db, fileId).then(
      () => null,
      (e: unknown) => e,
    );
    expect(lost).toBeInstanceOf(LocalFileUnavailableError);
    expect((lost as Error).message).toMatch(
      /"cam1\.mp4" \(0\.0 MB\) is used in place .* no open page holds it.*pick it again/,
    );
    // A different file is not taken once processing started.
    const other = await refusal(h.service.attachLocalFile(jobId, ids[0]!, picked('cam1.mp4', 1000, 1_800_000_000_000)));
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('INVALID_STATUS');
    expect(other.message).toContain('pick that file again');
    // The same file (name, size, modification time) is.
    const again = picked('cam1.mp4', 1000);
    expect(await h.service.attachLocalFile(jobId, ids[0]!, again)).toEqual({
      jobId,
      sourceId: ids[0],
      fileId,
      reattached: true,
    });
    expect(await openFileBlob(h.db, fileId)).toBe(again);
  });

  test('a held file that changed on disk since it was picked is refused with that reason', async () => {
    h = await createNodeHarness();
    const { apiKey } = await h.service.accounts.create();
    const { jobId, ids } = await localJob(apiKey);
    const { fileId } = await h.service.attachLocalFile(jobId, ids[0]!, picked('cam1.mp4', 1000));
    localFileRegistry(h.db.name).hold(fileId, picked('cam1.mp4', 1000, 1_800_000_000_000));
    await expect(openFileBlob(h.db, fileId)).rejects.toThrow(/changed on disk since it was picked/);
  });

  test('deleting the job forgets the file (nothing to delete on disk)', async () => {
    h = await createNodeHarness();
    const { apiKey } = await h.service.accounts.create();
    const { jobId, ids } = await localJob(apiKey);
    const { fileId } = await h.service.attachLocalFile(jobId, ids[0]!, picked('cam1.mp4', 1000));
    expect((await call(apiKey, 'DELETE', `/jobs/${jobId}`)).status).toBe(200);
    expect(await getFile(h.db, fileId)).toBeUndefined();
    expect(localFileRegistry(h.db.name).held(fileId)).toBeUndefined();
  });
});
