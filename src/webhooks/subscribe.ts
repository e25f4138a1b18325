/**
 * In-page event subscription: the embedding app receives the same events as the webhooks,
 * without HTTP and whether or not the job has a `callbackUrl`.
 *
 * Guarantee: each event is handed to a subscriber name once, across tabs and reloads. On
 * subscribing, every event that name has not handled yet is replayed (oldest first); after
 * that, new events arrive as they are recorded (the `multicam-events` BroadcastChannel wakes
 * every tab; the outbox is the source of truth). An event is marked handled for that name,
 * in the outbox, after the handler's promise resolves; a Web Lock per name makes tabs take
 * turns, so two tabs never both handle one event. If the page closes while the handler
 * runs, or the handler throws, the event is handed again next time (at least once in that
 * case; the event `id` tells a repeat apart).
 *
 * @module
 */
import type { EventType } from '../contract/types.ts';
import { onEventsRecorded } from './events-channel.ts';
import { readAllEvents, updateEvent, type OutboxDatabase } from './outbox.ts';

/** What a subscriber receives. */
export interface SubscribedEvent {
  /** `msg_…`: the webhook-id of the event. */
  id: string;
  type: EventType;
  jobId: string;
  accountId: string;
  /** The webhook body. */
  payload: Record<string, unknown>;
  /** When the event was recorded, ms since epoch. */
  createdAt: number;
}

/** Options of {@link subscribeToEvents}. */
export interface SubscribeOptions {
  /** The app's database (its `events` store). */
  db: OutboxDatabase;
  /** Who is subscribing; events are handed once per name. Default `'app'`. */
  name?: string;
  /** Only this account's events. */
  accountId?: string;
  /** Re-read the outbox at this interval as a safety net, in ms; default 30 000; 0 disables it. */
  pollIntervalMs?: number;
  /** Default: `navigator.locks` where it exists. */
  locks?: LockManager | null;
  /** Called when the handler throws (the event is handed again later); default console.error. */
  onError?: (error: unknown, event: SubscribedEvent) => void;
}

/** A live subscription. */
export interface EventSubscription {
  /** Resolves after the first catch-up (every unhandled event replayed). */
  readonly ready: Promise<void>;
  /** Reads the outbox now and hands over what is new; resolves when done. */
  refresh(): Promise<void>;
  /** Stops listening (an event being handled finishes first). */
  close(): Promise<void>;
}

/**
 * Subscribes to the events of the outbox.
 *
 * @example
 * const subscription = subscribeToEvents(async (event) => {
 *   if (event.type === 'complete') showDownload(event.payload['outputUrl'] as string);
 * }, { db, name: 'editor' });
 * await subscription.ready;
 */
export function subscribeToEvents(
  handler: (event: SubscribedEvent) => void | Promise<void>,
  options: SubscribeOptions,
): EventSubscription {
  const { db, accountId } = options;
  const name = options.name ?? 'app';
  if (name.length === 0) throw new TypeError('options.name must not be empty');
  const nav = (globalThis as { navigator?: { locks?: LockManager } }).navigator;
  const locks = options.locks === undefined ? (nav?.locks ?? null) : options.locks;
  const onError =
    options.onError ??
    ((error: unknown, event: SubscribedEvent) => console.error(`event ${event.id} handler failed`, error));
  let closed = false;
  let chain: Promise<void> = Promise.resolve();
  let queued = false;

  async function catchUp(): Promise<void> {
    const events = await readAllEvents(db);
    for (const record of events) {
      if (closed) return;
      if (accountId !== undefined && record.accountId !== accountId) continue;
      if (record.delivery.seenBy?.includes(name)) continue;
      const event: SubscribedEvent = {
        id: record.id,
        type: record.type,
        jobId: record.jobId,
        accountId: record.accountId,
        payload: record.payload,
        createdAt: record.createdAt,
      };
      try {
        await handler(event);
      } catch (error) {
        onError(error, event);
        return; // keep order: the failed event and those after it are handed again next time
      }
      await updateEvent(db, record.id, (stored) =>
        stored.delivery.seenBy?.includes(name)
          ? null
          : { ...stored, delivery: { ...stored.delivery, seenBy: [...(stored.delivery.seenBy ?? []), name] } },
      );
    }
  }

  async function lockedCatchUp(): Promise<void> {
    if (locks) await locks.request(`multicam-events:${name}`, catchUp);
    else await catchUp();
  }

  function refresh(): Promise<void> {
    // Coalesce nudges: at most one catch-up waits behind the running one.
    if (queued) return chain;
    queued = true;
    chain = chain.then(() => {
      queued = false;
      return closed ? undefined : lockedCatchUp();
    });
    return chain;
  }

  const ready = refresh();
  const unlisten = onEventsRecorded(() => void refresh().catch(() => undefined));
  const pollIntervalMs = options.pollIntervalMs ?? 30_000;
  const timer =
    pollIntervalMs > 0 ? setInterval(() => void refresh().catch(() => undefined), pollIntervalMs) : undefined;

  return {
    ready,
    refresh,
    async close() {
      closed = true;
      unlisten();
      if (timer !== undefined) clearInterval(timer);
      await chain.catch(() => undefined);
    },
  };
}
