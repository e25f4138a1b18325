/**
 * Where the shared data beside the checkout lives (`../shared`: LibriSpeech voices, pyannote's
 * sample, the Kaldi fbank reference, real faces, the optional host models). Nothing from it is
 * committed; tests and evaluations build their fixtures from it. `MULTICAM_SHARED` overrides it.
 *
 * @module
 */
import { join } from 'node:path';

/** The repository's root. */
export const REPO_ROOT = join(import.meta.dirname, '..');

/** The shared data folder (`../shared` beside the checkout unless `MULTICAM_SHARED` says otherwise). */
export const SHARED_DIR = process.env['MULTICAM_SHARED'] ?? join(REPO_ROOT, '..', 'shared');

/** A path inside the shared data folder, e.g. `sharedPath('data', 'pyannote', 'sample.wav')`. */
export function sharedPath(...parts: string[]): string {
  return join(SHARED_DIR, ...parts);
}
