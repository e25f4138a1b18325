/**
 * Speaker names: what a person calls each detected speaker (`SPEAKER_00` → `Ana`). An additive
 * part of the contract (the Job's `speaker_names`, `PUT {base}/jobs/{id}/speakers`); the labels
 * stay the keys everywhere (turns, tracks, cuts), and the names only change what people read:
 * the review editor, cut reasons, the exports' markers. Pure.
 *
 * @module
 */

/** Detected speaker label → the name a person gave it. Unnamed speakers are absent. */
export type SpeakerNames = Readonly<Record<string, string>>;

/** The longest name accepted. */
export const SPEAKER_NAME_MAX_LENGTH = 60;

/** A speaker label as the contract writes it (`SPEAKER_<nn>`). */
const LABEL = /\bSPEAKER_\d+\b/g;

/** The name of `label`, or the label itself where it has none. */
export function speakerName(label: string, names: SpeakerNames): string {
  return Object.hasOwn(names, label) ? names[label]! : label;
}

/**
 * `text` with every speaker label in it replaced by its name.
 *
 * @example
 * withSpeakerNames('SPEAKER_01 speaks (close-up); holds while SPEAKER_00 speaks', { SPEAKER_01: 'Ana' });
 * // 'Ana speaks (close-up); holds while SPEAKER_00 speaks'
 */
export function withSpeakerNames(text: string, names: SpeakerNames): string {
  return text.replace(LABEL, (label) => speakerName(label, names));
}
