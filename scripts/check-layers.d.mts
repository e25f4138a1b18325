/**
 * Types of scripts/check-layers.mjs (the layering check), for the unit test that runs it.
 *
 * @module
 */

/** One layer: a name and the folders or files it holds (root-relative). */
export interface Layer {
  name: string;
  paths: string[];
}

/** An import that runs up the layers or leaves shipped code. */
export interface LayerViolation {
  /** Root-relative path of the importing file. */
  file: string;
  /** 1-based line of the import. */
  line: number;
  /** The import as written. */
  specifier: string;
  /** Root-relative path it resolves to. */
  target: string;
  /** Why it is not allowed. */
  reason: string;
}

export const LAYERS: Layer[];
export const OFF_LIMITS: string[];
export function layerOf(path: string): number;
export function blankComments(text: string): string;
export function importsOf(text: string): Array<{ specifier: string; line: number }>;
export function checkLayers(root: string): { files: number; imports: number; violations: LayerViolation[] };
export function findLayerViolations(root: string): LayerViolation[];
export function formatViolation(violation: LayerViolation): string;
