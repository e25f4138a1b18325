/**
 * `multicam edit --active-speaker-model PATH`: the argument is checked, and the static server
 * serves exactly that file at its URL path beside the app (and nothing else from its folder).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parseEditArgs, USAGE, UsageError } from '../../../src/cli/args.ts';
import { serveStatic } from '../../../src/cli/serve.ts';

const dir = mkdtempSync(join(tmpdir(), 'multicam-asd-flag-'));
const cam1 = join(dir, 'cam1.mp4');
const cam2 = join(dir, 'cam2.mp4');
const models = join(dir, 'models');
const model = join(models, 'lr-asd.onnx');
const site = join(dir, 'site');
mkdirSync(models);
mkdirSync(site);
for (const file of [cam1, cam2]) writeFileSync(file, 'not really video');
writeFileSync(model, 'model bytes');
writeFileSync(join(models, 'secret.onnx'), 'not for the page');
writeFileSync(join(site, 'index.html'), '<!doctype html>');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const errorOf = (f: () => unknown): unknown => {
  try {
    f();
  } catch (error) {
    return error;
  }
  return null;
};

describe('--active-speaker-model', () => {
  test('takes an existing .onnx file; without it there is none', () => {
    expect(parseEditArgs([cam1, cam2, '-o', 'out.mp4']).activeSpeakerModel).toBeNull();
    expect(parseEditArgs([cam1, cam2, '-o', 'out.mp4', '--active-speaker-model', model]).activeSpeakerModel).toBe(
      model,
    );
    expect(USAGE).toContain('--active-speaker-model PATH');
  });

  test('a missing file or one that is not ONNX is a usage error naming the option', () => {
    const missing = errorOf(() =>
      parseEditArgs([cam1, cam2, '-o', 'out.mp4', '--active-speaker-model', join(dir, 'nope.onnx')]),
    );
    expect(missing).toBeInstanceOf(UsageError);
    expect((missing as Error).message).toMatch(/^--active-speaker-model .*nope\.onnx: no such file$/);
    const wrong = errorOf(() => parseEditArgs([cam1, cam2, '-o', 'out.mp4', '--active-speaker-model', cam1]));
    expect((wrong as Error).message).toMatch(/expected an ONNX model/);
  });

  test('the server serves the named file at its path, and nothing else beside it', async () => {
    const server = await serveStatic(site, { index: 'index.html', files: { '/host-models/lr-asd.onnx': model } });
    try {
      const got = await fetch(`${server.origin}/host-models/lr-asd.onnx`);
      expect(got.status).toBe(200);
      expect(await got.text()).toBe('model bytes');
      expect(got.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
      for (const path of ['/host-models/secret.onnx', '/host-models/', '/host-models/lr-asd.onnx/../secret.onnx'])
        expect((await fetch(`${server.origin}${path}`)).status, path).toBe(404);
      expect((await fetch(`${server.origin}/`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
