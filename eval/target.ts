/**
 * What an evaluation reports: figures it measured, and for each quality target whether it is met.
 *
 * An evaluation measures quality over many cases and seeds (a test checks behaviour on one small
 * case). `npm run eval` prints every figure and one PASS/FAIL line per target; it is not part of CI.
 *
 * @module
 */

/** One quality target and whether this run met it. */
export interface TargetResult {
  /** Which area it belongs to: `diarization`, `sync`, `camera`, `faces`, `cuts` or `handsoff`. */
  area: EvalArea;
  /** The target as a person would state it, e.g. `per-mic DER ≤ 5 % on every fixture set`. */
  target: string;
  /** The measured figure(s) behind the verdict, e.g. `3.0 % pooled, worst 4.8 %`. */
  measured: string;
  pass: boolean;
}

export const EVAL_AREAS = ['diarization', 'sync', 'camera', 'faces', 'cuts', 'handsoff'] as const;
export type EvalArea = (typeof EVAL_AREAS)[number];

/** Options every area takes. */
export interface EvalOptions {
  /** Fewer seeds and cases: a smoke run of the evaluation itself, not the quoted figures. */
  quick: boolean;
  /** Prints a line of progress or a figure. */
  log: (line: string) => void;
}

/** An area's evaluation: runs its cases, logs its figures, returns its targets. */
export type AreaEvaluation = (options: EvalOptions) => Promise<TargetResult[]>;
