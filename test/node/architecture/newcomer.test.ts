/**
 * What a newcomer touches (docs/architecture.md, issue 54): a measure of the job's mix that the
 * planner uses is carried whole as `MixMeasures` from speaker detection to the planner, so its
 * field is named in the code of shipped files only where it is measured (energy.ts), planned
 * with (edit.ts) and used (silence.ts): never in the worker protocol, the diarizing stage, the
 * reporter, the job record or replanEdit, which would each be one more file to open.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a file without its comments (a `//` inside a string such as a URL is kept). */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

function filesNaming(identifier: string): string[] {
  const word = new RegExp(`\\b${identifier}\\b`);
  return ['src', 'workers', 'demo']
    .flatMap(sourceFiles)
    .filter((path) => word.test(codeOf(readFileSync(join(ROOT, path), 'utf8'))))
    .map((path) => path.split('\\').join('/'))
    .sort();
}

test('a measure of the mix is named only where it is measured, planned with and used', () => {
  expect(filesNaming('quietRanges')).toEqual([
    'src/analysis/edit/edit.ts',
    'src/analysis/speech/energy.ts',
    'src/analysis/edit/silence.ts',
  ]);
});

test('the measures travel as one type, through the carriers docs/architecture.md names', () => {
  expect(filesNaming('MixMeasures')).toEqual([
    'src/analysis/edit/edit.ts',
    'src/analysis/speech/energy.ts',
    'src/jobs/reporter.ts',
    'src/speakers/detect.ts',
    'src/speakers/mix.ts',
    'src/speakers/protocol.ts',
    'src/store/db.ts',
  ]);
});
