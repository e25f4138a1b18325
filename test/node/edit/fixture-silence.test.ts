/**
 * Silence removal on the tiny fixture (20 s and 90 s), the way the engine does it: the diarize
 * source (no audio sources here, so the first source, cam1) decoded at 16 kHz, put on the
 * reference timeline with its offset and drift (`toReferenceTimeline`, as the diarizing stage
 * does), `envelopeDb` → `findQuietRanges` (as the analysis worker does), then `planEdit` with
 * the true turns and the expected camera map. Issue 8: tighten leaves pauses of keepPauseSec
 * ± 50 ms, non-speech in pauses survives, savedMs equals the total of the removed ranges.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { CameraMap, JobSource, SilenceSettings, TimeRange, Track } from '../../../src/contract/types.ts';
import { checkCutList, resolveSilence } from '../../../src/analysis/edit/edit.ts';
import { ENVELOPE_FLOOR_DB, adaptiveQuietThresholdDb } from '../../../src/analysis/speech/energy.ts';
import { ensureFixture, FIXTURE_TIMEOUT_MS, type Truth } from '../../support/fixtures.ts';
import { fixtureQuietRanges } from './fixture-quiet.ts';
import { pausesAfterRemoval } from './measure.ts';
import { jobOfTruth, planOfTruth } from './truth-job.ts';

const VARIANTS = [
  { name: 'tiny 20 s', options: {} },
  { name: 'tiny 90 s', options: { seconds: 90, width: 320, height: 180 } },
] as const;

interface Prepared {
  truth: Truth;
  sources: JobSource[];
  tracks: Track[];
  cameraMap: CameraMap;
  quietRanges: TimeRange[];
}
const prepared = new Map<string, Prepared>();

beforeAll(async () => {
  for (const v of VARIANTS) {
    const { dir, truth } = await ensureFixture('tiny', v.options);
    const { sources, tracks, cameraMap } = jobOfTruth(truth);
    const quietRanges = fixtureQuietRanges(dir, truth);
    prepared.set(v.name, { truth, sources, tracks, cameraMap, quietRanges });
  }
}, FIXTURE_TIMEOUT_MS);

const overlaps = (a: TimeRange, b: TimeRange): boolean => a.startMs < b.endMs && b.startMs < a.endMs;

/** Non-speech and backchannels of the truth: sounds in a pause that speaker turns do not cover. */
function sounds(truth: Truth): TimeRange[] {
  return [...truth.nonSpeech, ...truth.backchannels];
}

const SETTINGS: ReadonlyArray<SilenceSettings & { mode: 'tighten' | 'remove' }> = [
  { mode: 'tighten' },
  { mode: 'tighten', minPauseSec: 0.5 },
  { mode: 'remove' },
  { mode: 'remove', minPauseSec: 0.5 },
];

describe('silence removal on the tiny fixture audio', () => {
  for (const variant of VARIANTS) {
    for (const settings of SETTINGS) {
      test(`${variant.name}, ${JSON.stringify(settings)}`, () => {
        const { truth, sources, tracks, cameraMap, quietRanges } = prepared.get(variant.name)!;
        const silence = resolveSilence(settings);
        const plan = planOfTruth(truth, { sources, tracks, cameraMap }, 'balanced', silence, quietRanges);
        expect(checkCutList(plan.cuts, { sources, removedRanges: plan.removedRanges })).toBeNull();
        expect(plan.savedMs).toBeCloseTo(
          plan.removedRanges.reduce((s, r) => s + (r.endMs - r.startMs), 0),
          6,
        );

        // No removed range touches speech.
        for (const r of plan.removedRanges) {
          for (const t of truth.turns)
            expect(overlaps(r, t), `removed ${JSON.stringify(r)} overlaps turn ${JSON.stringify(t)}`).toBe(false);
        }
        // Non-speech in a pause survives, with paddingSec around it (less 50 ms: the energy
        // envelope is 10 ms frames and a soft attack stays under the threshold briefly).
        const paddingMs = silence.paddingSec * 1000;
        for (const r of plan.removedRanges) {
          for (const n of truth.nonSpeech) {
            const margin = { startMs: n.startMs - (paddingMs - 50), endMs: n.endMs + (paddingMs - 50) };
            expect(
              overlaps(r, margin),
              `removed ${JSON.stringify(r)} cuts into ${n.kind} ${n.startMs}–${n.endMs}`,
            ).toBe(false);
          }
        }

        // Every long pause that the truth says is silent keeps the beat, ± 50 ms.
        const beatMs =
          silence.mode === 'tighten' ? Math.max(silence.keepPauseSec * 1000, 2 * paddingMs) : 2 * paddingMs;
        const minPauseMs = silence.minPauseSec * 1000;
        const pauses = pausesAfterRemoval(truth.turns, plan.removedRanges);
        const silent = pauses.filter(
          (p) => p.pause.endMs - p.pause.startMs > minPauseMs && !sounds(truth).some((s) => overlaps(s, p.pause)),
        );
        for (const p of silent) {
          const lengthMs = p.pause.endMs - p.pause.startMs;
          expect(
            Math.abs(p.leftMs - Math.min(lengthMs, beatMs)),
            `pause ${p.pause.startMs}–${p.pause.endMs} kept ${p.leftMs} ms`,
          ).toBeLessThanOrEqual(50);
        }
        // Pauses at or under minPauseSec are untouched.
        for (const p of pauses.filter((x) => x.pause.endMs - x.pause.startMs <= minPauseMs))
          expect(p.leftMs).toBe(p.pause.endMs - p.pause.startMs);
        // A pause holding non-speech keeps at least the event and the beat around it.
        for (const p of pauses.filter((x) => truth.nonSpeech.some((n) => overlaps(n, x.pause)))) {
          const inside = truth.nonSpeech
            .filter((n) => overlaps(n, p.pause))
            .reduce((s, n) => s + (n.endMs - n.startMs), 0);
          expect(p.leftMs).toBeGreaterThanOrEqual(inside + beatMs - 50);
        }

        const shortened = silent.filter((p) => p.leftMs < p.pause.endMs - p.pause.startMs);
        console.log(
          `${variant.name} ${JSON.stringify(settings)}: ${silent.length} silent pauses over minPauseSec, ${shortened.length} shortened, ` +
            `kept ${shortened.map((p) => Math.round(p.leftMs)).join('/') || '–'} ms; ${plan.removedRanges.length} removed ranges, saved ${Math.round(plan.savedMs)} ms`,
        );
        expect(plan.savedMs).toBeGreaterThan(0);
      });
    }
  }

  test('the energy analysis finds the pauses quiet and the laughter loud', () => {
    const { truth, quietRanges } = prepared.get('tiny 20 s')!;
    const laugh = truth.nonSpeech[0]!;
    const quietMsIn = (range: TimeRange): number =>
      quietRanges.reduce(
        (s, q) => s + Math.max(0, Math.min(q.endMs, range.endMs) - Math.max(q.startMs, range.startMs)),
        0,
      );
    // The laughter decays: its last ~80 ms fall under the threshold (the padding covers them).
    const quietShare = quietMsIn(laugh) / (laugh.endMs - laugh.startMs);
    console.log(`laughter ${laugh.startMs}–${laugh.endMs}: ${(quietShare * 100).toFixed(1)} % reported quiet`);
    expect(quietShare).toBeLessThan(0.2);
    for (const p of truth.pauses.filter((x) => !overlaps(x, laugh)))
      expect(quietMsIn(p) / (p.endMs - p.startMs), JSON.stringify(p)).toBeGreaterThan(0.9);
  });

  test('digital silence before a late source starts does not drag the threshold to the floor', () => {
    // 3.6 s not recorded, then room tone at −60 dB and speech at −20 dB: the 20 s fixture's cam1.
    const env = Float32Array.from([
      ...Array<number>(360).fill(ENVELOPE_FLOOR_DB),
      ...Array<number>(400).fill(-60),
      ...Array<number>(1400).fill(-20),
    ]);
    const th = adaptiveQuietThresholdDb(env);
    expect(th).toBeGreaterThan(-60);
    expect(th).toBeLessThan(-20);
    // Digital silence inside the recording (a gated mic) still sets the floor.
    const gated = Float32Array.from([
      ...Array<number>(100).fill(-20),
      ...Array<number>(300).fill(ENVELOPE_FLOOR_DB),
      ...Array<number>(600).fill(-20),
    ]);
    expect(adaptiveQuietThresholdDb(gated)).toBe(ENVELOPE_FLOOR_DB + 12);
  });
});
