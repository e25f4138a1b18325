/**
 * Job warnings (additive): what went wrong without failing a job. Pure helpers shared by the
 * routes, the stage reporter and the webhook dispatcher, which store warnings on the job record.
 *
 * @module
 */

/** A warning as stored on a job record: like `JobWarning`, with `at` in ms since epoch. */
export interface StoredWarning {
  code: string;
  message: string;
  sourceId?: string;
  stage?: string;
  at: number;
}

/** A warning before it is stored: its time is set when it is added. */
export type NewWarning = Omit<StoredWarning, 'at'>;

/**
 * `list` with `warning` added, unless one with the same code and source is there already (the
 * first one stays: a retried stage or a resent webhook does not repeat it). Returns `list`
 * itself when nothing was added.
 *
 * @example
 * addWarning([], { code: 'decoder_fallback', message: '…', sourceId: 's1' }, Date.now());
 */
export function addWarning(list: readonly StoredWarning[], warning: NewWarning, at: number): StoredWarning[] {
  const same = list.some((w) => w.code === warning.code && w.sourceId === warning.sourceId);
  if (same) return list as StoredWarning[];
  const stored: StoredWarning = { code: warning.code, message: warning.message, at };
  if (warning.sourceId !== undefined) stored.sourceId = warning.sourceId;
  if (warning.stage !== undefined) stored.stage = warning.stage;
  return [...list, stored];
}
