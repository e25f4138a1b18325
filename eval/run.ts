/**
 * `npm run eval`: the evaluations behind the README's figures.
 *
 *   npm run eval [-- --only diarization|sync|camera|faces|cuts|handsoff|long|loudness] [--split tuning|test|both] [--quick]
 *
 * Not part of CI: it measures quality over many cases and seeds and takes minutes to an hour.
 *
 * Every evaluation names a tuning split (the cases its parameters were chosen on) and a test
 * split (cases none was chosen on); see eval/target.ts. A test split is never used to choose a
 * parameter. Each row is either a gate (PASS/FAIL, on the test split only) or `info` (the tuning
 * split's figures, stages measured on their own, figures with no product target), and `--split`
 * picks which splits run (both by default). Exits 1 when a gate fails, 0 otherwise (info rows
 * never count), 2 on a bad option.
 *
 * Each area's rows of each split are written to `eval/results/<area>-<split>[-quick].json` (with
 * the commit and date), the file the README's figures block and docs/figures.md are generated
 * from (`node scripts/eval-figures.mjs`; `npm run check` fails when they differ).
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EVAL_AREAS, SPLITS, type AreaEvaluation, type EvalArea, type Split, type TargetResult } from './target.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    split: { type: 'string', default: 'both' },
    quick: { type: 'boolean', default: false },
  },
});
const only = values.only;
if (only !== undefined && !(EVAL_AREAS as readonly string[]).includes(only)) {
  console.error(`eval: --only must be one of ${EVAL_AREAS.join(', ')} (got "${only}")`);
  process.exit(2);
}
const split = values.split;
if (split !== 'both' && !(SPLITS as readonly string[]).includes(split)) {
  console.error(`eval: --split must be one of ${SPLITS.join(', ')}, both (got "${split}")`);
  process.exit(2);
}
const splits: readonly Split[] = split === 'both' ? SPLITS : [split as Split];

/** Each area's module is loaded only when it runs (the diarization one loads onnxruntime). */
const AREAS: Record<EvalArea, () => Promise<AreaEvaluation>> = {
  diarization: async () => (await import('./diarization.ts')).evaluateDiarization,
  sync: async () => (await import('./sync.ts')).evaluateSync,
  camera: async () => (await import('./camera.ts')).evaluateCamera,
  faces: async () => (await import('./faces.ts')).evaluateFaces,
  cuts: async () => (await import('./cuts.ts')).evaluateCuts,
  handsoff: async () => (await import('./handsoff.ts')).evaluateHandsOff,
  long: async () => (await import('./long.ts')).evaluateLong,
  loudness: async () => (await import('./loudness.ts')).evaluateLoudness,
};

const RESULTS_DIR = join(import.meta.dirname, 'results');

/** The commit the figures were measured on, `+` when the tree had changes. */
function commitOf(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty === '' ? head : `${head}+`;
  } catch {
    return 'unknown';
  }
}

/** One area's rows of one split, as the figures are generated from (scripts/eval-figures.mjs). */
function writeResults(area: EvalArea, s: Split, seconds: number, rows: TargetResult[]): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${area}-${s}${values.quick ? '-quick' : ''}.json`);
  const record = {
    area,
    split: s,
    quick: values.quick,
    commit: commitOf(),
    date: new Date().toISOString().slice(0, 10),
    seconds,
    rows,
  };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
}

const results: TargetResult[] = [];
for (const area of EVAL_AREAS) {
  if (only !== undefined && only !== area) continue;
  const started = performance.now();
  console.log(`\n=== ${area} (${splits.join(' and ')} split${values.quick ? ', quick' : ''})`);
  const evaluate = await AREAS[area]();
  const rows = await evaluate({ quick: values.quick, splits, log: (line) => console.log(line) });
  const seconds = Math.round((performance.now() - started) / 1000);
  console.log(`=== ${area}: ${seconds} s`);
  results.push(...rows);
  for (const s of splits)
    writeResults(
      area,
      s,
      seconds,
      rows.filter((r) => r.split === s),
    );
}

console.log('\n=== targets (PASS/FAIL: gates on the test split; info: never counted)');
for (const r of results) {
  const verdict = r.kind === 'gate' ? (r.pass ? 'PASS' : 'FAIL') : 'info';
  console.log(`${verdict}  ${r.area} [${r.split}]: ${r.target} (measured: ${r.measured})`);
}
const gates = results.filter((r) => r.kind === 'gate');
const failed = gates.filter((r) => !r.pass).length;
console.log(
  `eval: ${gates.length - failed} gates met, ${failed} failed; ${results.length - gates.length} info rows (not counted)`,
);
process.exit(failed > 0 ? 1 : 0);
