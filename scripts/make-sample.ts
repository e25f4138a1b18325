/**
 * `npx tsx scripts/make-sample.ts [--force]`: makes the demo's built-in sample podcast from
 * what the project owns only: espeak-ng voices and drawn people (tools/fixtures), two
 * speakers, three cameras (two close-ups and a two-shot) and one close mic per speaker,
 * 60 s at 640×360 (long enough for the camera map to be sure of both close-ups). Written to .cache/sample/ (gitignored) with a `manifest.json` that the
 * demo page reads; `npm run demo` runs this when the sample is missing.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SAMPLE_DIR, type SampleManifest } from '../demo/sample/manifest.ts';
import type { FixtureOptions } from '../tools/fixtures/options.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** The sample's fixture options (tools/fixtures on the `tiny` set); eval/handsoff.ts measures the same set. */
export const SAMPLE_FIXTURE_OPTIONS = {
  voices: 'espeak',
  speakers: 2,
  cameras: 'closeup:1,closeup:2,twoshot:1-2',
  seconds: 60,
  width: 640,
  height: 360,
  mics: true,
  seed: 'demo-sample-1',
} as const satisfies Partial<FixtureOptions>;

/** The generator's arguments: changing them changes `version`, which forces a rebuild. */
const FIXTURE_ARGS = [
  '--set',
  'tiny',
  ...Object.entries(SAMPLE_FIXTURE_OPTIONS).flatMap(([k, v]) => (v === true ? [`--${k}`] : [`--${k}`, String(v)])),
];
/** Bumped by hand when the manifest's labels or files change. */
const MANIFEST_REVISION = 2;
const VERSION = `${FIXTURE_ARGS.join(' ')} manifest ${MANIFEST_REVISION}`;

/** Makes the sample unless an up-to-date one is there; returns its directory. */
export function makeSample(options: { force?: boolean; root?: string } = {}): string {
  const dir = join(options.root ?? ROOT, SAMPLE_DIR);
  const manifestPath = join(dir, 'manifest.json');
  if (!options.force && existsSync(manifestPath)) {
    const current = JSON.parse(readFileSync(manifestPath, 'utf8')) as SampleManifest;
    if (current.version === VERSION) return dir;
  }
  rmSync(dir, { recursive: true, force: true });
  console.log('[sample] generating the built-in sample podcast (espeak-ng voices, drawn cameras; ~10 s)…');
  execFileSync('npx', ['tsx', join(ROOT, 'tools/fixtures/cli.ts'), ...FIXTURE_ARGS, '--out', dir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const recipe: Array<Omit<SampleManifest['files'][number], 'size'>> = [
    // No speaker in the labels: the job names speakers by what it hears (SPEAKER_00, …), in its own order.
    { file: 'cam1.mp4', label: 'Cam 1 (close-up)', kind: 'video' },
    { file: 'cam2.mp4', label: 'Cam 2 (close-up)', kind: 'video' },
    { file: 'cam3.mp4', label: 'Cam 3 (two-shot)', kind: 'video' },
    { file: 'mic-spk1.wav', label: 'Mic 1', kind: 'audio' },
    { file: 'mic-spk2.wav', label: 'Mic 2', kind: 'audio' },
  ];
  const files = recipe.map((f) => ({ ...f, size: statSync(join(dir, f.file)).size }));
  const manifest: SampleManifest = {
    version: VERSION,
    title: 'Built-in sample: two people, three cameras, two mics (60 s, synthetic)',
    files,
  };
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  console.log(`[sample] ${dir}`);
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) makeSample({ force: process.argv.includes('--force') });
