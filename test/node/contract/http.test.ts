/** HTTP details of the handler: single byte ranges (RFC 9110) and how failures map to statuses. */
import { expect, test } from 'vitest';
import { parseRange } from '../../../src/routes/uploads.ts';

test('byte ranges: closed, open, suffix, clamped, unsatisfiable, ignored', () => {
  expect(parseRange(null, 10)).toBeNull();
  expect(parseRange('bytes=0-0', 10)).toEqual({ start: 0, end: 1 });
  expect(parseRange('bytes=2-5', 10)).toEqual({ start: 2, end: 6 });
  expect(parseRange('bytes=4-', 10)).toEqual({ start: 4, end: 10 });
  expect(parseRange('bytes=8-100', 10)).toEqual({ start: 8, end: 10 });
  expect(parseRange('bytes=-3', 10)).toEqual({ start: 7, end: 10 });
  expect(parseRange('bytes=-30', 10)).toEqual({ start: 0, end: 10 });
  expect(parseRange('bytes=10-', 10)).toBe('unsatisfiable');
  expect(parseRange('bytes=-0', 10)).toBe('unsatisfiable');
  expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
  // Invalid or multiple ranges are ignored: the whole file.
  expect(parseRange('bytes=5-2', 10)).toBeNull();
  expect(parseRange('bytes=0-1,4-5', 10)).toBeNull();
  expect(parseRange('items=0-1', 10)).toBeNull();
  expect(parseRange('bytes=-', 10)).toBeNull();
});

test('storage failures answer 503 with the Error shape; other surprises 500', async () => {
  const { errorResponse } = await import('../../../src/routes/http.ts');
  const full = errorResponse(new DOMException('quota', 'QuotaExceededError'));
  expect(full.status).toBe(503);
  expect((await full.json()).error).toContain('QuotaExceededError');
  const bug = errorResponse(new TypeError('x is undefined'));
  expect(bug.status).toBe(500);
  expect(await bug.json()).toEqual({ error: 'internal error: x is undefined' });
});
