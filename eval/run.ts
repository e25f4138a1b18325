/**
 * `npm run eval`: the evaluations behind the README's figures, with one PASS/FAIL line per target.
 *
 *   npm run eval [-- --only diarization|sync|camera|faces|cuts|handsoff] [--quick]
 *
 * Not part of CI: it measures quality over many cases and seeds and takes minutes to an hour.
 * Exits 1 when a target is missed.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { EVAL_AREAS, type AreaEvaluation, type EvalArea, type TargetResult } from './target.ts';

const { values } = parseArgs({
  options: { only: { type: 'string' }, quick: { type: 'boolean', default: false } },
});
const only = values.only;
if (only !== undefined && !(EVAL_AREAS as readonly string[]).includes(only)) {
  console.error(`eval: --only must be one of ${EVAL_AREAS.join(', ')} (got "${only}")`);
  process.exit(2);
}

/** Each area's module is loaded only when it runs (the diarization one loads onnxruntime). */
const AREAS: Record<EvalArea, () => Promise<AreaEvaluation>> = {
  diarization: async () => (await import('./diarization.ts')).evaluateDiarization,
  sync: async () => (await import('./sync.ts')).evaluateSync,
  camera: async () => (await import('./camera.ts')).evaluateCamera,
  faces: async () => (await import('./faces.ts')).evaluateFaces,
  cuts: async () => (await import('./cuts.ts')).evaluateCuts,
  handsoff: async () => (await import('./handsoff.ts')).evaluateHandsOff,
};

const results: TargetResult[] = [];
for (const area of EVAL_AREAS) {
  if (only !== undefined && only !== area) continue;
  const started = performance.now();
  console.log(`\n=== ${area}${values.quick ? ' (quick)' : ''}`);
  const evaluate = await AREAS[area]();
  const targets = await evaluate({ quick: values.quick, log: (line) => console.log(line) });
  console.log(`=== ${area}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
  results.push(...targets);
}

console.log('\n=== targets');
for (const r of results) console.log(`${r.pass ? 'PASS' : 'FAIL'}  ${r.area}: ${r.target} (measured: ${r.measured})`);
const failed = results.filter((r) => !r.pass).length;
console.log(`eval: ${results.length - failed} targets met, ${failed} missed`);
process.exit(failed > 0 ? 1 : 0);
