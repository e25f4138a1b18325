/**
 * The rooms of src/, workers/ and demo/ (issues 33, 54): scripts/check-layers.mjs finds no
 * import that runs back up the rooms or crosses a fence in this checkout; it does catch one in
 * a small made-up tree (an upward import, an import of tools/, a demo page that opens the store,
 * a commented-out import that must not count); and each arrow of the fence table, and each
 * entry room's list of what it may import, is tried on a made-up import graph.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import {
  FORBIDDEN,
  LAYERS,
  findLayerViolations,
  formatViolation,
  tableProblems,
  violationsOf,
} from '../../../scripts/check-layers.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

let scratch: string | null = null;

afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = null;
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'multicam-layers-'));
  scratch = root;
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test('no import in src/, workers/ or demo/ runs up the rooms or crosses a fence', () => {
  expect(findLayerViolations(ROOT).map(formatViolation)).toEqual([]);
});

test('an upward import, an import of tools/ and a demo page opening the store are caught; downward, same-room and commented imports are not', () => {
  const root = tree({
    'src/routes/handler.ts': 'export const handler = 1;\n',
    'src/store/jobs.ts': [
      "import { handler } from '../routes/handler.ts';",
      "import { LIMITS } from '../contract/types.ts';",
      "// import { gone } from '../routes/gone.ts';",
      "/* const late = await import('../routes/late.ts'); */",
      "export const again = () => import('../routes/handler.ts');",
      'export const x = handler + LIMITS;',
      '',
    ].join('\n'),
    'src/contract/types.ts': 'export const LIMITS = 1;\n',
    'src/render/plan.ts': "export { x } from '../export/timeline.ts';\n",
    'src/export/timeline.ts': 'export const x = 1;\n',
    'src/cli/main.ts': "export { serve } from '../../tools/serve.ts';\n",
    'tools/serve.ts': 'export const serve = 1;\n',
    'demo/main.ts': "import { openDatabase } from '../src/store/db.ts';\nexport const db = openDatabase;\n",
    'src/store/db.ts': 'export const openDatabase = 1;\n',
  });
  const found = findLayerViolations(root).map((v) => `${v.file}:${v.line} → ${v.target}`);
  expect(found).toEqual([
    'src/cli/main.ts:1 → tools/serve.ts',
    'src/store/jobs.ts:1 → src/routes/handler.ts',
    'src/store/jobs.ts:5 → src/routes/handler.ts',
    'demo/main.ts:1 → src/store/db.ts',
  ]);
});

/** The violations of one import from `file` to `target`, as the checker words them. */
function arrow(file: string, target: string): string[] {
  const graph = { files: [file], arrows: [{ file, line: 1, specifier: `./${target}`, target }] };
  return violationsOf(graph).map((v) => v.reason);
}

test('the table is sound: every room named exists, every mayImport is below, no forbidden arrow is allowed', () => {
  expect(tableProblems()).toEqual([]);
  const rooms = LAYERS.map((layer) => layer.name);
  for (const fence of FORBIDDEN) expect(rooms).toEqual(expect.arrayContaining([fence.from, fence.to]));
});

test('a table that lets a room import upward, names no room, or allows a forbidden arrow is refused', () => {
  const layers = [
    { name: 'page', paths: ['src/dom'], mayImport: ['store', 'nowhere'] },
    { name: 'routes', paths: ['src/routes'], mayImport: ['page'] },
    { name: 'store', paths: ['src/store'] },
  ];
  expect(tableProblems(layers, [{ from: 'page', to: 'store', why: '' }])).toEqual([
    "page may import 'nowhere', which is no room",
    'routes may import page, which is not below it',
    'page may import store, which the fence table forbids',
  ]);
  expect(tableProblems(layers, [{ from: 'page', to: 'attic', why: '' }])).toContain(
    "the forbidden arrow page → attic names 'attic', which is no room",
  );
});

test.each([
  ['src/dom/start.ts', 'src/store/db.ts', 'pages never open the store'],
  ['demo/main.ts', 'src/store/db.ts', 'pages never open the store'],
  ['src/routes/jobs/job.ts', 'src/pipeline/runner.ts', 'routes and the engine never import each other'],
  ['src/pipeline/runner.ts', 'src/routes/handler.ts', 'routes and the engine never import each other'],
  ['workers/analysis.worker.ts', 'src/pipeline/stages/context.ts', 'workers never import the engine'],
])('the fence %s → %s is caught with its reason', (file, target, why) => {
  const reasons = arrow(file, target);
  expect(reasons).toHaveLength(1);
  expect(reasons[0]).toContain(why);
});

test('every forbidden arrow of the table is tried above', () => {
  const tried = new Set(['page → store', 'routes → engine', 'engine → routes', 'workers → engine']);
  expect(new Set(FORBIDDEN.map((fence) => `${fence.from} → ${fence.to}`))).toEqual(tried);
});

test.each([
  // The entry rooms sit side by side: none imports another.
  ['src/dom/start.ts', 'src/sw/sw.ts'],
  ['demo/main.ts', 'src/cli/serve.ts'],
  ['src/sw/sw.ts', 'src/dom/start.ts'],
  ['src/cli/main.ts', 'src/dom/start.ts'],
  ['workers/media.worker.ts', 'src/dom/start.ts'],
  ['src/index.ts', 'src/dom/index.ts'],
  // Each entry room imports only what its mayImport names.
  ['src/dom/start.ts', 'src/jobs/transitions.ts'],
  ['src/sw/sw.ts', 'src/store/db.ts'],
  ['src/cli/main.ts', 'src/routes/handler.ts'],
  ['src/cli/main.ts', 'src/service.ts'],
  ['workers/render.worker.ts', 'src/store/files.ts'],
  ['workers/render.worker.ts', 'src/service.ts'],
  // Below the entry rooms, the order: nothing imports a room above it.
  ['src/jobs/transitions.ts', 'src/routes/http.ts'],
  ['src/store/jobs.ts', 'src/webhooks/outbox.ts'],
  ['src/analysis/edit/edit.ts', 'src/media/client.ts'],
  ['src/media/client.ts', 'workers/media.worker.ts'],
  // Speaker detection sits above the media room and below the job domain and the engine.
  ['src/speakers/detect.ts', 'src/pipeline/stages/diarizing.ts'],
  ['src/speakers/service.ts', 'src/jobs/reporter.ts'],
  ['src/speakers/service.ts', 'src/store/files.ts'],
  ['src/media/scratch.ts', 'src/speakers/protocol.ts'],
  ['src/vision/camera-sampling.ts', 'src/speakers/protocol.ts'],
  ['src/analysis/diarize/per-mic.ts', 'src/speakers/signals.ts'],
  ['src/dom/start.ts', 'src/speakers/service.ts'],
])('%s → %s is refused', (file, target) => {
  expect(arrow(file, target)).toHaveLength(1);
});

test.each([
  ['demo/main.ts', 'src/dom/start.ts'],
  ['demo/main.ts', 'src/client/client.ts'],
  ['demo/main.ts', 'src/webhooks/page-outbox.ts'],
  ['src/dom/start.ts', 'src/service.ts'],
  ['src/dom/start.ts', 'src/pipeline/runner.ts'],
  ['src/sw/sw.ts', 'src/pipeline/queue-engine.ts'],
  ['src/vite/plugin.ts', 'src/cli/package-assets.ts'],
  ['workers/analysis.worker.ts', 'src/speakers/service.ts'],
  ['workers/vad-lane.worker.ts', 'src/speakers/protocol.ts'],
  ['src/pipeline/stages/diarizing.ts', 'src/speakers/protocol.ts'],
  ['src/speakers/mix.ts', 'src/media/wav.ts'],
  ['src/speakers/detect.ts', 'src/models/host-models.ts'],
  ['src/speakers/detect.ts', 'src/analysis/diarize/per-mic.ts'],
  ['src/pipeline/runner.ts', 'src/vision/camera-sampling.ts'],
  ['src/index.ts', 'src/store/db.ts'],
  ['src/routes/jobs/job.ts', 'src/jobs/mapping-decision.ts'],
  ['src/jobs/reporter.ts', 'src/jobs/mapping-decision.ts'],
  ['src/service.ts', 'src/jobs/reporter.ts'],
  ['src/pipeline/runner.ts', 'src/jobs/reporter.ts'],
])('%s → %s is allowed', (file, target) => {
  expect(arrow(file, target)).toEqual([]);
});

test('a file in no room is named, and so is an import of one', () => {
  const graph = {
    files: ['src/attic/old.ts', 'src/routes/http.ts'],
    arrows: [{ file: 'src/routes/http.ts', line: 3, specifier: '../attic/old.ts', target: 'src/attic/old.ts' }],
  };
  expect(violationsOf(graph).map(formatViolation)).toEqual([
    'src/attic/old.ts:1: the file is in no room (add its folder to LAYERS)',
    "src/routes/http.ts:3: '../attic/old.ts' → src/attic/old.ts: the target is in no room (add its folder to LAYERS)",
  ]);
});
