/**
 * `startMulticam`: the page side of the library. It registers the service worker that
 * answers the REST contract, waits until it controls the page, and opens the library API
 * (accounts, API keys, signing secrets) on the same IndexedDB database the worker uses.
 *
 * @module
 */
import { createService, type MulticamService } from '../service.ts';
import { createQueueEngine } from '../pipeline/queue-engine.ts';
import { startEngineRunner, type EngineRunner, type EngineRunnerOptions } from '../pipeline/runner.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../webhooks/delivery.ts';
import { DEFAULT_BASE_PATH, normaliseBasePath } from '../contract/base-path.ts';
import { registerServiceWorker } from './register.ts';

/** Options of {@link startMulticam}. */
export interface StartMulticamOptions {
  /** The path prefix of the REST contract; default `/api`. */
  basePath?: string;
  /** IndexedDB database name shared by the page and the worker; default the store's. */
  dbName?: string;
  /** Where the built service worker is served; default `/sw.js`. */
  scriptPath?: string;
  /**
   * Run the pipeline in this page: the engine runner (one per browser profile, through a Web
   * Lock, so every tab may ask) and webhook delivery. Default false: a page that only calls
   * the API leaves processing to a page that opts in (the demo does).
   */
  engine?: boolean;
  /**
   * With `engine: true`: where the engine's runtime assets are served, and the optional models
   * the host app supplies for single-mix speaker detection, e.g.
   * `{ segmentationModelUrl: '/host-models/pyannote-segmentation-3.0.onnx', embeddingModelUrl: '/host-models/wespeaker.onnx' }`.
   * See {@link EngineRunnerOptions.assets}.
   */
  assets?: EngineRunnerOptions['assets'];
}

/** A running instance: the worker answers `fetch`, the page holds the library API. */
export interface MulticamInstance {
  /** The normalised base path, e.g. `/api`. */
  readonly basePath: string;
  /** Same-origin base URL for clients, e.g. `http://127.0.0.1:5173/api`. */
  readonly baseUrl: string;
  readonly registration: ServiceWorkerRegistration;
  /** The page's own service over the shared database, for the library API. */
  readonly service: MulticamService;
  /** Accounts, API keys, quotas and signing secrets. */
  readonly accounts: MulticamService['accounts'];
  /** The engine runner when started with `engine: true`, else null. */
  readonly engine: EngineRunner | null;
  /** Webhook delivery when started with `engine: true`, else null. */
  readonly webhooks: WebhookDelivery | null;
  /**
   * Setup problems that do not stop the library but cost something, each naming its fix (also
   * logged with `console.warn`): e.g. a page that is not cross-origin isolated.
   */
  readonly warnings: readonly string[];
  /** Closes the page's database connection and stops the engine (the worker keeps answering). */
  close(): void;
}

/**
 * Registers the service worker and returns the running instance.
 *
 * @example
 * ```ts
 * const multicam = await startMulticam({ basePath: '/api' });
 * const { accountId } = await multicam.accounts.create();
 * const { apiKey } = await multicam.accounts.createApiKey(accountId);
 * const res = await fetch('/api/jobs', { headers: { authorization: `Bearer ${apiKey}` } });
 * ```
 */
export async function startMulticam(options: StartMulticamOptions = {}): Promise<MulticamInstance> {
  const basePath = normaliseBasePath(options.basePath ?? DEFAULT_BASE_PATH);
  const warnings: string[] = [];
  if (options.engine && globalThis.crossOriginIsolated !== true) {
    warnings.push(
      'multicam: this page is not cross-origin isolated, so SharedArrayBuffer is off and the optional ffmpeg core runs single-threaded: serve it with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp (the multicam/vite plugin does on its dev and preview servers)',
    );
  }
  for (const warning of warnings) console.warn(warning);
  const dbOption = options.dbName === undefined ? {} : { dbName: options.dbName };
  const registration = await registerServiceWorker({
    basePath,
    ...dbOption,
    ...(options.scriptPath === undefined ? {} : { scriptPath: options.scriptPath }),
  });
  // Both sides open the same database; the page never routes requests, but createService
  // needs an engine, and the queue engine is the one that is right in any context.
  const engine = createQueueEngine(dbOption);
  const service = await createService({ basePath, engine, ...dbOption });
  const runner = options.engine
    ? startEngineRunner({
        reporter: service.reporter,
        ...dbOption,
        ...(options.assets === undefined ? {} : { assets: options.assets }),
      })
    : null;
  const webhooks = options.engine
    ? await startWebhookDelivery({
        ...dbOption,
        signingSecrets: (accountId) => service.accounts.signingSecrets(accountId),
      })
    : null;
  return {
    basePath,
    baseUrl: new URL(basePath, location.origin).href,
    registration,
    service,
    accounts: service.accounts,
    engine: runner,
    webhooks,
    warnings,
    close() {
      void runner?.stop();
      void webhooks?.close();
      service.close();
      engine.close();
    },
  };
}
