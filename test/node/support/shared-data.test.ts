/**
 * The test helpers that keep a skipped test from passing for a green one: requireSharedData
 * (test/support/shared-data.ts) skips without the data but fails under CI, and the tier's
 * counter (test/support/tier-count-reporter.ts) counts skipped tests and failed files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { TestModule } from 'vitest/node';
import { requireSharedData, SharedDataMissingError } from '../../support/shared-data.ts';
import { countTests } from '../../support/tier-count-reporter.ts';

const dir = mkdtempSync(join(tmpdir(), 'multicam-shared-data-test-'));
const present = join(dir, 'model.onnx');
writeFileSync(present, 'x');
const absent = join(dir, 'absent.onnx');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('requireSharedData', () => {
  test('present: true, in CI or not', () => {
    expect(requireSharedData([present], {})).toBe(true);
    expect(requireSharedData([present], { CI: 'true' })).toBe(true);
  });

  test('absent outside CI: false, so the test is skipped', () => {
    expect(requireSharedData([present, absent], {})).toBe(false);
    expect(requireSharedData([absent], { CI: 'false' })).toBe(false);
  });

  test('absent under CI=true: an error naming only the missing paths', () => {
    let error: unknown;
    try {
      requireSharedData([present, absent], { CI: 'true' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SharedDataMissingError);
    expect((error as Error).message).toContain(absent);
    expect((error as Error).message).not.toContain(present);
  });
});

/** A TEST DOUBLE of vitest's TestModule: only what countTests reads. */
function moduleDouble(
  state: 'passed' | 'failed' | 'skipped',
  tests: Array<'passed' | 'failed' | 'skipped'>,
  id = 'a.test.ts',
): TestModule {
  const errors = (s: string) => (s === 'failed' ? [{ message: `\nexpected 1 to be 2\n  at line 3` }] : []);
  return {
    moduleId: id,
    state: () => state,
    errors: () => [{ message: 'Cannot find module x' }],
    children: {
      allTests: () => {
        const all = tests.map((s, i) => ({ fullName: `t${i}`, result: () => ({ state: s, errors: errors(s) }) }));
        return all[Symbol.iterator]();
      },
    },
  } as unknown as TestModule;
}

describe('countTests (the tier closing line)', () => {
  test('counts skipped tests as skipped, a file that failed outside its tests and each unhandled error as failed', () => {
    const modules = [
      moduleDouble('passed', ['passed', 'passed', 'skipped']),
      moduleDouble('failed', ['passed', 'failed']),
      moduleDouble('failed', []), // failed at import: e.g. shared data missing under CI
      moduleDouble('skipped', ['skipped', 'skipped']),
    ];
    expect(countTests(modules, [])).toMatchObject({ passed: 3, failed: 2, skipped: 3 });
    expect(countTests(modules, [{ message: 'boom' }, {}])).toMatchObject({ passed: 3, failed: 4, skipped: 3 });
  });

  test('names each failure with its first error line, so the log ends saying what failed', () => {
    const modules = [
      moduleDouble('failed', ['passed', 'failed'], 'demo.test.ts'),
      moduleDouble('failed', [], 'faces.test.ts'),
    ];
    expect(countTests(modules, [{ message: 'worker crashed\nstack' }]).failures).toEqual([
      'unhandled error: worker crashed',
      'demo.test.ts > t1: expected 1 to be 2',
      'faces.test.ts (outside its tests): Cannot find module x',
    ]);
  });
});
