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
   * The origin of the page the service runs for (in the service worker: its own origin, which
   * every controlled page shares). Links in responses and events are built on it, so a link a
   * person clicks never goes to a foreign base URL a client hard-coded. Absent (Node, msw):
   * links follow the request's origin (events: the origin the job was created under).
   */
  pageOrigin?: string;
  /**
   * Set only on the context of one request whose caller authenticated with
   * `Authorization: Review <token>`: the token. Responses then show this token's own review
   * link instead of minting a new one, so a review link cannot extend itself.
   */
  reviewToken?: string;
  /**
   * What the origin may still store (`navigator.storage.estimate()` where there is one): createJob
   * refuses files that cannot fit before any byte is uploaded. Absent: no check.
   */
  storageEstimate?: () => Promise<{ quota?: number; usage?: number }>;
}
