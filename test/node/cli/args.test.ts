/**
 * `multicam edit`'s arguments (src/cli/args.ts): `--help` and `--export` (issue 52), and the
 * exit code `main` gives `edit --help`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { exportPaths, HelpRequested, parseEditArgs, USAGE, UsageError } from '../../../src/cli/args.ts';
import { main } from '../../../src/cli/main.ts';

const dir = mkdtempSync(join(tmpdir(), 'multicam-args-'));
const cam1 = join(dir, 'cam1.mp4');
const cam2 = join(dir, 'cam2.mp4');
for (const file of [cam1, cam2]) writeFileSync(file, 'not really video');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const errorOf = (f: () => unknown): unknown => {
  try {
    f();
  } catch (error) {
    return error;
  }
  return null;
};

describe('--help', () => {
  test('edit --help and -h ask for the usage, even beside other options or mistakes', () => {
    for (const argv of [['--help'], ['-h'], [cam1, cam2, '-o', 'out.mp4', '--help'], ['--bogus', '--help']])
      expect(errorOf(() => parseEditArgs(argv))).toBeInstanceOf(HelpRequested);
  });

  test('multicam edit --help prints the usage and exits 0; an unknown option still exits 2', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await main(['edit', '--help'])).toBe(0);
      expect(log).toHaveBeenCalledWith(USAGE);
      expect(USAGE).toContain('--export fcpxml,xmeml,otio,edl');
      expect(await main(['edit', '--bogus'])).toBe(2);
      expect(String(error.mock.calls[0]?.[0])).toContain("Unknown option '--bogus'");
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  });
});

describe('--export', () => {
  test('each format is written beside -o with its extension (xmeml is .xml)', () => {
    const args = parseEditArgs([cam1, cam2, '-o', 'renders/ep 12.mp4', '--export', 'fcpxml,xmeml,otio,edl']);
    expect(args.exports).toEqual([
      { format: 'fcpxml', path: 'renders/ep 12.fcpxml' },
      { format: 'xmeml', path: 'renders/ep 12.xml' },
      { format: 'otio', path: 'renders/ep 12.otio' },
      { format: 'edl', path: 'renders/ep 12.edl' },
    ]);
  });

  test('repeated or spaced formats are taken once, in order; none by default', () => {
    expect(parseEditArgs([cam1, cam2, '-o', 'out.mp4']).exports).toEqual([]);
    const args = parseEditArgs([cam1, cam2, '-o', 'out.mp4', '--export', 'EDL, otio', '--export', 'edl']);
    expect(args.exports.map((e) => e.path)).toEqual(['out.edl', 'out.otio']);
    // An output with no extension (or a dot only in a folder name) keeps its whole name.
    expect(exportPaths('otio', 'v1.2/out')).toEqual([{ format: 'otio', path: 'v1.2/out.otio' }]);
  });

  test('an unknown format, an empty list or an export over -o is a usage error naming it', () => {
    const aaf = errorOf(() => parseEditArgs([cam1, cam2, '-o', 'out.mp4', '--export', 'fcpxml,aaf']));
    expect(aaf).toBeInstanceOf(UsageError);
    expect((aaf as Error).message).toBe('--export: "aaf" is not an export format (use fcpxml, xmeml, otio, edl)');
    expect(errorOf(() => exportPaths(' , ', 'out.mp4'))).toBeInstanceOf(UsageError);
    const clash = errorOf(() => exportPaths('xmeml', 'out.xml'));
    expect((clash as Error).message).toContain('would overwrite -o out.xml');
  });
});

describe('--loudness', () => {
  test('-16, -14, -19 or off, written as `--loudness -14` or `--loudness=-14`; none: the service default', () => {
    expect(parseEditArgs([cam1, cam2, '-o', 'out.mp4']).loudness).toBeNull();
    expect(parseEditArgs([cam1, cam2, '-o', 'out.mp4', '--loudness', '-14']).loudness).toBe(-14);
    expect(parseEditArgs([cam1, cam2, '--loudness=-19', '-o', 'out.mp4']).loudness).toBe(-19);
    expect(parseEditArgs([cam1, cam2, '-o', 'out.mp4', '--loudness', 'off']).loudness).toBe('off');
  });

  test('another value is a usage error naming the choices', () => {
    const bad = errorOf(() => parseEditArgs([cam1, cam2, '-o', 'out.mp4', '--loudness', '-23']));
    expect(bad).toBeInstanceOf(UsageError);
    expect((bad as Error).message).toBe('--loudness must be one of -16, -14, -19, off (got "-23")');
  });
});
