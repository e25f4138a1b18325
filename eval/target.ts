/**
 * What an evaluation reports: figures it measured, and for each quality target either a gate
 * (PASS/FAIL, counted in `npm run eval`'s exit code) or an informative row (printed as `info`,
 * never PASS/FAIL, never counted).
 *
 * An evaluation measures quality over many cases and seeds (a test checks behaviour on one small
 * case). It is not part of CI.
 *
 * **Tuning and test apart, by construction.** Every evaluation names its cases in two splits
 * ({@link EvalSplits}): the *tuning* split holds every case a parameter was chosen on (or looked
 * at while one was chosen); the *test* split holds cases no parameter was chosen on. A test split
 * is never used to choose a parameter: once one has been, its cases move to the tuning split and
 * fresh ones (new seeds) take their place. Only the test split is gated ({@link Targets.gate});
 * the tuning split's figures are printed as info ({@link Targets.on} does both).
 *
 * @module
 */

export const EVAL_AREAS = ['diarization', 'sync', 'camera', 'faces', 'cuts', 'handsoff', 'long', 'loudness'] as const;
export type EvalArea = (typeof EVAL_AREAS)[number];

export const SPLITS = ['tuning', 'test'] as const;
/** `tuning`: cases a parameter was chosen on; `test`: cases none was chosen on. */
export type Split = (typeof SPLITS)[number];

/** An evaluation's cases, cut in two: what parameters were chosen on, and what they were not. */
export interface EvalSplits<T> {
  /** Cases a parameter was chosen on, or looked at while choosing one: info rows only. */
  tuning: T;
  /** Cases no parameter was chosen on: the only ones a gate reads. */
  test: T;
}

interface ResultBase {
  /** Which area it belongs to: `diarization`, `sync`, `camera`, `faces`, `cuts`, `handsoff`, `long` or `loudness`. */
  area: EvalArea;
  /** The target or figure as a person would state it, e.g. `per-mic DER ≤ 5 % on every fixture set`. */
  target: string;
  /** The measured figure(s), e.g. `3.0 % pooled, worst 4.8 %`. */
  measured: string;
}

/** A quality target on the test split: PASS or FAIL, counted in the exit code. */
export interface GateResult extends ResultBase {
  kind: 'gate';
  split: 'test';
  pass: boolean;
}

/** A figure printed as `info`: a tuning split's, a stage measured on its own, or one with no product target. */
export interface InfoResult extends ResultBase {
  kind: 'info';
  split: Split;
}

export type TargetResult = GateResult | InfoResult;

/** Collects one area's rows. */
export class Targets {
  readonly results: TargetResult[] = [];

  constructor(private readonly area: EvalArea) {}

  /** A gate on the test split: PASS/FAIL, counted in the exit code. */
  gate(target: string, measured: string, pass: boolean): void {
    this.results.push({ area: this.area, kind: 'gate', split: 'test', target, measured, pass });
  }

  /** An informative row: printed as `info`, never PASS/FAIL, never counted. */
  info(split: Split, target: string, measured: string): void {
    this.results.push({ area: this.area, kind: 'info', split, target, measured });
  }

  /** The same target on either split: a gate on the test split, info (figures only) on the tuning split. */
  on(split: Split, target: string, measured: string, pass: boolean): void {
    if (split === 'test') this.gate(target, measured, pass);
    else this.info(split, target, measured);
  }
}

/** Options every area takes. */
export interface EvalOptions {
  /** Fewer seeds and cases: a smoke run of the evaluation itself, not the quoted figures. */
  quick: boolean;
  /** Which splits to run (`--split`; both by default), in order. */
  splits: readonly Split[];
  /** Prints a line of progress or a figure. */
  log: (line: string) => void;
}

/** An area's evaluation: runs its cases, logs its figures, returns its rows. */
export type AreaEvaluation = (options: EvalOptions) => Promise<TargetResult[]>;
