/**
 * Free text a person types (source labels, the job title, cut reasons) as one plain line: what
 * every export, the editor and the events can carry as is. A CMX 3600 EDL is line-based, so a
 * newline in a label would add an event; XML 1.0 forbids most C0 controls even escaped, and
 * U+FFFE/U+FFFF; a lone surrogate cannot be encoded as UTF-8 (nor percent-encoded in a URL).
 * Pure.
 *
 * @module
 */

/** Line breaks and tabs (CR, LF, VT, FF, TAB, NEL, LS, PS): each run becomes one space. */
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;

/**
 * What plain text never holds: the other C0 controls, DEL, the C1 controls, U+FFFE/U+FFFF and
 * lone surrogates (a high one not followed by a low one, a low one not after a high one).
 */
const UNPRINTABLE =
  // eslint-disable-next-line no-control-regex -- control characters are what it matches
  /[\u0000-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` as one plain line: line breaks and tabs become a space, other control characters,
 * U+FFFE/U+FFFF and lone surrogates are removed, and the ends are trimmed. Printable text
 * (any script, emoji) is kept as is.
 *
 * @example
 * plainLine('Cam A\n* FROM CLIP NAME: x\u0007'); // 'Cam A * FROM CLIP NAME: x'
 */
export function plainLine(text: string): string {
  return text.replace(BREAKS, ' ').replace(UNPRINTABLE, '').trim();
}

/** Whether `text` holds a character {@link plainLine} would replace or remove. */
export function hasControlCharacters(text: string): boolean {
  return new RegExp(BREAKS.source).test(text) || new RegExp(UNPRINTABLE.source).test(text);
}
