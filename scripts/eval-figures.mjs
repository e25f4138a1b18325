// The figures the README and docs quote, generated from the evaluations' output (issue 49).
//
// `npm run eval` writes each area's rows of each split to eval/results/<area>-<split>[-quick].json
// ({ area, split, quick, commit, date, seconds, rows }, rows as eval/target.ts's TargetResult).
// This script reads every one of them and writes
//   - docs/figures.md: every row, per area (test split first), and
//   - docs/status.md between `<!-- eval-figures:begin -->` and `<!-- eval-figures:end -->`: the test
//     split's gates only (PASS/FAIL), with a pointer to docs/figures.md for the info rows.
// Where an area's split has both a full and a `--quick` file, the full one is shown. Nobody edits
// either by hand. Both are formatted with Prettier (markdown), so the output is stable.
//
//   node scripts/eval-figures.mjs           write docs/figures.md and the docs/status.md block
//   node scripts/eval-figures.mjs --check   exit 1 when either differs from eval/results (npm run check)
//
// Plain Node, no dependencies besides the repository's Prettier.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'eval', 'results');
const FIGURES = join(ROOT, 'docs', 'figures.md');
const README = join(ROOT, 'docs', 'status.md');
const BEGIN = '<!-- eval-figures:begin -->';
const END = '<!-- eval-figures:end -->';
const SPLITS = ['test', 'tuning'];

/** The areas in eval/target.ts's EVAL_AREAS order (read from the source: one list, not two). */
function evalAreas() {
  const source = readFileSync(join(ROOT, 'eval', 'target.ts'), 'utf8');
  const m = /export const EVAL_AREAS = \[([^\]]*)\]/.exec(source);
  if (!m) throw new Error('eval/target.ts: no `export const EVAL_AREAS = [...]` found');
  return [...m[1].matchAll(/'([a-z]+)'/g)].map((a) => a[1]);
}

/** Fails with the file and the field that is wrong. */
function check(condition, file, message) {
  if (!condition) throw new Error(`eval/results/${file}: ${message}`);
}

/** Reads and validates one results file. */
function readResults(file, areas) {
  let record;
  try {
    record = JSON.parse(readFileSync(join(RESULTS, file), 'utf8'));
  } catch (error) {
    throw new Error(`eval/results/${file}: not JSON (${error.message})`, { cause: error });
  }
  check(typeof record === 'object' && record !== null, file, 'must be an object');
  check(areas.includes(record.area), file, `area must be one of ${areas.join(', ')} (got ${record.area})`);
  check(SPLITS.includes(record.split), file, `split must be test or tuning (got ${record.split})`);
  check(typeof record.quick === 'boolean', file, 'quick must be true or false');
  check(typeof record.commit === 'string', file, 'commit must be a string');
  check(typeof record.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(record.date), file, 'date must be YYYY-MM-DD');
  check(Array.isArray(record.rows), file, 'rows must be an array');
  record.rows.forEach((row, i) => {
    check(row.kind === 'gate' || row.kind === 'info', file, `rows[${i}].kind must be gate or info`);
    check(row.split === record.split, file, `rows[${i}].split must be ${record.split}`);
    check(
      typeof row.target === 'string' && typeof row.measured === 'string',
      file,
      `rows[${i}] needs target and measured`,
    );
    check(row.kind === 'info' || typeof row.pass === 'boolean', file, `rows[${i}].pass must be true or false`);
  });
  return { file, ...record };
}

/** Every area's results, full runs over quick ones: Map area → Map split → record. */
function collect(areas) {
  const files = existsSync(RESULTS) ? readdirSync(RESULTS).filter((f) => f.endsWith('.json')) : [];
  const byArea = new Map(areas.map((a) => [a, new Map()]));
  for (const file of files.sort()) {
    const record = readResults(file, areas);
    const splits = byArea.get(record.area);
    const held = splits.get(record.split);
    if (held === undefined || (held.quick && !record.quick)) splits.set(record.split, record);
    else if (held.quick === record.quick)
      throw new Error(`eval/results: ${held.file} and ${file} are both ${record.area}'s ${record.split} split`);
  }
  return byArea;
}

/** One table cell: no pipes or line breaks to break the table. */
const cell = (text) =>
  String(text)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|');
const row = (cells) => `| ${cells.map(cell).join(' | ')} |`;
const table = (head, rows) => [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');
const result = (r) => (r.kind === 'gate' ? (r.pass ? 'PASS' : 'FAIL') : 'info');
const mode = (record) => (record.quick ? 'quick' : 'full');

function figuresPage(areas, byArea) {
  const parts = [
    '# Evaluation figures',
    'Back to the [README](../README.md) and [status](status.md). Generated: `npm run eval` writes each area’s rows of each ' +
      'split to `eval/results/<area>-<split>[-quick].json`, and `node scripts/eval-figures.mjs` makes this ' +
      'page and docs/status.md’s PASS/FAIL table from them. Never edit either by hand: `npm run check` fails ' +
      'when they differ from the JSON.',
    'PASS/FAIL rows are gates on the **test split** (cases no parameter was chosen on). `info` rows ' +
      'are never counted: the **tuning split** (cases parameters were chosen on, so not results), a ' +
      'stage measured on its own, or a figure with no product target; each row says which. Mode ' +
      '`quick` is a smoke run with fewer cases and seeds (`--quick`), shown only where no full run of ' +
      'that split has been recorded. How the splits are kept apart: [testing.md](testing.md#evaluations-npm-run-eval).',
  ];
  for (const area of areas) {
    parts.push(`## ${area}`);
    const records = SPLITS.map((s) => byArea.get(area).get(s)).filter((r) => r !== undefined);
    const missing = SPLITS.filter((s) => !byArea.get(area).has(s));
    if (records.length > 0)
      parts.push(
        table(
          ['split', 'mode', 'gate', 'target', 'measured', 'commit', 'date'],
          records.flatMap((rec) =>
            rec.rows.map((r) => [rec.split, mode(rec), result(r), r.target, r.measured, rec.commit, rec.date]),
          ),
        ),
      );
    if (missing.length > 0)
      parts.push(`Not yet run: ${missing.map((s) => `${s} split`).join(', ')} (\`npm run eval -- --only ${area}\`).`);
  }
  return `${parts.join('\n\n')}\n`;
}

function readmeBlock(areas, byArea) {
  const rows = [];
  const notRun = [];
  for (const area of areas) {
    const test = byArea.get(area).get('test');
    if (test === undefined) notRun.push(area);
    else
      for (const r of test.rows.filter((x) => x.kind === 'gate'))
        rows.push([area, r.target, r.measured, result(r), mode(test), test.date]);
  }
  const parts = ['<!-- Generated by node scripts/eval-figures.mjs from eval/results/*.json: do not edit by hand. -->'];
  if (rows.length > 0) parts.push(table(['area', 'target (test split)', 'measured', 'result', 'mode', 'date'], rows));
  if (notRun.length > 0) parts.push(`Test split not yet run: ${notRun.join(', ')}.`);
  parts.push(
    'Every row, with the info rows (tuning split, stages measured alone) and the commit each was ' +
      'measured on: [docs/figures.md](figures.md).',
  );
  return `${parts.join('\n\n')}\n`;
}

async function format(markdown) {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(FIGURES)) ?? {};
  return prettier.format(markdown, { ...options, parser: 'markdown' });
}

/** The README with its block replaced by `block`; throws when the markers are missing. */
function withBlock(readme, block) {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin < 0 || end < begin)
    throw new Error(
      `docs/status.md lacks the markers ${BEGIN} … ${END} (in its Status section) around the figures block`,
    );
  return `${readme.slice(0, begin + BEGIN.length)}\n\n${block}\n${readme.slice(end)}`;
}

async function main() {
  const checkOnly = process.argv.includes('--check');
  const areas = evalAreas();
  const byArea = collect(areas);
  const page = await format(figuresPage(areas, byArea));
  const readme = readFileSync(README, 'utf8');
  const wanted = withBlock(readme, await format(readmeBlock(areas, byArea)));
  const current = existsSync(FIGURES) ? readFileSync(FIGURES, 'utf8') : null;
  if (checkOnly) {
    const stale = [];
    if (current !== page) stale.push(current === null ? 'docs/figures.md is missing' : 'docs/figures.md differs');
    if (readme !== wanted) stale.push(`docs/status.md's block between ${BEGIN} and ${END} differs`);
    if (stale.length > 0) {
      console.error(
        `eval-figures: ${stale.join('; ')} from eval/results/*.json. ` +
          'Run `node scripts/eval-figures.mjs` to regenerate (never edit the figures by hand).',
      );
      process.exit(1);
    }
    return;
  }
  if (current !== page) writeFileSync(FIGURES, page);
  if (readme !== wanted) writeFileSync(README, wanted);
  const count = [...byArea.values()].reduce((n, splits) => n + splits.size, 0);
  console.log(`eval-figures: docs/figures.md and the README block from ${count} results file(s)`);
}

try {
  await main();
} catch (error) {
  console.error(`eval-figures: ${error.message}`);
  process.exit(1);
}
