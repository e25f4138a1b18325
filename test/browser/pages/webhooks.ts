/**
 * The webhooks browser-test page: the real dispatcher and subscription in Chromium, on the
 * app's real IndexedDB schema (src/store/db.ts), with real fetch, WebCrypto, Web Locks and
 * BroadcastChannel. The Node-side test (test/browser/webhooks.test.ts) records events into
 * the outbox through this page, as the stage reporter would, and drives it with
 * `page.evaluate(() => window.webhooks.…)`.
 *
 * @module
 */
import { startMulticam, type MulticamInstance } from '../../../src/dom/start.ts';
import type { EngineStage } from '../../../src/contract/engine.ts';
import { openDatabase, type Database, type EventRecord } from '../../../src/store/db.ts';
import { announceEvents } from '../../../src/webhooks/events-channel.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../../../src/webhooks/delivery.ts';
import { WebhookDispatcher } from '../../../src/webhooks/dispatcher.ts';
import { readEvent, type OutboxEvent } from '../../../src/webhooks/outbox.ts';
import type { RetrySchedule } from '../../../src/webhooks/schedule.ts';
import { subscribeToEvents, type EventSubscription, type SubscribedEvent } from '../../../src/webhooks/subscribe.ts';
import { createPageTestEngine, type PageStageOutput, type PageTestEngine } from './page-test-engine.ts';

let db: Database | undefined;
let dispatcher: WebhookDispatcher | undefined;
let subscription: EventSubscription | undefined;
let multicam: MulticamInstance | undefined;
let engine: PageTestEngine | undefined;
let delivery: WebhookDelivery | undefined;
const received: SubscribedEvent[] = [];
/** Attempts this tab's dispatcher has recorded (its onAttempt hook). */
let attemptsSeen = 0;

function database(): Database {
  if (!db) throw new Error('webhooks.open() was not called');
  return db;
}

const webhooks = {
  /**
   * The whole app: the service worker answers the contract, the page-hosted test engine
   * runs stages through the real reporter, and webhook delivery runs as an app would start
   * it (startWebhookDelivery with the account API's signing secrets).
   */
  async startApp(options: {
    basePath: string;
    dbName: string;
    schedule: RetrySchedule;
    pollIntervalMs: number;
  }): Promise<void> {
    multicam = await startMulticam({ basePath: options.basePath, dbName: options.dbName });
    db = await openDatabase(options.dbName);
    engine = createPageTestEngine(db, options.dbName, multicam.service.reporter);
    const accounts = multicam.accounts;
    delivery = await startWebhookDelivery({
      dbName: options.dbName,
      signingSecrets: (accountId) => accounts.signingSecrets(accountId),
      schedule: options.schedule,
      pollIntervalMs: options.pollIntervalMs,
    });
  },

  createAccount(): Promise<{ accountId: string; apiKey: string }> {
    if (!multicam) throw new Error('webhooks.startApp() was not called');
    return multicam.accounts.create();
  },

  signingSecrets(accountId: string): Promise<string[]> {
    if (!multicam) throw new Error('webhooks.startApp() was not called');
    return multicam.accounts.signingSecrets(accountId);
  },

  /** A real fetch from this page (answered by the service worker for the API paths). */
  async request(
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<{ status: number; text: string }> {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: init.headers ?? {},
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    return { status: response.status, text: await response.text() };
  },

  completeStage(jobId: string, stage: EngineStage, output?: PageStageOutput): Promise<void> {
    if (!engine) throw new Error('webhooks.startApp() was not called');
    return engine.completeStage(jobId, stage, output);
  },

  async closeApp(): Promise<void> {
    await delivery?.close();
    engine?.dispose();
    multicam?.close();
  },

  async open(dbName: string): Promise<void> {
    db = await openDatabase(dbName);
  },

  /** Writes an event as the stage reporter does, then nudges dispatchers and subscribers. */
  async record(event: EventRecord): Promise<void> {
    await database().add('events', event);
    announceEvents([event.id]);
  },

  /** Starts this tab's dispatcher (it runs once it holds the `multicam-webhooks` Web Lock). */
  start(options: { secrets: string[]; schedule: RetrySchedule }): void {
    dispatcher = new WebhookDispatcher({
      db: database(),
      signingSecrets: async () => options.secrets,
      schedule: options.schedule,
      onAttempt: () => void (attemptsSeen += 1),
    });
    dispatcher.start();
  },

  async stop(): Promise<void> {
    await dispatcher?.stop();
  },

  attemptsSeen(): number {
    return attemptsSeen;
  },

  read(id: string): Promise<OutboxEvent | undefined> {
    return readEvent(database(), id);
  },

  /** Polls the stored record until its delivery state is `state`. */
  async waitForState(id: string, state: string, timeoutMs: number): Promise<OutboxEvent> {
    const end = performance.now() + timeoutMs;
    for (;;) {
      const record = await readEvent(database(), id);
      if (record?.delivery.state === state) return record;
      if (performance.now() > end) throw new Error(`event ${id} is ${JSON.stringify(record?.delivery)}, not ${state}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  },

  /** Polls until the given attempt has a log line (its outcome was recorded). */
  async waitForLoggedAttempt(id: string, attempt: number, timeoutMs: number): Promise<OutboxEvent> {
    const end = performance.now() + timeoutMs;
    for (;;) {
      const record = await readEvent(database(), id);
      if (record?.delivery.log.some((entry) => entry.attempt === attempt)) return record;
      if (performance.now() > end)
        throw new Error(`event ${id} has no log line for attempt ${attempt}: ${JSON.stringify(record?.delivery)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  },

  async subscribe(name: string): Promise<void> {
    subscription = subscribeToEvents((event) => void received.push(event), { db: database(), name, pollIntervalMs: 0 });
    await subscription.ready;
  },

  received(): string[] {
    return received.map((event) => event.id);
  },
};

/** The type Node-side tests cast `window.webhooks` to. */
export type WebhooksPage = typeof webhooks;

(window as unknown as { webhooks: WebhooksPage }).webhooks = webhooks;
document.body.dataset['ready'] = '1';
