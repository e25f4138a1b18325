/**
 * The media layer's errors. Each carries a stable code in `name` because comlink only carries
 * `name`, `message` and `stack` across a worker boundary; {@link reviveMediaError} turns a
 * revived plain error back into the right class on the caller's side.
 *
 * @module
 */

/** The source cannot be read: damaged, truncated, or in a format neither engine can decode. */
export class UnreadableMediaError extends Error {
  override readonly name = 'UnreadableMediaError';
}

/** The source has no audio track (sync and diarization need one). */
export class NoAudioTrackError extends Error {
  override readonly name = 'NoAudioTrackError';
}

/** The operation was cancelled through its AbortSignal. */
export class MediaAbortError extends Error {
  override readonly name = 'AbortError';
}

/** Every error class the media layer throws on purpose. */
export type MediaError = UnreadableMediaError | NoAudioTrackError | MediaAbortError;

/**
 * Re-creates the media error class from an error that crossed a worker boundary (only `name`
 * and `message` survive); other errors are returned unchanged.
 */
export function reviveMediaError(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  switch (e.name) {
    case 'UnreadableMediaError':
      return e instanceof UnreadableMediaError ? e : new UnreadableMediaError(e.message);
    case 'NoAudioTrackError':
      return e instanceof NoAudioTrackError ? e : new NoAudioTrackError(e.message);
    case 'AbortError':
      return e instanceof MediaAbortError ? e : new MediaAbortError(e.message);
    default:
      return e;
  }
}
