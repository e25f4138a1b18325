/**
 * How long a test waits before it gives up. CI runs on 2 cores that may be shared with another
 * heavy job, and a step that takes 25 s on an idle machine has taken 155 s there; so every
 * timeout in the tests is the typical duration's generous bound times this factor, and nothing
 * asserts on wall-clock speed. `MULTICAM_TEST_PATIENCE` overrides it (default 4).
 *
 * @module
 */

/** The factor every timeout is multiplied by. */
export const PATIENCE = Math.max(1, Number(process.env['MULTICAM_TEST_PATIENCE'] ?? '4') || 4);

/** A timeout of `ms` on an idle machine, stretched for a loaded one. */
export function patient(ms: number): number {
  return Math.round(ms * PATIENCE);
}
