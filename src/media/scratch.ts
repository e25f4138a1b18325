/**
 * Speaker detection's scratch space in the origin's private file system: the channels of a
 * per-mic job as raw 32-bit floats, and the job's mix as a 16-bit WAV file, written and read
 * through sync access handles (a dedicated worker's API). An hour of three mics at 16 kHz is
 * 0.7 GB: on disk, not in memory, while the VAD runs; the WAV goes to the job's store from
 * disk instead of sitting in a Blob in memory.
 *
 * Each diarize call has a folder of its own; what a crashed one left behind is removed by the
 * next call once it is old enough that no running call can own it.
 *
 * @module
 */
import type { SampleReader } from '../analysis/signal/sample-reader.ts';
import { wavHeader } from './wav.ts';
import type { MonoOutput } from './mono-writer.ts';
import type { ScratchFileRef } from './protocol.ts';

/** Folders of diarize calls in the private file system's root: `multicam-diarize-<ms since epoch>-<uuid>`. */
export const SCRATCH_PREFIX = 'multicam-diarize-';

/** A folder older than this belongs to no running call (the longest diarize tested takes minutes). */
const STALE_MS = 6 * 3600_000;

type Dir = FileSystemDirectoryHandle & { entries(): AsyncIterable<[string, FileSystemHandle]> };

/** A short write: the disk or the origin's quota is full. */
function fullWrite(written: number, wanted: number, name: string): void {
  if (written !== wanted)
    throw new DOMException(`scratch file ${name}: wrote ${written} of ${wanted} bytes`, 'QuotaExceededError');
}

/** A mono signal written in order, then read by range ({@link SampleReader}); a file already there is read from. */
export class ScratchSamples implements SampleReader {
  private samples: number;
  /** A write fell short or failed (the disk or the origin's quota is full): the file is not to be used. */
  writeFailed = false;

  constructor(
    private readonly access: FileSystemSyncAccessHandle,
    readonly name: string,
    /** Opened read-only ({@link openReadOnly}): other workers may read the file at the same time. */
    readonly readOnly = false,
  ) {
    this.samples = Math.floor(access.getSize() / 4);
  }

  get length(): number {
    return this.samples;
  }

  /** Appends samples at the end. */
  append(samples: Float32Array): void {
    this.write(this.samples, samples);
  }

  /** Writes `samples` from sample `at` on (over what is there). */
  write(at: number, samples: Float32Array): void {
    try {
      fullWrite(this.access.write(samples, { at: at * 4 }), samples.byteLength, this.name);
    } catch (error) {
      this.writeFailed = true;
      throw error;
    }
    this.samples = Math.max(this.samples, at + samples.length);
  }

  read(from: number, to: number): Float32Array {
    const a = Math.max(0, from);
    const out = new Float32Array(Math.max(0, Math.min(this.samples, to) - a));
    this.access.read(out, { at: a * 4 });
    return out;
  }

  /** The whole signal. */
  readAll(): Float32Array {
    const out = new Float32Array(this.samples);
    this.access.read(out, { at: 0 });
    return out;
  }

  /** Keeps the first `length` samples. */
  truncate(length: number): void {
    if (length >= this.samples) return;
    this.access.truncate(length * 4);
    this.samples = length;
  }

  close(): void {
    this.access.close();
  }
}

/** Samples a decoder's output gathers before a write (a decoded slice is about 1 k samples: a write each would cost seconds an hour). */
const OUTPUT_BUFFER = 1 << 18;

/**
 * A decoder's output ({@link MonoOutput}) written to `file` in pieces of {@link OUTPUT_BUFFER}:
 * `finish` keeps at most `limit` samples, closes the file and gives no samples (they are in
 * the file).
 */
export function fileOutput(file: ScratchSamples): MonoOutput {
  const buffer = new Float32Array(OUTPUT_BUFFER);
  let held = 0;
  const flush = (): void => {
    if (held > 0) file.append(buffer.subarray(0, held));
    held = 0;
  };
  return {
    write(x) {
      for (let at = 0; at < x.length;) {
        const n = Math.min(x.length - at, buffer.length - held);
        buffer.set(x.subarray(at, at + n), held);
        held += n;
        at += n;
        if (held === buffer.length) flush();
      }
    },
    finish(limit = Infinity) {
      flush();
      file.truncate(Math.min(file.length, limit));
      file.close();
      return new Float32Array(0);
    },
  };
}

/**
 * Opens (creating) a file of a scratch folder for writing from the start; null where the
 * private file system or sync access handles are not available.
 */
export async function createScratchFile(ref: ScratchFileRef): Promise<ScratchSamples | null> {
  if (!ref.folder.startsWith(SCRATCH_PREFIX)) return null;
  try {
    const root = await navigator.storage.getDirectory();
    const folder = await root.getDirectoryHandle(ref.folder, { create: true });
    const handle = await folder.getFileHandle(ref.name, { create: true });
    const file = new ScratchSamples(await handle.createSyncAccessHandle(), ref.name);
    file.truncate(0);
    return file;
  } catch {
    return null;
  }
}

type ReadOnlyOpener = {
  createSyncAccessHandle(options: { mode: 'read-only' }): Promise<FileSystemSyncAccessHandle>;
};

/**
 * `handle`'s samples opened read-only: several workers may hold such handles on one file at
 * once (a browser without the mode opens it exclusively, and a second worker's open fails).
 */
async function openReadOnly(handle: FileSystemFileHandle): Promise<ScratchSamples> {
  const access = await (handle as unknown as ReadOnlyOpener).createSyncAccessHandle({ mode: 'read-only' });
  return new ScratchSamples(access, handle.name, true);
}

/** A file of a scratch folder opened read-only (a second worker reading what another wrote). */
export async function openScratchReader(ref: ScratchFileRef): Promise<ScratchSamples> {
  if (!ref.folder.startsWith(SCRATCH_PREFIX)) throw new RangeError(`${ref.folder} is not a scratch folder`);
  const root = await navigator.storage.getDirectory();
  const folder = await root.getDirectoryHandle(ref.folder);
  return openReadOnly(await folder.getFileHandle(ref.name));
}

/** A new scratch folder's name (a page names it; the workers create and fill it). */
export function scratchName(now = Date.now()): string {
  return `${SCRATCH_PREFIX}${now}-${crypto.randomUUID()}`;
}

/** A 16-bit mono WAV file written in order; {@link finish} gives the file (disk-backed). */
export class ScratchWav {
  private bytes = 0;

  constructor(
    private readonly access: FileSystemSyncAccessHandle,
    private readonly handle: FileSystemFileHandle,
    private readonly sampleRate: number,
  ) {
    fullWrite(access.write(new Uint8Array(wavHeader(sampleRate, 1, 0)), { at: 0 }), 44, handle.name);
  }

  append(pcm: Int16Array): void {
    fullWrite(this.access.write(pcm, { at: 44 + this.bytes }), pcm.byteLength, this.handle.name);
    this.bytes += pcm.byteLength;
  }

  /** Writes the header's sizes, closes the file and gives it (readable until its folder is removed). */
  async finish(): Promise<File> {
    this.access.write(new Uint8Array(wavHeader(this.sampleRate, 1, this.bytes)), { at: 0 });
    this.access.flush();
    this.access.close();
    return this.handle.getFile();
  }
}

/** One diarize call's folder. */
export class ScratchSpace {
  private readonly open = new Set<{ close(): void }>();

  private constructor(
    private readonly root: Dir,
    private readonly dir: FileSystemDirectoryHandle,
    /** The folder's name: {@link removeScratch} takes it. */
    readonly name: string,
  ) {}

  /**
   * A folder, `name` (made already, say by the media worker) or a new one, after removing stale
   * ones; null where the private file system or sync access handles are not available, or
   * `needBytes` would not fit in the origin's quota (the caller then keeps the signals in memory).
   */
  static async create(needBytes: number, name = scratchName()): Promise<ScratchSpace | null> {
    try {
      if (!name.startsWith(SCRATCH_PREFIX)) return null;
      if (typeof FileSystemFileHandle === 'undefined' || !('createSyncAccessHandle' in FileSystemFileHandle.prototype))
        return null;
      const { quota, usage } = await navigator.storage.estimate();
      if (quota !== undefined && usage !== undefined && quota - usage < needBytes) return null;
      const root = (await navigator.storage.getDirectory()) as Dir;
      await removeStale(root, Date.now(), name);
      return new ScratchSpace(root, await root.getDirectoryHandle(name, { create: true }), name);
    } catch {
      return null;
    }
  }

  private async access(name: string): Promise<{ handle: FileSystemFileHandle; access: FileSystemSyncAccessHandle }> {
    const handle = await this.dir.getFileHandle(name, { create: true });
    return { handle, access: await handle.createSyncAccessHandle() };
  }

  async samples(name: string): Promise<ScratchSamples> {
    const { access } = await this.access(name);
    const samples = new ScratchSamples(access, name);
    this.open.add(samples);
    return samples;
  }

  /**
   * `samples` closed and opened again read-only, for other workers to read beside this one;
   * where the browser cannot, opened as before (its `readOnly` false).
   */
  async readOnly(samples: ScratchSamples): Promise<ScratchSamples> {
    samples.close();
    this.open.delete(samples);
    const handle = await this.dir.getFileHandle(samples.name);
    const reopened = await openReadOnly(handle).catch(
      async () => new ScratchSamples(await handle.createSyncAccessHandle(), samples.name),
    );
    this.open.add(reopened);
    return reopened;
  }

  async wav(name: string, sampleRate: number): Promise<ScratchWav> {
    const { handle, access } = await this.access(name);
    this.open.add(access);
    return new ScratchWav(access, handle, sampleRate);
  }

  /** Closes `samples` and deletes its file. */
  async drop(samples: ScratchSamples): Promise<void> {
    await this.removeFile(this.closeFile(samples).name);
  }

  /** Closes `samples` (for another worker to open) and says where its file is. */
  closeFile(samples: ScratchSamples): ScratchFileRef {
    samples.close();
    this.open.delete(samples);
    return { folder: this.name, name: samples.name };
  }

  /** Deletes a file of the folder (closed). */
  async removeFile(name: string): Promise<void> {
    await this.dir.removeEntry(name).catch(() => undefined);
  }

  /** Closes what is open and removes the folder with everything in it. */
  async remove(): Promise<void> {
    for (const item of this.open) {
      try {
        item.close();
      } catch {
        // already closed
      }
    }
    this.open.clear();
    await removeScratch(this.name, this.root);
  }
}

/** How often, and how far apart (ms), removing a folder is tried while a file in it is still locked. */
const REMOVE_TRIES = 20;
const REMOVE_RETRY_MS = 100;

/**
 * Removes a diarize call's folder (after its WAV went to the job's store). A file a worker
 * just let go of (a lane terminated by an abort) stays locked for a moment: tried again for
 * up to two seconds.
 */
export async function removeScratch(name: string, root?: FileSystemDirectoryHandle): Promise<void> {
  if (!name.startsWith(SCRATCH_PREFIX)) return;
  const dir = root ?? (await navigator.storage.getDirectory());
  for (let tries = 1; ; tries++) {
    try {
      await dir.removeEntry(name, { recursive: true });
      return;
    } catch (error) {
      if ((error as DOMException).name === 'NotFoundError' || tries >= REMOVE_TRIES) return;
      await new Promise((resolve) => setTimeout(resolve, REMOVE_RETRY_MS));
    }
  }
}

async function removeStale(root: Dir, now: number, keep: string): Promise<void> {
  const stale: string[] = [];
  for await (const [name] of root.entries()) {
    if (!name.startsWith(SCRATCH_PREFIX) || name === keep) continue;
    const at = Number(name.slice(SCRATCH_PREFIX.length).split('-')[0]);
    if (!Number.isFinite(at) || now - at > STALE_MS) stale.push(name);
  }
  for (const name of stale) await removeScratch(name, root);
}
