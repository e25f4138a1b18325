/**
 * The webhook dispatcher: delivers the pending events of the outbox to their `callbackUrl`,
 * signed per Standard Webhooks, with up to 3 attempts of at most 10 s and a backoff between
 * them. All state lives in IndexedDB, so a reload or crash loses nothing:
 *
 * - before an attempt is sent, it is counted and the time of the attempt after it is
 *   stored (claim, one transaction); if the page dies mid-request that attempt is due then;
 * - a 2xx is recorded as `delivered` in one transaction, and only `pending` events whose
 *   time has come are ever sent, so an acknowledged event is not sent again (the one window
 *   left: the tab dies after the receiver answered but before that transaction commits; the
 *   receiver then sees the same `webhook-id` again and skips it);
 * - one dispatcher runs per origin at a time (Web Lock `multicam-webhooks`); even without
 *   locks, the claim transaction keeps two dispatchers from sending the same attempt.
 *
 * @module
 */
import { onEventsRecorded } from './events-channel.ts';
import { readAllEvents, updateEvent, type OutboxDatabase, type OutboxEvent } from './outbox.ts';
import {
  abandon,
  checkRetrySchedule,
  claimAttempt,
  DEFAULT_RETRY_SCHEDULE,
  isDue,
  recordOutcome,
  type AttemptOutcome,
  type RetrySchedule,
} from './schedule.ts';
import { signWebhook } from './sign.ts';
import { addWarning } from '../contract/warnings.ts';
import { updateJob } from '../store/jobs.ts';

/** The Web Lock held by the running dispatcher. */
export const DISPATCHER_LOCK = 'multicam-webhooks';

/** The request headers a cross-origin receiver must allow in its CORS preflight answer. */
export const WEBHOOK_REQUEST_HEADERS = 'content-type, webhook-id, webhook-timestamp, webhook-signature';

/** What the dispatcher needs from its host. */
export interface WebhookDispatcherOptions {
  /** The app's database (its `events` store is the outbox). */
  db: OutboxDatabase;
  /** The `whsec_…` secrets in force for an account: one, or two during a rotation. */
  signingSecrets: (accountId: string) => Promise<readonly string[]>;
  /** Attempts, time limit and backoff; default {@link DEFAULT_RETRY_SCHEDULE}. */
  schedule?: RetrySchedule;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Clock, ms since epoch; default Date.now. */
  now?: () => number;
  /** Default: `navigator.locks` where it exists; null runs without a lock. */
  locks?: LockManager | null;
  /**
   * The origin deliveries leave from, for CORS diagnostics; default `self.location.origin`
   * in a browser, null in Node.
   */
  origin?: string | null;
  /** Upper bound of the idle wait between outbox scans, in ms (a safety net for missed nudges); default 15 000. */
  pollIntervalMs?: number;
  /** Listen to the `multicam-events` channel for nudges; default true. */
  listen?: boolean;
  /** Called after each attempt with the record as stored (for logs and tests). */
  onAttempt?: (record: OutboxEvent) => void;
}

function defaultLocks(): LockManager | null {
  const nav = (globalThis as { navigator?: { locks?: LockManager } }).navigator;
  return nav?.locks ?? null;
}

function defaultOrigin(): string | null {
  const location = (globalThis as { location?: { origin?: string } }).location;
  return typeof location?.origin === 'string' && location.origin !== 'null' ? location.origin : null;
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const causeText = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : '';
  return causeText && causeText !== error.message ? `${error.message} (${causeText})` : error.message;
}

/**
 * Delivers the outbox's pending events. Create one per context that may deliver (the page
 * holding the engine, or the service worker), `start()` it, and `stop()` it on dispose.
 *
 * @example
 * const dispatcher = new WebhookDispatcher({ db, signingSecrets: (id) => service.accounts.signingSecrets(id) });
 * dispatcher.start();
 * // after recording events: announceEvents([id]) or dispatcher.wake()
 */
export class WebhookDispatcher {
  readonly #db: OutboxDatabase;
  readonly #secrets: (accountId: string) => Promise<readonly string[]>;
  readonly #schedule: RetrySchedule;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #locks: LockManager | null;
  readonly #origin: string | null;
  readonly #pollIntervalMs: number;
  readonly #listen: boolean;
  readonly #onAttempt: ((record: OutboxEvent) => void) | undefined;
  readonly #stopController = new AbortController();
  #running: Promise<void> | null = null;
  #wakeUp: (() => void) | null = null;
  #woken = false;
  #passInFlight: Promise<number> | null = null;
  #unlisten: () => void = () => undefined;

  constructor(options: WebhookDispatcherOptions) {
    this.#db = options.db;
    this.#secrets = options.signingSecrets;
    this.#schedule = checkRetrySchedule(options.schedule ?? DEFAULT_RETRY_SCHEDULE);
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#now = options.now ?? Date.now;
    this.#locks = options.locks === undefined ? defaultLocks() : options.locks;
    this.#origin = options.origin === undefined ? defaultOrigin() : options.origin;
    this.#pollIntervalMs = options.pollIntervalMs ?? 15_000;
    this.#listen = options.listen ?? true;
    this.#onAttempt = options.onAttempt;
  }

  /** The schedule in force. */
  get schedule(): RetrySchedule {
    return this.#schedule;
  }

  /**
   * Starts delivering in the background: waits for the dispatcher lock (another tab may
   * hold it), then loops: deliver what is due, sleep until the next due time, a nudge on
   * the `multicam-events` channel, {@link wake}, or the poll interval.
   */
  start(): void {
    if (this.#running || this.#stopController.signal.aborted) return;
    if (this.#listen) this.#unlisten = onEventsRecorded(() => this.wake());
    const loop = () => this.#loop();
    const signal = this.#stopController.signal;
    const locks = this.#locks;
    const run = async () => {
      if (locks) await locks.request(DISPATCHER_LOCK, { signal }, loop);
      else await loop();
    };
    this.#running = run().catch((error: unknown) => {
      // Stopping while waiting for the lock rejects the request with an AbortError: expected.
      if (!signal.aborted) throw error;
    });
  }

  /** Re-scans the outbox now (call after recording events in this context). */
  wake(): void {
    this.#woken = true;
    this.#wakeUp?.();
  }

  /** Stops the loop and aborts attempts in flight (they are retried after the next start). */
  async stop(): Promise<void> {
    this.#stopController.abort(new DOMException('webhook dispatcher stopped', 'AbortError'));
    this.#unlisten();
    this.#wakeUp?.();
    await this.#running;
    await this.#passInFlight?.catch(() => 0);
  }

  /**
   * One pass: attempts every event that is due now, in parallel, and waits for them.
   * Returns the number of attempts made. Safe to call while the loop runs (a pass already
   * in flight is awaited instead of starting another); does nothing once stopped.
   */
  async deliverDue(): Promise<number> {
    if (this.#passInFlight) return this.#passInFlight;
    const pass = this.#pass();
    this.#passInFlight = pass;
    try {
      return await pass;
    } finally {
      this.#passInFlight = null;
    }
  }

  async #pass(): Promise<number> {
    // A stopped dispatcher would claim attempts and abort them at once, using them up.
    if (this.#stopController.signal.aborted) return 0;
    const now = this.#now();
    const due = (await readAllEvents(this.#db)).filter((event) => isDue(event.delivery, now));
    const sent = await Promise.all(due.map((event) => this.#attempt(event.id)));
    return sent.filter(Boolean).length;
  }

  async #loop(): Promise<void> {
    const signal = this.#stopController.signal;
    while (!signal.aborted) {
      this.#woken = false;
      await this.deliverDue();
      if (signal.aborted) break;
      if (this.#woken) continue;
      const now = this.#now();
      const pending = (await readAllEvents(this.#db)).filter((event) => event.delivery.state === 'pending');
      const nextDue = Math.min(...pending.map((event) => event.delivery.nextAttemptAt));
      const wait = Math.max(0, Math.min(this.#pollIntervalMs, nextDue - now));
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.#wakeUp = null;
          resolve();
        };
        const timer = setTimeout(done, wait);
        signal.addEventListener('abort', done, { once: true });
        this.#wakeUp = done;
        // A wake() or stop() during the scan above must not wait for the timer.
        if (this.#woken || signal.aborted) done();
      });
    }
  }

  /** Claims, sends and records one attempt of one event. Returns whether a request was sent. */
  async #attempt(id: string): Promise<boolean> {
    const claimedAt = this.#now();
    let send = false;
    const claimed = await updateEvent(this.#db, id, (record) => {
      if (!isDue(record.delivery, claimedAt)) return null;
      if (record.callbackUrl === null) return { ...record, delivery: { ...record.delivery, state: 'skipped' } };
      const next = claimAttempt(record.delivery, claimedAt, this.#schedule);
      if (next === null) return { ...record, delivery: { ...record.delivery, ...abandon(record.delivery, claimedAt) } };
      send = true;
      return { ...record, delivery: { ...record.delivery, ...next } };
    });
    if (claimed === null || !send || claimed.callbackUrl === null) {
      if (claimed) this.#onAttempt?.(claimed);
      return false;
    }
    const signed = await this.#signedHeaders(claimed);
    // An event that cannot be signed is never sent unsigned: the attempt fails without a request.
    const outcome =
      'error' in signed
        ? { at: this.#now(), durationMs: 0, error: signed.error }
        : await this.#send(claimed, claimed.callbackUrl, signed.headers);
    if (outcome === null) return true; // stopped mid-attempt: the claim already scheduled a retry
    const attempt = claimed.delivery.attempts;
    const stored = await updateEvent(this.#db, id, (record) =>
      // Only the attempt this dispatcher claimed may conclude it.
      record.delivery.state === 'pending' && record.delivery.attempts === attempt
        ? { ...record, delivery: { ...record.delivery, ...recordOutcome(record.delivery, outcome, this.#schedule) } }
        : null,
    );
    if (stored?.delivery.state === 'failed' && 'error' in signed) await this.#warnNotSigned(stored, signed.error);
    if (stored) this.#onAttempt?.(stored);
    return 'headers' in signed;
  }

  /** The request headers of one attempt, signed with every secret in force; or why it cannot be signed. */
  async #signedHeaders(event: OutboxEvent): Promise<{ headers: Record<string, string> } | { error: string }> {
    const body = JSON.stringify(event.payload);
    let secrets: readonly string[];
    try {
      secrets = await this.#secrets(event.accountId);
    } catch (error) {
      return {
        error: `not sent: it could not be signed, because the signing secrets of account ${event.accountId} could not be read (${errorText(error)})`,
      };
    }
    if (secrets.length === 0)
      return { error: `not sent: it could not be signed, because account ${event.accountId} has no signing secret` };
    try {
      const timestamp = Math.floor(this.#now() / 1000);
      return {
        headers: {
          'content-type': 'application/json',
          ...(await signWebhook({ id: event.id, timestamp, body, secrets })),
        },
      };
    } catch (error) {
      return { error: `not sent: it could not be signed (${errorText(error)})` };
    }
  }

  /** Puts a `webhook_not_signed` warning on the event's job, once its delivery has failed for good. */
  async #warnNotSigned(event: OutboxEvent, reason: string): Promise<void> {
    const warning = {
      code: 'webhook_not_signed',
      message:
        `the "${event.type}" webhook to ${new URL(event.callbackUrl ?? 'about:blank').origin} was not sent: ${reason.replace(/^not sent: /, '')}. ` +
        "The job itself is unaffected; check its status with getJob, and fix the account's signing secret for later webhooks",
    };
    await updateJob(this.#db, event.jobId, (job) => {
      const before = job.warnings ?? [];
      const after = addWarning(before, warning, this.#now());
      return after === before
        ? { job: null, result: undefined }
        : { job: { ...job, warnings: after }, result: undefined };
    }).catch(() => undefined); // the outbox already says why; a job deleted meanwhile needs nothing
  }

  /** Sends one signed attempt. Returns null when the dispatcher was stopped during it. */
  async #send(event: OutboxEvent, url: string, headers: Record<string, string>): Promise<AttemptOutcome | null> {
    const body = JSON.stringify(event.payload);
    const at = this.#now();
    const stop = this.#stopController.signal;
    // Not AbortSignal.any: in Node 20 a timeout signal combined that way never fires.
    const timeout = AbortSignal.timeout(this.#schedule.attemptTimeoutMs);
    const attempt = new AbortController();
    const forward = (event: Event) => attempt.abort((event.target as AbortSignal).reason);
    timeout.addEventListener('abort', forward, { once: true });
    stop.addEventListener('abort', forward, { once: true });
    const signal = attempt.signal;
    try {
      const response = await this.#fetch(url, {
        method: 'POST',
        headers,
        body,
        signal,
        redirect: 'manual',
        credentials: 'omit',
        cache: 'no-store',
      });
      const durationMs = this.#now() - at;
      // The body is not needed; release the connection.
      await response.body?.cancel().catch(() => undefined);
      if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
        return {
          at,
          durationMs,
          status: response.status,
          error: 'the receiver answered with a redirect; webhooks do not follow redirects',
        };
      }
      const outcome: AttemptOutcome = { at, durationMs, status: response.status };
      if (!(response.status >= 200 && response.status <= 299))
        outcome.error = `the receiver answered HTTP ${response.status}`;
      return outcome;
    } catch (error) {
      if (stop.aborted) return null;
      const durationMs = this.#now() - at;
      return { at, durationMs, error: await this.#diagnose(error, url) };
    } finally {
      timeout.removeEventListener('abort', forward);
      stop.removeEventListener('abort', forward);
    }
  }

  /** Turns a failed fetch into a message that says what the receiver's owner must change. */
  async #diagnose(error: unknown, url: string): Promise<string> {
    const name = error instanceof Error || error instanceof DOMException ? error.name : '';
    if (name === 'TimeoutError') return `no answer within ${this.#schedule.attemptTimeoutMs} ms`;
    const target = new URL(url).origin;
    if (!(error instanceof TypeError) || this.#origin === null || target === this.#origin) {
      return `network error reaching ${target}: ${errorText(error)}`;
    }
    const consent =
      `the receiver at ${target} must allow this origin: answer the preflight (OPTIONS) with ` +
      `Access-Control-Allow-Origin: ${this.#origin}, Access-Control-Allow-Methods: POST, ` +
      `Access-Control-Allow-Headers: ${WEBHOOK_REQUEST_HEADERS}, and send Access-Control-Allow-Origin on the POST's answer too`;
    // A no-cors request needs no consent: if it gets through, the host is up and CORS blocked the POST.
    // (Under COEP require-corp the probe also needs the receiver's Cross-Origin-Resource-Policy, so a
    // failed probe does not prove the host is down.)
    const reachable = await this.#fetch(url, {
      method: 'HEAD',
      mode: 'no-cors',
      credentials: 'omit',
      cache: 'no-store',
      signal: AbortSignal.timeout(3_000),
    }).then(
      () => true,
      () => false,
    );
    return reachable
      ? `blocked by CORS: the host is up but refused the cross-origin POST; ${consent}`
      : `blocked by CORS or network: ${consent}; or the host is unreachable (${errorText(error)})`;
  }
}
