/**
 * The one error of the edit exports: a wrong input, naming the field at fault. The route maps
 * it to 400 with the contract's Error shape.
 *
 * @module
 */

/** An export input is wrong; `field` names what (e.g. `format`, `fps`, `track`, `cuts[3]`). */
export class ExportError extends Error {
  override readonly name = 'ExportError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
