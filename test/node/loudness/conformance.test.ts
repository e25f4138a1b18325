/**
 * The loudness meter against the EBU conformance signals that can be made exactly from their
 * published descriptions: Tech 3341 (integrated, short-term, true peak) and Tech 3342
 * (loudness range). Each signal is generated here, streamed into the meter in blocks as a
 * render would, and the published answer is asserted within the published tolerance.
 */
import { describe, expect, test } from 'vitest';
import { kWeightingFilters, LoudnessMeter, measureLoudness } from '../../../src/analysis/audio/loudness.ts';

/** One step of a test signal: a sine of `hz` at `dbfs` (peak, per channel) for `seconds`. */
interface Step {
  dbfs: number;
  seconds: number;
  hz?: number;
}

/**
 * Streams a stereo (or mono) sine sequence into a new meter, continuous in phase across steps,
 * in blocks of `block` samples; `phaseDeg` is the sine's starting phase. `fadeInSec` ramps the
 * start up (raised cosine): an abrupt onset is not a stationary sine, and its band-limited
 * reconstruction overshoots the crest (by 0.2 dB for an 8 kHz sine starting at 0°).
 */
function meterOf(
  steps: readonly Step[],
  rate = 48_000,
  channels = 2,
  block = 4_800,
  phaseDeg = 0,
  fadeInSec = 0,
): LoudnessMeter {
  const meter = new LoudnessMeter(rate, channels);
  const fadeIn = Math.round(fadeInSec * rate);
  let at = 0;
  let phase = (phaseDeg * Math.PI) / 180;
  for (const step of steps) {
    const amplitude = 10 ** (step.dbfs / 20);
    const increment = (2 * Math.PI * (step.hz ?? 1000)) / rate;
    let left = Math.round(step.seconds * rate);
    while (left > 0) {
      const n = Math.min(block, left);
      const plane = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const ramp = at < fadeIn ? 0.5 - 0.5 * Math.cos((Math.PI * at) / fadeIn) : 1;
        plane[i] = ramp * amplitude * Math.sin(phase);
        phase += increment;
        at++;
      }
      phase %= 2 * Math.PI;
      meter.push(Array.from({ length: channels }, () => plane));
      left -= n;
    }
  }
  return meter;
}

describe('K-weighting', () => {
  test('at 48 kHz, the coefficients of BS.1770-4 (tables 1 and 2)', () => {
    const { shelf, highPass } = kWeightingFilters(48_000);
    const table1 = [1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585];
    const table2 = [-1.99004745483398, 0.99007225036621];
    [shelf.b0, shelf.b1, shelf.b2, shelf.a1, shelf.a2].forEach((c, i) => expect(c).toBeCloseTo(table1[i]!, 7));
    expect(highPass.a1).toBeCloseTo(table2[0]!, 7);
    expect(highPass.a2).toBeCloseTo(table2[1]!, 7);
  });
});

describe('EBU Tech 3341: integrated loudness (stereo 1 kHz sines, tolerance ±0.1 LU)', () => {
  const cases: [string, Step[], number][] = [
    ['case 1: −23 dBFS, 20 s', [{ dbfs: -23, seconds: 20 }], -23],
    ['case 2: −33 dBFS, 20 s', [{ dbfs: -33, seconds: 20 }], -33],
    [
      'case 3: −36, −23, −36 dBFS for 10, 60, 10 s (relative gate)',
      [
        { dbfs: -36, seconds: 10 },
        { dbfs: -23, seconds: 60 },
        { dbfs: -36, seconds: 10 },
      ],
      -23,
    ],
    [
      'case 4: −72, −36, −23, −36, −72 dBFS for 10, 10, 60, 10, 10 s (both gates)',
      [
        { dbfs: -72, seconds: 10 },
        { dbfs: -36, seconds: 10 },
        { dbfs: -23, seconds: 60 },
        { dbfs: -36, seconds: 10 },
        { dbfs: -72, seconds: 10 },
      ],
      -23,
    ],
    [
      'case 5: −26, −20, −26 dBFS for 20, 20.1, 20 s',
      [
        { dbfs: -26, seconds: 20 },
        { dbfs: -20, seconds: 20.1 },
        { dbfs: -26, seconds: 20 },
      ],
      -23,
    ],
  ];
  test.each(cases)('%s', (_name, steps, expected) => {
    const measured = meterOf(steps).integratedLufs;
    console.info(`loudness: Tech 3341 ${_name}: expected ${expected} LUFS, measured ${measured.toFixed(3)}`);
    expect(Math.abs(measured - expected)).toBeLessThanOrEqual(0.1);
  });

  test.each([8_000, 16_000, 22_050, 44_100, 96_000, 192_000])(
    'case 1 at %i Hz reads −23.0 too (the filters are derived for any rate)',
    (rate) => {
      expect(Math.abs(meterOf([{ dbfs: -23, seconds: 20 }], rate, 2, 3_000).integratedLufs + 23)).toBeLessThanOrEqual(
        0.1,
      );
    },
  );

  test('mono is one channel of weight 1: a −23 dBFS sine reads −26.0 LUFS', () => {
    expect(meterOf([{ dbfs: -23, seconds: 20 }], 48_000, 1).integratedLufs).toBeCloseTo(-26.01, 1);
  });

  test('case 9 (short-term): 1.34 s at −20 dBFS then 1.66 s at −30 dBFS, repeated: every 3 s reads −23.0 ±0.1', () => {
    const steps: Step[] = [];
    for (let k = 0; k < 20; k++) steps.push({ dbfs: -20, seconds: 1.34 }, { dbfs: -30, seconds: 1.66 });
    const series = meterOf(steps).shortTermLufs();
    expect(series.length).toBe(600 - 29);
    for (const value of series) expect(Math.abs(value + 23)).toBeLessThanOrEqual(0.1);
  });

  test('silence measures nothing: no loudness, no peak, and the summary says null rather than −Infinity', () => {
    const meter = new LoudnessMeter(48_000, 2);
    const zeros = new Float32Array(48_000 * 5);
    meter.push([zeros, zeros]);
    expect(meter.integratedLufs).toBe(-Infinity);
    expect(meter.summary()).toEqual({
      integratedLufs: null,
      lraLu: null,
      maxShortTermLufs: null,
      samplePeakDbfs: null,
      truePeakDbtp: null,
      durationSec: 5,
    });
  });

  test('blocks of any size give the same figures as the whole signal at once', () => {
    const rate = 44_100;
    const n = rate * 7 + 123;
    const left = Float32Array.from({ length: n }, (_, i) => 0.3 * Math.sin(i * 0.07) * Math.sin(i / 9000));
    const right = Float32Array.from({ length: n }, (_, i) => 0.2 * Math.sin(i * 0.31 + 1) * Math.cos(i / 7000));
    const whole = measureLoudness([left, right], rate);
    const meter = new LoudnessMeter(rate, 2);
    let at = 0;
    for (const size of [1, 7, 255, 256, 257, 4410, 9999, 31]) {
      meter.push([left.subarray(at, at + size), right.subarray(at, at + size)]);
      at += size;
    }
    while (at < n) {
      meter.push([left.subarray(at, at + 12_345), right.subarray(at, at + 12_345)]);
      at += 12_345;
    }
    expect(meter.summary()).toEqual(whole);
    expect(whole.integratedLufs).not.toBeNull();
  });
});

describe('EBU Tech 3342: loudness range (stereo 1 kHz sines, tolerance ±1 LU)', () => {
  const cases: [string, Step[], number][] = [
    [
      'case 1: −20 then −30 dBFS, 20 s each',
      [
        { dbfs: -20, seconds: 20 },
        { dbfs: -30, seconds: 20 },
      ],
      10,
    ],
    [
      'case 2: −20 then −15 dBFS, 20 s each',
      [
        { dbfs: -20, seconds: 20 },
        { dbfs: -15, seconds: 20 },
      ],
      5,
    ],
    [
      'case 3: −40 then −20 dBFS, 20 s each',
      [
        { dbfs: -40, seconds: 20 },
        { dbfs: -20, seconds: 20 },
      ],
      20,
    ],
    [
      'case 4: −50, −35, −20, −35, −50 dBFS, 20 s each',
      [
        { dbfs: -50, seconds: 20 },
        { dbfs: -35, seconds: 20 },
        { dbfs: -20, seconds: 20 },
        { dbfs: -35, seconds: 20 },
        { dbfs: -50, seconds: 20 },
      ],
      15,
    ],
  ];
  test.each(cases)('%s', (name, steps, expected) => {
    const measured = meterOf(steps).loudnessRangeLu;
    console.info(`loudness: Tech 3342 ${name}: expected ${expected} LU, measured ${measured.toFixed(3)}`);
    expect(Math.abs(measured - expected)).toBeLessThanOrEqual(1);
  });
});

describe('true peak (Tech 3341 cases 15–19 style: sines whose samples miss the crest, faded in over 20 ms; tolerance +0.2/−0.4 dB)', () => {
  // [name, frequency as a fraction of fs, starting phase, peak dBFS of the continuous sine]
  const cases: [string, number, number, number][] = [
    ['fs/4 at 45°: every sample 3.01 dB under the crest', 1 / 4, 45, -6],
    ['fs/4 at 45°, samples at full scale: +3.01 dBTP', 1 / 4, 45, 20 * Math.log10(Math.SQRT2)],
    ['fs/6 at 0°: samples 1.25 dB under the crest', 1 / 6, 0, -6],
    ['fs/8 at 22.5°: samples 0.69 dB under the crest', 1 / 8, 22.5, -6],
    ['1 kHz (the crest sampled)', 1000 / 48_000, 0, -6],
  ];
  test.each(cases)('%s', (name, fraction, phaseDeg, crestDb) => {
    const meter = meterOf([{ dbfs: crestDb, seconds: 2, hz: fraction * 48_000 }], 48_000, 2, 4_800, phaseDeg, 0.02);
    const truePeak = 20 * Math.log10(meter.truePeak);
    const samplePeak = 20 * Math.log10(meter.samplePeak);
    console.info(
      `loudness: true peak ${name}: expected ${crestDb.toFixed(2)} dBTP, measured ${truePeak.toFixed(3)} (sample peak ${samplePeak.toFixed(3)} dBFS)`,
    );
    expect(truePeak - crestDb).toBeLessThanOrEqual(0.2);
    expect(truePeak - crestDb).toBeGreaterThanOrEqual(-0.4);
  });

  test('the sample peak of the fs/4, 45° sine is 3.01 dB under its true peak', () => {
    const meter = meterOf([{ dbfs: -6, seconds: 1, hz: 12_000 }], 48_000, 1, 4_800, 45, 0.02);
    expect(20 * Math.log10(meter.samplePeak)).toBeCloseTo(-6 - 3.0103, 3);
    expect(20 * Math.log10(meter.truePeak / meter.samplePeak)).toBeGreaterThan(2.8);
  });
});
