/**
 * What the route handler and the stage reporter share.
 *
 * @module
 */
import type { Signer } from '../auth/signer.ts';
import type { Engine } from '../contract/engine.ts';
import type { Database } from '../store/db.ts';

/** What every operation and the reporter work with: the database, the engine, the URL signer, the base path and the clock. */
export interface ServiceContext {
  db: Database;
  engine: Engine;
  signer: Signer;
  /** Base path without a trailing slash, e.g. `/api`. */
  basePath: string;
  now(): number;
  /**
   * What the origin may still store (`navigator.storage.estimate()` where there is one): createJob
   * refuses files that cannot fit before any byte is uploaded. Absent: no check.
   */
  storageEstimate?: () => Promise<{ quota?: number; usage?: number }>;
}
