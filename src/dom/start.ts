/**
 * `startMulticam`: the page side of the library. It first checks that the browser has what the
 * pipeline needs (src/dom/capabilities.ts), then registers the service worker that answers the
 * REST contract, waits until it controls the page, and opens the library API (accounts, API
 * keys, signing secrets) on the same IndexedDB database the worker uses.
 *
 * @module
 */
import { createService, type MulticamService } from '../service.ts';
import { createQueueEngine } from '../pipeline/queue-engine.ts';
import { startEngineRunner, type EngineRunner, type EngineRunnerOptions } from '../pipeline/runner.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../webhooks/delivery.ts';
import { DEFAULT_BASE_PATH, normaliseBasePath } from '../contract/base-path.ts';
import { BrowserSupportError, evaluateCapabilities, probeBrowserCapabilities } from './capabilities.ts';
import { registerServiceWorker } from './register.ts';

/** Options of {@link startMulticam}. */
export interface StartMulticamOptions {
  /** The path prefix of the REST contract; default `/api`. */
  basePath?: string;
  /** IndexedDB database name shared by the page and the worker; default the store's. */
  dbName?: string;
  /**
   * Foreign origins the worker answers the contract for, besides the page's own, e.g.
   * `['https://api.example.com']` for a client that hard-codes `https://api.example.com/api`.
   * Default none: every other origin goes to the network (webhook receivers included).
   */
  apiOrigins?: readonly string[];
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
   * The camera map's optional active-speaker model goes in the same way:
   * `{ activeSpeakerModelUrl: '/host-models/lr-asd.onnx' }`.
   * See {@link EngineRunnerOptions.assets}.
   */
  assets?: EngineRunnerOptions['assets'];
  /**
   * With `engine: true`: how long an unreferenced chunk run may stay silent before the engine's
   * start-up sweep collects it (default 6 h). See {@link EngineRunnerOptions.orphanGraceMs}.
   */
  orphanGraceMs?: number;
  /**
   * Ask the browser to keep this site's storage (`navigator.storage.persist()`): without it,
   * jobs, files and the webhook outbox may be deleted when the disk runs low. Default true.
   */
  persistStorage?: boolean;
}

/**
 * How long start-up waits for the answer to `persist()`. Chromium answers at once; Firefox asks
 * the person with a prompt, and the page must not sit at "starting" until they answer it (a
 * headless Firefox never does).
 */
const PERSIST_ANSWER_MS = 1000;

/**
 * Asks the browser to keep the site's storage. True: it will not be evicted; false: refused (the
 * browser may delete it under storage pressure); null: not asked, this browser cannot say, or it
 * is still asking the person (the prompt stays up; their answer applies, start-up goes on).
 */
async function requestPersistence(): Promise<boolean | null> {
  const storage = (navigator as Partial<Navigator>).storage;
  if (!storage?.persist) return null;
  try {
    if ((await storage.persisted?.()) === true) return true;
    const asked = storage.persist();
    // The answer may come after start-up went on (or the call fail then): nothing waits on it.
    asked.catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unanswered = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), PERSIST_ANSWER_MS)));
    try {
      return await Promise.race([asked, unanswered]);
    } finally {
      clearTimeout(timer);
    }
  } catch {
    // Some browsers refuse the call itself outside a secure context: the same as not asked.
    return null;
  }
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
   * logged with `console.warn`): e.g. a page that is not cross-origin isolated. What stops it
   * is a {@link BrowserSupportError} from {@link startMulticam} instead.
   */
  readonly warnings: readonly string[];
  /**
   * Whether the browser agreed to keep this site's storage (`navigator.storage.persist()`):
   * false means it may delete jobs and files when space runs low (a warning says so too); null
   * when it was not asked (`persistStorage: false`), the browser cannot say, or it was still
   * asking the person a second after start (Firefox's prompt).
   */
  readonly storagePersisted: boolean | null;
  /** Closes the page's database connection and stops the engine (the worker keeps answering). */
  close(): void;
}

/**
 * Checks the browser, registers the service worker and returns the running instance. A browser
 * that lacks something the pipeline needs (WebCodecs, module workers, service workers,
 * IndexedDB…) rejects at once with a {@link BrowserSupportError} naming each missing piece and
 * the browsers that work, before anything is registered or stored.
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
  const capabilities = evaluateCapabilities(await probeBrowserCapabilities(), {
    engine: options.engine === true,
    ffmpegCore: options.assets?.ffmpegWasmBase !== undefined,
  });
  if (capabilities.missing.length > 0) throw new BrowserSupportError(capabilities.missing);
  const warnings: string[] = [...capabilities.degraded];
  const storagePersisted = options.persistStorage === false ? null : await requestPersistence();
  if (storagePersisted === false)
    warnings.push(
      "multicam: this browser did not agree to keep this site's storage, so it may delete your jobs, their files and undelivered webhooks when disk space runs low: finish and download edits soon, or install the site / bookmark it so the browser keeps its data",
    );
  for (const warning of warnings) console.warn(warning);
  const dbOption = options.dbName === undefined ? {} : { dbName: options.dbName };
  const registration = await registerServiceWorker({
    basePath,
    ...dbOption,
    ...(options.scriptPath === undefined ? {} : { scriptPath: options.scriptPath }),
    ...(options.apiOrigins === undefined ? {} : { apiOrigins: options.apiOrigins }),
  });
  // Both sides open the same database; the page never routes requests, but createService
  // needs an engine, and the queue engine is the one that is right in any context.
  const engine = createQueueEngine(dbOption);
  const service = await createService({ basePath, engine, pageOrigin: location.origin, ...dbOption });
  const runner = options.engine
    ? startEngineRunner({
        reporter: service.reporter,
        ...dbOption,
        ...(options.assets === undefined ? {} : { assets: options.assets }),
        ...(options.orphanGraceMs === undefined ? {} : { orphanGraceMs: options.orphanGraceMs }),
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
    storagePersisted,
    close() {
      void runner?.stop();
      void webhooks?.close();
      service.close();
      engine.close();
    },
  };
}
