/**
 * Sync drift on a long fixture set (issue 5: "drift error ≤ 1 frame at the end of a long set").
 * Generates (cached) engineer D's `long` set at the smallest picture the generator allows
 * (sync needs only the audio), decodes each camera's audio with Debian's ffmpeg to 16 kHz mono
 * f32 (as the media worker does in the browser), runs `alignSources`, and prints per camera the
 * offset error, the drift error, the timing error at the end of the set (ms and 30 fps frames)
 * and that error projected to 60 minutes.
 *
 *   npx tsx bench/sync/drift-long.ts --minutes 10 [--seed 1] [--max-drift 100]
 *
 * test/node/sync/long.test.ts runs the same measurement with bounds (MULTICAM_LONG=1).
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alignSources, toSourceTime, type ClockMapping } from '../../src/analysis/sync/sync.ts';
import { ensureFixtureAt, FIXTURE_CACHE } from '../../tools/fixtures/cache.ts';
import type { FixtureOptions } from '../../tools/fixtures/options.ts';
import type { Truth } from '../../tools/fixtures/truth.ts';

const RATE = 16000;
const FRAME_MS = 1000 / 30;
const HOUR_MS = 3_600_000;

/**
 * Options of the long set used here: 160×90 at 10 fps (the generator's minimum size; the
 * picture is irrelevant to sync and costs most of the generation time), x264 ultrafast, the
 * default 3 cameras, drift uniform in ±`maxDriftPpm` (default 100; the seed picks the values).
 */
export function longSyncOptions(minutes: number, seed = '1', maxDriftPpm = 100): FixtureOptions {
  return { seed, seconds: minutes * 60, width: 160, height: 90, fps: 10, preset: 'ultrafast', maxDriftPpm };
}

/** One camera's result against truth, on the reference camera's clock. */
export interface DriftRow {
  label: string;
  isReference: boolean;
  /** Truth converted to the reference camera's clock (earliest source at 0). */
  truth: ClockMapping;
  /** What alignSources found. */
  found: ClockMapping;
  confidence: number;
  offsetErrorMs: number;
  driftErrorPpm: number;
  /** Reference time (ms) of the camera's last sample. */
  endMs: number;
  /** |found − truth| source media time at `endMs`. */
  endErrorMs: number;
  /** The same error 60 minutes after the camera's start (extrapolated with the found drift). */
  hourErrorMs: number;
}

/** The whole measurement. */
export interface DriftReport {
  dir: string;
  minutes: number;
  generated: boolean;
  generateMs: number;
  decodeMs: number;
  alignMs: number;
  rows: DriftRow[];
}

function decode(file: string): Float32Array {
  const buf = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-vn', '-ac', '1', '-ar', String(RATE), '-f', 'f32le', '-'],
    { maxBuffer: 1 << 30 },
  );
  return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
}

/**
 * Truth on an ideal clock → truth on reference camera r's clock (docs/decisions/002-sync.md):
 * offset (oᵢ − o_r)·(1 + d_r), drift (1 + dᵢ)/(1 + d_r) − 1, then shifted so the earliest is 0.
 */
export function truthOnReference(truth: Truth, refLabel: string): Map<string, ClockMapping> {
  const ref = truth.sources.find((s) => s.label === refLabel);
  if (!ref) throw new Error(`truth.json has no source labelled "${refLabel}"`);
  const dr = ref.driftPpm * 1e-6;
  const raw = truth.sources.map((s) => ({
    label: s.label,
    offsetMs: (s.offsetMs - ref.offsetMs) * (1 + dr),
    driftPpm: ((1 + s.driftPpm * 1e-6) / (1 + dr) - 1) * 1e6,
  }));
  const shift = Math.min(...raw.map((e) => e.offsetMs));
  return new Map(raw.map((e) => [e.label, { offsetMs: e.offsetMs - shift, driftPpm: e.driftPpm }]));
}

/** Generates (or reuses) the long set, aligns its cameras and compares with truth.json. */
export async function measureLongDrift(
  minutes: number,
  seed = '1',
  maxDriftPpm = 100,
  log: (line: string) => void = () => {},
): Promise<DriftReport> {
  const g0 = performance.now();
  const { dir, truth, generated } = await ensureFixtureAt(
    'long',
    longSyncOptions(minutes, seed, maxDriftPpm),
    FIXTURE_CACHE,
    log,
  );
  const generateMs = performance.now() - g0;
  const cams = truth.sources.filter((s) => s.kind === 'video');
  // The earliest camera is the natural reference (as in test/node/sync/fixture.test.ts).
  const ref = cams.reduce((a, b) => (b.offsetMs < a.offsetMs ? b : a));
  const d0 = performance.now();
  const signals = cams.map((s) => ({ id: s.label, samples: decode(join(dir, s.file)), sampleRate: RATE }));
  const decodeMs = performance.now() - d0;
  const a0 = performance.now();
  const aligned = alignSources(signals, { referenceId: ref.label });
  const alignMs = performance.now() - a0;
  const expected = truthOnReference(truth, ref.label);
  const rows = cams.map((s): DriftRow => {
    const t = expected.get(s.label)!;
    const got = aligned.find((a) => a.id === s.label);
    if (!got) throw new Error(`alignSources returned no result for ${s.label}`);
    const found = { offsetMs: got.offsetMs, driftPpm: got.driftPpm };
    // The camera's last sample, placed on the reference timeline by the true mapping.
    const endMs = t.offsetMs + s.durationMs / (1 + t.driftPpm * 1e-6);
    const errAt = (refMs: number): number => Math.abs(toSourceTime(refMs, found) - toSourceTime(refMs, t));
    return {
      label: s.label,
      isReference: got.isReference,
      truth: t,
      found,
      confidence: got.confidence,
      offsetErrorMs: Math.abs(found.offsetMs - t.offsetMs),
      driftErrorPpm: Math.abs(found.driftPpm - t.driftPpm),
      endMs,
      endErrorMs: errAt(endMs),
      hourErrorMs: errAt(t.offsetMs + HOUR_MS),
    };
  });
  return { dir, minutes, generated, generateMs, decodeMs, alignMs, rows };
}

function printReport(r: DriftReport, truth: { drifts: string }): void {
  const f = (x: number, d = 2): string => x.toFixed(d);
  console.log(
    `long set, ${r.minutes} min conversation, 3 cameras 160×90@10 fps, AAC 48 kHz → ffmpeg 16 kHz mono; ${r.dir}`,
  );
  console.log(
    `  ${r.generated ? 'generated' : 'cached'} in ${f(r.generateMs / 1000, 1)} s, decode ${f(r.decodeMs / 1000, 1)} s, alignSources ${f(r.alignMs / 1000, 1)} s; camera drift vs ideal clock: ${truth.drifts}`,
  );
  for (const x of r.rows) {
    if (x.isReference) {
      console.log(
        `  ${x.label} (reference): offset ${f(x.found.offsetMs)} ms (truth ${f(x.truth.offsetMs)}), drift 0 by definition`,
      );
      continue;
    }
    console.log(
      `  ${x.label}: offset ${f(x.found.offsetMs)} ms (truth ${f(x.truth.offsetMs)}, error ${f(x.offsetErrorMs, 3)} ms), ` +
        `drift ${f(x.found.driftPpm, 3)} ppm (truth ${f(x.truth.driftPpm, 3)}, error ${f(x.driftErrorPpm, 4)} ppm), confidence ${f(x.confidence)}; ` +
        `at the end (${f(x.endMs / 60_000, 2)} min) ${f(x.endErrorMs, 4)} ms = ${f(x.endErrorMs / FRAME_MS, 4)} frames @30; ` +
        `projected at 60 min ${f(x.hourErrorMs, 4)} ms = ${f(x.hourErrorMs / FRAME_MS, 4)} frames`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const minutes = Number(arg('--minutes') ?? '10');
  if (!(minutes > 0)) throw new Error(`--minutes must be a positive number (got "${arg('--minutes')}")`);
  const seed = arg('--seed') ?? '1';
  const maxDrift = Number(arg('--max-drift') ?? '100');
  if (!(maxDrift >= 0)) throw new Error(`--max-drift must be a number of ppm ≥ 0 (got "${arg('--max-drift')}")`);
  const report = await measureLongDrift(minutes, seed, maxDrift, (line) => console.log(line));
  const { truth } = await ensureFixtureAt('long', longSyncOptions(minutes, seed, maxDrift));
  printReport(report, { drifts: truth.sources.map((s) => `${s.label} ${s.driftPpm} ppm`).join(', ') });
}
