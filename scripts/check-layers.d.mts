/**
 * Types of scripts/check-layers.mjs (the rooms and the fence table), for the unit test that runs it.
 *
 * @module
 */

/**
 * One room: a name, the folders or files it holds (root-relative) and, for an entry room, the
 * rooms it may import (without it, every room below it).
 */
export interface Layer {
  name: string;
  paths: readonly string[];
  mayImport?: readonly string[];
}

/** An arrow that must never be drawn, with why. */
export interface ForbiddenArrow {
  from: string;
  to: string;
  why: string;
}

/** One relative import of a scanned file, resolved. */
export interface ImportArrow {
  /** Root-relative path of the importing file. */
  file: string;
  /** 1-based line of the import. */
  line: number;
  /** The import as written. */
  specifier: string;
  /** Root-relative path it resolves to. */
  target: string;
}

/** An import that runs up the rooms, crosses a fence or leaves shipped code. */
export interface LayerViolation extends ImportArrow {
  /** Why it is not allowed. */
  reason: string;
}

/** The scanned files and their relative imports. */
export interface ImportGraph {
  files: readonly string[];
  arrows: readonly ImportArrow[];
}

export const LAYERS: readonly Layer[];
export const FORBIDDEN: readonly ForbiddenArrow[];
export const OFF_LIMITS: string[];
export function tableProblems(layers?: readonly Layer[], forbidden?: readonly ForbiddenArrow[]): string[];
export function layerOf(path: string): number;
export function arrowProblem(own: number, theirs: number): string | null;
export function blankComments(text: string): string;
export function importsOf(text: string): Array<{ specifier: string; line: number }>;
export function importGraph(root: string): { files: string[]; arrows: ImportArrow[] };
export function violationsOf(graph: ImportGraph): LayerViolation[];
export function checkLayers(root: string): { files: number; imports: number; violations: LayerViolation[] };
export function findLayerViolations(root: string): LayerViolation[];
export function formatViolation(violation: LayerViolation): string;
