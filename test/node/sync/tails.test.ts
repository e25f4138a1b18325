/**
 * Sync from heads and tails (src/analysis/sync/sync-tails.ts) on 16-minute synthetic recordings:
 * the offsets and drift it finds from the first 4 minutes and one minute near the end are
 * those of the whole recordings, and a tail from somewhere else is refused, not fitted.
 */
import { describe, expect, test } from 'vitest';
import { alignWithTails, planTails, type TailPair } from '../../../src/analysis/sync/sync-tails.ts';
import { alignSources, type SyncSignal } from '../../../src/analysis/sync/sync.ts';
import { record, recordedOffsetMs, speechLike, type MicSpec } from './synthetic.ts';

const RATE = 8000;
const MINUTES = 16;
const HEAD_MS = 4 * 60_000;
const TAIL_MS = 60_000;

const room = speechLike(MINUTES * 60 + 30, RATE, 11);
const mics: Record<string, MicSpec> = {
  ref: { startSec: 10, durationSec: MINUTES * 60, driftPpm: 0, gain: 1, noise: 0.003, seed: 1 },
  // Starts 2.5 s after the reference and runs 80 ppm fast.
  camA: { startSec: 12.5, durationSec: MINUTES * 60 - 20, driftPpm: 80, gain: 0.5, noise: 0.005, seed: 2 },
  // Starts 4.2 s before the reference, runs 45 ppm slow, stops two minutes early.
  camB: { startSec: 5.8, durationSec: MINUTES * 60 - 120, driftPpm: -45, gain: 2, noise: 0.004, seed: 3 },
};
const whole: SyncSignal[] = Object.entries(mics).map(([id, mic]) => ({
  id,
  samples: record(room, RATE, mic),
  sampleRate: RATE,
}));
const durationsMs = Object.fromEntries(whole.map((s) => [s.id, (s.samples.length / RATE) * 1000]));
const piece = (id: string, startMs: number, lengthMs: number) => {
  const s = whole.find((w) => w.id === id)!;
  const from = Math.round((startMs / 1000) * RATE);
  return { id, sampleRate: RATE, startMs, samples: s.samples.slice(from, from + Math.round((lengthMs / 1000) * RATE)) };
};

describe('sync from heads and tails', () => {
  test('offsets within 1 ms and drift within 1 ppm of the truth, as aligning the whole recordings', () => {
    const head = alignSources(
      whole.map((s) => piece(s.id, 0, HEAD_MS)),
      { origin: 'reference' },
    );
    const plans = planTails(head, durationsMs, HEAD_MS, TAIL_MS);
    expect(plans.map((p) => p.id)).toEqual(['camA', 'camB']);
    // camB stops early: its tail ends 5 s before its own end, on the reference clock.
    const b = plans.find((p) => p.id === 'camB')!;
    expect(b.sourceStartMs + TAIL_MS).toBeLessThanOrEqual(durationsMs['camB']! - 4900);
    const tails: TailPair[] = plans.map((p) => ({
      reference: piece('ref', p.referenceStartMs, p.lengthMs),
      source: piece(p.id, p.sourceStartMs, p.lengthMs),
    }));
    const combined = alignWithTails(head, tails, { origin: 'reference' });
    if (!combined.ok) throw new Error(JSON.stringify(combined.failures));
    const full = alignSources(whole, { origin: 'reference' });
    for (const id of ['camA', 'camB']) {
      const got = combined.alignments.find((a) => a.id === id)!;
      const truthOffset = recordedOffsetMs(mics[id]!, mics['ref']!, RATE);
      expect(Math.abs(got.offsetMs - truthOffset), id).toBeLessThan(1);
      expect(Math.abs(got.driftPpm - mics[id]!.driftPpm), id).toBeLessThan(1);
      expect(got.confidence, id).toBeGreaterThan(0.5);
      const wholeAlignment = full.find((a) => a.id === id)!;
      expect(Math.abs(got.offsetMs - wholeAlignment.offsetMs), id).toBeLessThan(1);
    }
    // The head alone cannot tell drift that well over 4 minutes: the tail is what pins it.
    expect(combined.alignments.find((a) => a.id === 'camA')!.windows.some((w) => w.sourceMs > 10 * 60_000)).toBe(true);
  });

  test("the earliest source starts at 0 by default; a tail that is not the reference's same stretch is refused", () => {
    const head = alignSources(
      whole.map((s) => piece(s.id, 0, HEAD_MS)),
      { origin: 'reference' },
    );
    const plans = planTails(head, durationsMs, HEAD_MS, TAIL_MS);
    const tails: TailPair[] = plans.map((p) => ({
      reference: piece('ref', p.referenceStartMs, p.lengthMs),
      source: piece(p.id, p.sourceStartMs, p.lengthMs),
    }));
    const earliest = alignWithTails(head, tails);
    if (!earliest.ok) throw new Error(JSON.stringify(earliest.failures));
    expect(Math.min(...earliest.alignments.map((a) => a.offsetMs))).toBe(0);
    expect(earliest.alignments.find((a) => a.id === 'camB')!.offsetMs).toBeCloseTo(0, 6);
    // camA's tail taken three minutes too early: it matches the reference, but not where the head says.
    const wrong = tails.map((t) =>
      t.source.id === 'camA' ? { ...t, source: piece('camA', t.source.startMs - 180_000, TAIL_MS) } : t,
    );
    const refused = alignWithTails(head, wrong);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.failures.map((f) => f.id)).toEqual(['camA']);
  });

  test('sources whose overlap ends inside the heads get no tail', () => {
    const head = alignSources(
      whole.map((s) => piece(s.id, 0, HEAD_MS)),
      { origin: 'reference' },
    );
    expect(
      planTails(head, { ref: durationsMs['ref']!, camA: HEAD_MS, camB: durationsMs['camB']! }, HEAD_MS, TAIL_MS).map(
        (p) => p.id,
      ),
    ).toEqual(['camB']);
  });
});
