import { describe, expect, test } from 'vitest';
import {
  alignSources,
  SyncError,
  toReferenceTime,
  toSourceTime,
  type SyncSignal,
} from '../../../src/analysis/sync/sync.ts';
import { resample } from '../../../src/analysis/signal/signal-resample.ts';
import { alignPair, randomPairMics, record, recordedOffsetMs, rng, speechLike, type MicSpec } from './synthetic.ts';
import { patient } from '../../support/patience.ts';

const RATE = 16000;

/** Truth offset (ms) of mic relative to the reference mic, as record() actually cut it. */
function truthOffsetMs(mic: MicSpec, ref: MicSpec): number {
  return recordedOffsetMs(mic, ref, RATE);
}

function failuresOf(fn: () => unknown): SyncError['failures'] {
  try {
    fn();
  } catch (e) {
    if (e instanceof SyncError) return e.failures;
    throw e;
  }
  throw new Error('expected a SyncError');
}

describe('clock mapping', () => {
  test('toSourceTime and toReferenceTime are inverses and follow the documented convention', () => {
    const m = { offsetMs: 2000, driftPpm: 100 };
    // The source starts at reference 2 s; one reference second is 1.0001 source seconds.
    expect(toSourceTime(2000, m)).toBe(0);
    expect(toSourceTime(12_000, m)).toBeCloseTo(10_001, 9);
    for (const t of [-5000, 0, 1234.5, 3_600_000]) expect(toReferenceTime(toSourceTime(t, m), m)).toBeCloseTo(t, 6);
  });
});

describe('alignSources on speech-like recordings', () => {
  test(
    'three microphones with offsets, drift, gain and noise: offsets within 1 ms, drift within 2 ppm',
    () => {
      const room = speechLike(100, RATE, 1);
      const mics: MicSpec[] = [
        { startSec: 10, durationSec: 80, driftPpm: 0, gain: 1, noise: 0.002, seed: 11 },
        { startSec: 3.21737, durationSec: 70, driftPpm: 80, gain: 0.3, noise: 0.003, seed: 12 },
        { startSec: 17.5, durationSec: 75, driftPpm: -95, gain: 2.5, noise: 0.01, seed: 13 },
      ];
      const signals: SyncSignal[] = mics.map((m, i) => ({
        id: `src_${i}`,
        samples: record(room, RATE, m),
        sampleRate: RATE,
      }));
      const out = alignSources(signals, { origin: 'reference' });
      expect(out.map((o) => o.id)).toEqual(['src_0', 'src_1', 'src_2']);
      expect(out[0]).toMatchObject({ offsetMs: 0, driftPpm: 0, isReference: true });
      for (let i = 1; i < mics.length; i++) {
        const o = out[i]!;
        expect(Math.abs(o.offsetMs - truthOffsetMs(mics[i]!, mics[0]!))).toBeLessThan(1);
        expect(Math.abs(o.driftPpm - mics[i]!.driftPpm)).toBeLessThan(2);
        expect(o.confidence).toBeGreaterThan(0.5);
      }
    },
    patient(120_000),
  );

  test(
    '12 random pairs: median offset error ≤ 1 ms, worst ≤ 33 ms (one frame)',
    () => {
      const r = rng(7);
      const errors: number[] = [];
      for (let trial = 0; trial < 12; trial++) {
        const room = speechLike(30, RATE, 100 + trial);
        const { ref, cam: mic } = randomPairMics(r, 200 + trial, 300 + trial);
        const out = alignPair(room, RATE, ref, mic);
        errors.push(Math.abs(out[1]!.offsetMs - truthOffsetMs(mic, ref)));
      }
      errors.sort((a, b) => a - b);
      expect(errors[6]!).toBeLessThanOrEqual(1);
      expect(errors[11]!).toBeLessThanOrEqual(33);
    },
    patient(120_000),
  );

  test(
    'a sparse 6-minute pair drifting 100 ppm: drift known well enough to stay within a frame after an hour',
    () => {
      // 8 kHz keeps this light; the analysis runs at 8 kHz anyway.
      const rate = 8000;
      const room = speechLike(7 * 60, rate, 5, 0.35);
      const ref: MicSpec = { startSec: 30, durationSec: 360, driftPpm: 0, gain: 1, noise: 0.002, seed: 1 };
      const cam: MicSpec = { startSec: 12.3, durationSec: 360, driftPpm: 100, gain: 0.5, noise: 0.004, seed: 2 };
      const out = alignPair(room, rate, ref, cam);
      const o = out[1]!;
      const truthOffset = recordedOffsetMs(cam, ref, rate);
      expect(Math.abs(o.offsetMs - truthOffset)).toBeLessThan(1);
      // Error in source position one hour into the reference timeline.
      const hour = 3_600_000;
      const err = Math.abs(
        toSourceTime(hour, o) - toSourceTime(hour, { offsetMs: truthOffset, driftPpm: cam.driftPpm }),
      );
      expect(err).toBeLessThan(33);
    },
    patient(120_000),
  );

  test('by default the earliest source starts at 0 on the reference clock', () => {
    const room = speechLike(40, RATE, 21);
    const ref = record(room, RATE, { startSec: 5, durationSec: 30, driftPpm: 0, gain: 1, noise: 0.002, seed: 1 });
    const early = record(room, RATE, { startSec: 2, durationSec: 30, driftPpm: 0, gain: 1, noise: 0.002, seed: 2 });
    const out = alignSources([
      { id: 'ref', samples: ref, sampleRate: RATE },
      { id: 'early', samples: early, sampleRate: RATE },
    ]);
    expect(out[0]!.isReference).toBe(true);
    expect(Math.abs(out[0]!.offsetMs - 3000)).toBeLessThan(1);
    expect(Math.abs(out[1]!.offsetMs)).toBeLessThan(1e-9);
    expect(out[1]!.driftPpm).toBeCloseTo(0, 0);
  });

  test('resamples sources given at different rates', () => {
    const room = speechLike(40, RATE, 9);
    const a = record(room, RATE, { startSec: 2, durationSec: 30, driftPpm: 0, gain: 1, noise: 0.002, seed: 1 });
    const b = record(room, RATE, { startSec: 6, durationSec: 30, driftPpm: 0, gain: 1, noise: 0.002, seed: 2 });
    const out = alignSources([
      { id: 'a', samples: a, sampleRate: RATE },
      { id: 'b', samples: resample(b, RATE, 11025), sampleRate: 11025 },
    ]);
    expect(out[0]!.offsetMs).toBe(0);
    expect(Math.abs(out[1]!.offsetMs - 4000)).toBeLessThan(1);
    expect(Math.abs(out[1]!.driftPpm)).toBeLessThan(5);
  });
});

describe('alignSources failures name the source', () => {
  const room = speechLike(60, RATE, 3);
  const cam1 = record(room, RATE, { startSec: 0, durationSec: 25, driftPpm: 0, gain: 1, noise: 0.002, seed: 1 });

  test('a silent source is reported as silent', () => {
    const silent = new Float32Array(RATE * 20);
    const failures = failuresOf(() =>
      alignSources([
        { id: 'cam1', samples: cam1, sampleRate: RATE },
        { id: 'cam2', samples: silent, sampleRate: RATE },
      ]),
    );
    expect(failures).toEqual([expect.objectContaining({ id: 'cam2', code: 'silent' })]);
    expect(failures[0]!.message).toContain('cam2');
  });

  test('a silent reference fails every source through the reference', () => {
    const failures = failuresOf(() =>
      alignSources([
        { id: 'cam1', samples: new Float32Array(RATE * 20), sampleRate: RATE },
        { id: 'cam2', samples: cam1, sampleRate: RATE },
      ]),
    );
    expect(failures.map((f) => [f.id, f.code])).toEqual([['cam1', 'silent']]);
  });

  test('a recording of another room is reported as no overlap', () => {
    const other = record(speechLike(30, RATE, 99), RATE, {
      startSec: 0,
      durationSec: 25,
      driftPpm: 0,
      gain: 1,
      noise: 0.002,
      seed: 4,
    });
    const failures = failuresOf(() =>
      alignSources([
        { id: 'cam1', samples: cam1, sampleRate: RATE },
        { id: 'cam2', samples: other, sampleRate: RATE },
      ]),
    );
    expect(failures).toEqual([expect.objectContaining({ id: 'cam2', code: 'no_overlap' })]);
  });

  test('the same room at a time that does not overlap is reported as no overlap', () => {
    const later = record(room, RATE, { startSec: 30, durationSec: 25, driftPpm: 0, gain: 1, noise: 0.002, seed: 5 });
    const failures = failuresOf(() =>
      alignSources([
        { id: 'cam1', samples: cam1, sampleRate: RATE },
        { id: 'cam2', samples: later, sampleRate: RATE },
      ]),
    );
    expect(failures).toEqual([expect.objectContaining({ id: 'cam2', code: 'no_overlap' })]);
  });

  test('duplicate ids and an unknown reference are invalid input', () => {
    expect(
      failuresOf(() =>
        alignSources([
          { id: 'a', samples: cam1, sampleRate: RATE },
          { id: 'a', samples: cam1, sampleRate: RATE },
        ]),
      )[0],
    ).toMatchObject({ code: 'invalid_input' });
    expect(
      failuresOf(() => alignSources([{ id: 'a', samples: cam1, sampleRate: RATE }], { referenceId: 'zz' }))[0],
    ).toMatchObject({
      code: 'invalid_input',
      id: 'zz',
    });
  });
});
