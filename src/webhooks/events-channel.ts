/**
 * The `multicam-events` BroadcastChannel: a nudge, sent after a transaction that recorded
 * events commits, that wakes the webhook dispatcher and the in-page subscribers in every
 * tab and worker of the origin. The message carries no event data: receivers always read
 * the outbox, so a lost or duplicated nudge never loses or duplicates an event.
 *
 * @module
 */

/** The channel's name. */
export const EVENTS_CHANNEL = 'multicam-events';

/** The one message on the channel. */
export interface EventsRecordedMessage {
  type: 'events-recorded';
  /** Ids of the events just recorded (informational). */
  ids: string[];
}

/** Whether a channel message is an {@link EventsRecordedMessage}. */
export function isEventsRecordedMessage(data: unknown): data is EventsRecordedMessage {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === 'events-recorded';
}

/**
 * Announces newly recorded events to dispatchers and subscribers in every context of the
 * origin. Call it after the recording transaction has committed. A no-op where
 * BroadcastChannel does not exist (Node before 18).
 */
export function announceEvents(ids: readonly string[]): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(EVENTS_CHANNEL);
  const message: EventsRecordedMessage = { type: 'events-recorded', ids: [...ids] };
  channel.postMessage(message);
  channel.close();
}

/**
 * Listens for nudges; returns the function that stops listening. Returns a no-op closer
 * where BroadcastChannel does not exist.
 */
export function onEventsRecorded(listener: (message: EventsRecordedMessage) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(EVENTS_CHANNEL);
  channel.onmessage = (event: MessageEvent<unknown>) => {
    if (isEventsRecordedMessage(event.data)) listener(event.data);
  };
  return () => channel.close();
}
