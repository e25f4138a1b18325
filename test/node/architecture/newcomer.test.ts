/**
 * What a newcomer touches (docs/architecture.md, issue 54). A measure of the job's mix that the
 * planner uses is carried whole as `MixMeasures` from speaker detection to the planner, so its
 * field is named in the code of shipped files only where it is measured (energy.ts), planned
 * with (edit.ts) and used (silence.ts): never in the worker protocol, the diarizing stage, the
 * reporter, the job record or replanEdit, which would each be one more file to open. Likewise a
 * host model of the camera map: its URL is a field of `VisionAssets`, which the engine runner
 * resolves and the camera sampling hands to the vision worker without naming it, and which
 * `FaceModels.load` loads; and each camera's measurements travel as one `CameraMeasures`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { VISION_ASSET_FIELDS } from '../../../src/vision/protocol.ts';

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
    'src/analysis/edit/silence.ts',
    'src/analysis/speech/energy.ts',
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

/** The files between the host and the vision worker that carry its assets and each camera's measurements whole. */
const VISION_CARRIERS = [
  'src/pipeline/runner.ts',
  'src/pipeline/stages/context.ts',
  'src/pipeline/stages/mapping.ts',
  'workers/vision.worker.ts',
];

test('no URL of the vision assets is named by the engine runner, the stage context, the mapping stage or the worker', () => {
  const urls = Object.entries(VISION_ASSET_FIELDS).flatMap(([field, how]) => (how.kind === 'url' ? [field] : []));
  expect(urls).toContain('activeSpeakerModelUrl');
  for (const field of urls)
    expect(
      filesNaming(field).filter((path) => VISION_CARRIERS.includes(path)),
      field,
    ).toEqual([]);
});

test('a host model of the camera map is named only where it is declared, loaded and supplied', () => {
  // protocol.ts declares it (VisionAssets), face-models.ts loads it; the demo is a host that supplies it.
  expect(filesNaming('activeSpeakerModelUrl')).toEqual([
    'demo/session.ts',
    'src/vision/face-models.ts',
    'src/vision/protocol.ts',
  ]);
});

test("each camera's measurements travel as one type, through the carriers docs/architecture.md names", () => {
  expect(filesNaming('CameraMeasures')).toEqual([
    'src/analysis/camera/camera-map.ts',
    'src/analysis/camera/measures.ts',
    'src/pipeline/stages/mapping.ts',
    'src/vision/protocol.ts',
  ]);
  // The mapping stage converts them in one call, never field by field.
  const mapping = codeOf(readFileSync(join(ROOT, 'src/pipeline/stages/mapping.ts'), 'utf8'));
  expect(mapping).not.toMatch(/\b(samplesToReference|facesToReference)\b/);
});
