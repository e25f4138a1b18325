/**
 * Sync on engineer D's tiny fixture (test/support/fixtures.ts): each camera's audio decoded by
 * Debian's ffmpeg to 16 kHz mono f32 (as the media worker does in the browser), aligned, and
 * checked against truth.json.
 *
 * truth.json puts every source on an ideal clock; alignSources uses one source's clock (the
 * reference). With reference r: a source's offset on r's clock is (oᵢ − o_r)·(1 + d_r) and its
 * drift against r is (1 + dᵢ)/(1 + d_r) − 1, then shifted so the earliest source is at 0.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { alignSources, type SourceAlignment } from '../../../src/analysis/sync/sync.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS, type Truth } from '../../support/fixtures.ts';
import { patient } from '../../support/patience.ts';

const RATE = 16000;
let truth: Truth;
let dir: string;

beforeAll(async () => {
  ({ dir, truth } = await ensureFixture('tiny'));
}, FIXTURE_TIMEOUT_MS);

function decode(file: string): Float32Array {
  const buf = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-vn', '-ac', '1', '-ar', String(RATE), '-f', 'f32le', '-'],
    { maxBuffer: 1 << 28 },
  );
  return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
}

test(
  'offsets and drift of every tiny-fixture source against truth.json',
  () => {
    const sources = truth.sources;
    // The earliest source is the natural reference; any would do.
    const ref = sources.reduce((a, b) => (b.offsetMs < a.offsetMs ? b : a));
    const out: SourceAlignment[] = alignSources(
      sources.map((s) => ({ id: s.label, samples: decode(join(dir, s.file)), sampleRate: RATE })),
      { referenceId: ref.label },
    );
    const dr = ref.driftPpm * 1e-6;
    const expectedRaw = sources.map((s) => ({
      label: s.label,
      offsetMs: (s.offsetMs - ref.offsetMs) * (1 + dr),
      driftPpm: ((1 + s.driftPpm * 1e-6) / (1 + dr) - 1) * 1e6,
    }));
    const shift = Math.min(...expectedRaw.map((e) => e.offsetMs));
    const errors: number[] = [];
    for (const e of expectedRaw) {
      const got = out.find((o) => o.id === e.label)!;
      const err = Math.abs(got.offsetMs - (e.offsetMs - shift));
      errors.push(err);
      console.log(
        `${e.label}: offset ${got.offsetMs.toFixed(2)} ms (truth ${(e.offsetMs - shift).toFixed(2)}, error ${err.toFixed(2)}), ` +
          `drift ${got.driftPpm.toFixed(1)} ppm (truth ${e.driftPpm.toFixed(1)}), confidence ${got.confidence.toFixed(2)}`,
      );
      // ~20 s files: drift is only measurable to a few ppm, which is 0.1 ms here.
      expect(Math.abs(got.driftPpm - e.driftPpm)).toBeLessThan(10);
    }
    errors.sort((a, b) => a - b);
    expect(errors[Math.floor(errors.length / 2)]!).toBeLessThanOrEqual(1);
    expect(errors.at(-1)!).toBeLessThanOrEqual(33);
  },
  patient(60_000),
);
