/**
 * The layering of src/ and workers/ (issue 33): scripts/check-layers.mjs finds no import that
 * runs back up the layers in this checkout, and it does catch one in a small made-up tree
 * (an upward import, an import of tools/, a commented-out import that must not count).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { findLayerViolations, formatViolation } from '../../../scripts/check-layers.mjs';

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

test('no import in src/ or workers/ runs up the layers', () => {
  expect(findLayerViolations(ROOT).map(formatViolation)).toEqual([]);
});

test('an upward import and an import of tools/ are caught; downward, same-layer and commented imports are not', () => {
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
  });
  const found = findLayerViolations(root).map((v) => `${v.file}:${v.line} → ${v.target}`);
  expect(found).toEqual([
    'src/cli/main.ts:1 → tools/serve.ts',
    'src/store/jobs.ts:1 → src/routes/handler.ts',
    'src/store/jobs.ts:5 → src/routes/handler.ts',
  ]);
});
