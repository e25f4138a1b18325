/**
 * Files used in place: a source a person picked on this computer is never copied into
 * storage. Its file record keeps only what identifies the file (name, size, last modified)
 * and, when the page was given one, its File System Access handle (handles survive a reload
 * in IndexedDB; the bytes stay where they are). The File objects themselves live in the pages
 * that were handed them: each context of the origin keeps a {@link LocalFileRegistry} and
 * answers the others over a BroadcastChannel, so the engine's page, another tab, or the
 * service worker (the review editor plays sources through it) all read the same disk-backed
 * File. A File is structured-cloned by reference, never by copying its bytes.
 *
 * @module
 */
import type { FileRecord, LocalFileInfo } from './db.ts';

/** Thrown when no context holds a local file, or it changed on disk since it was picked. */
export class LocalFileUnavailableError extends Error {
  override readonly name = 'LocalFileUnavailableError';
}

/** How long {@link LocalFileRegistry.resolve} waits for another page to answer. */
export const ASK_TIMEOUT_MS = 1500;

interface Want {
  type: 'want';
  askId: string;
  fileId: string;
}
interface Have {
  type: 'have';
  askId: string;
  fileId: string;
  file: File;
}

/** `12.3 MB`, for messages. */
function sizeText(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Whether `file` is still the file that was picked (same size and modification time). */
function sameFile(file: File, record: FileRecord, local: LocalFileInfo): boolean {
  return file.size === record.size && file.lastModified === local.lastModified;
}

/** The error for a file no context holds. */
function unavailable(record: FileRecord, local: LocalFileInfo, why: string): LocalFileUnavailableError {
  return new LocalFileUnavailableError(
    `"${local.name}" (${sizeText(record.size)}) is used in place on this computer and ${why}: ` +
      'pick it again in a page of this app (attachLocalFile), then retry',
  );
}

/**
 * The File objects this context was handed, answering other contexts that ask for them. One
 * per database (the channel is named after it); see {@link localFileRegistry}.
 */
export class LocalFileRegistry {
  readonly #held = new Map<string, File>();
  readonly #channel: BroadcastChannel | null;
  readonly #waiting = new Map<string, (file: File | undefined) => void>();

  constructor(channelName: string) {
    this.#channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName) : null;
    this.#channel?.addEventListener('message', (event: MessageEvent<Want | Have>) => {
      const message = event.data;
      if (message.type === 'want') {
        const file = this.#held.get(message.fileId);
        if (file) this.#channel?.postMessage({ type: 'have', askId: message.askId, fileId: message.fileId, file });
      } else if (message.type === 'have') {
        this.#waiting.get(message.askId)?.(message.file);
      }
    });
  }

  /** Keeps `file` as the bytes of file record `fileId` for as long as this context lives. */
  hold(fileId: string, file: File): void {
    this.#held.set(fileId, file);
  }

  /** Forgets a file (its record was deleted). */
  release(fileId: string): void {
    this.#held.delete(fileId);
  }

  /** The File this context holds for `fileId`, if any. */
  held(fileId: string): File | undefined {
    return this.#held.get(fileId);
  }

  /** Asks the other contexts for `fileId`; undefined when none answers in `timeoutMs`. */
  ask(fileId: string, timeoutMs: number = ASK_TIMEOUT_MS): Promise<File | undefined> {
    const channel = this.#channel;
    if (!channel) return Promise.resolve(undefined);
    const askId = crypto.randomUUID();
    return new Promise((resolve) => {
      const done = (file: File | undefined): void => {
        clearTimeout(timer);
        this.#waiting.delete(askId);
        resolve(file);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      this.#waiting.set(askId, done);
      channel.postMessage({ type: 'want', askId, fileId } satisfies Want);
    });
  }

  /**
   * The bytes of a local file record: the File this context holds, else the one its handle
   * gives (when read permission is still granted), else one another context holds. Checks it
   * is the file that was picked; throws {@link LocalFileUnavailableError} otherwise.
   */
  async resolve(record: FileRecord, timeoutMs: number = ASK_TIMEOUT_MS): Promise<File> {
    const local = record.local;
    if (!local) throw new Error(`file ${record.id} is stored, not used in place`);
    let changed = false;
    const check = (file: File | undefined): File | undefined => {
      if (!file) return undefined;
      if (sameFile(file, record, local)) return file;
      changed = true;
      return undefined;
    };
    const mine = check(this.#held.get(record.id));
    if (mine) return mine;
    // Not kept: what another context holds is its to forget (a reload), and a handle is read afresh.
    if (local.handle) {
      const fromHandle = check(await local.handle.getFile().catch(() => undefined));
      if (fromHandle) return fromHandle;
    }
    const theirs = check(await this.ask(record.id, timeoutMs));
    if (theirs) return theirs;
    throw unavailable(
      record,
      local,
      changed
        ? 'it changed on disk since it was picked (its size or modification time differ)'
        : local.handle
          ? 'this page may no longer read it (the browser asks again after a reload) and no open page holds it'
          : 'no open page holds it (a page forgets picked files when it is closed or reloaded)',
    );
  }

  /** Stops answering (tests; a context's registry otherwise lives as long as it does). */
  close(): void {
    this.#channel?.close();
    for (const done of this.#waiting.values()) done(undefined);
  }
}

const registries = new Map<string, LocalFileRegistry>();

/** This context's registry for database `dbName`. */
export function localFileRegistry(dbName: string): LocalFileRegistry {
  let registry = registries.get(dbName);
  if (!registry) {
    registry = new LocalFileRegistry(`multicam-local-files:${dbName}`);
    registries.set(dbName, registry);
  }
  return registry;
}
