import { expect, test } from 'vitest';
import { holdOwnPauses, OWN_PAUSE_MS } from '../../../src/analysis/edit/cuts/timeline.ts';
import { planEdit, resolveSilence } from '../../../src/analysis/edit/edit.ts';
import type { JobSource, Turn } from '../../../src/contract/types.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

test("a speaker's own short pauses are held; a pause someone else speaks in, or a long one, is not", () => {
  const A = 'SPEAKER_00';
  const B = 'SPEAKER_01';
  expect(
    holdOwnPauses([
      { speaker: A, startMs: 0, endMs: 4000 },
      { speaker: A, startMs: 4000 + OWN_PAUSE_MS, endMs: 9000 }, // a breath: held
      { speaker: B, startMs: 9500, endMs: 10_000 },
      { speaker: A, startMs: 10_200, endMs: 14_000 }, // B spoke in the gap: kept apart
      { speaker: A, startMs: 14_000 + OWN_PAUSE_MS + 1, endMs: 20_000 }, // too long: kept apart
    ]),
  ).toEqual([
    { speaker: A, startMs: 0, endMs: 9000 },
    { speaker: B, startMs: 9500, endMs: 10_000 },
    { speaker: A, startMs: 10_200, endMs: 14_000 },
    { speaker: A, startMs: 14_000 + OWN_PAUSE_MS + 1, endMs: 20_000 },
  ]);
});

test('a speaker who breathes between phrases stays on their close-up (no cut to the wide at each breath)', () => {
  const sources: JobSource[] = ['a', 'b', 'w'].map((id) => ({
    id,
    label: id,
    kind: 'video',
    ext: 'mp4',
    durationMs: 30_000,
  }));
  // A talks for 18 s in short phrases with breaths between (as a detector hears them), B
  // nods along twice ("mm-hm"), then B talks.
  const turns = [];
  for (let t = 0; t < 18_000; t += 1700) turns.push({ speaker: 'SPEAKER_00', startMs: t, endMs: t + 1200 });
  turns.push(
    { speaker: 'SPEAKER_01', startMs: 6000, endMs: 6500 },
    { speaker: 'SPEAKER_01', startMs: 12_000, endMs: 12_500 },
  );
  turns.push({ speaker: 'SPEAKER_01', startMs: 19_000, endMs: 30_000 });
  const { cuts } = planEdit({
    turns,
    tracks: [
      { sourceId: 'a', speakers: ['SPEAKER_00'] },
      { sourceId: 'b', speakers: ['SPEAKER_01'] },
      { sourceId: 'w', speakers: ['SPEAKER_00', 'SPEAKER_01'] },
    ],
    sources,
    cameraMap: null,
    presetId: 'balanced',
    silence: resolveSilence(null),
  });
  const onA = cuts.filter((c) => c.sourceId === 'a').reduce((ms, c) => ms + Math.min(c.endMs, 18_000) - c.startMs, 0);
  expect(onA / 18_000).toBeGreaterThan(0.95);
});

test('holding own pauses in one sweep gives what checking every earlier turn gives (random turns)', () => {
  // The rule as first written: a gap is someone else's when any other speaker's turn begun
  // before the later turn ends after the earlier one.
  const byScan = (turns: readonly Turn[], maxPauseMs: number): Turn[] => {
    const sorted = [...turns].sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
    const out: Turn[] = [];
    const lastOf = new Map<string, number>();
    for (const t of sorted) {
      const j = lastOf.get(t.speaker);
      const prev = j === undefined ? undefined : out[j]!;
      if (prev !== undefined) {
        const someoneElse = sorted.some(
          (o) => o.speaker !== t.speaker && o.startMs < t.startMs && o.endMs > prev.endMs,
        );
        if (t.startMs - prev.endMs <= maxPauseMs && !someoneElse) {
          out[j!] = { ...prev, endMs: Math.max(prev.endMs, t.endMs) };
          continue;
        }
      }
      lastOf.set(t.speaker, out.length);
      out.push({ ...t });
    }
    return out.sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  };
  const random = seededRandom(7);
  for (let run = 0; run < 300; run++) {
    const turns: Turn[] = [];
    const n = 1 + Math.floor(random() * 30);
    for (let k = 0; k < n; k++) {
      // Coarse times so equal starts and touching turns happen often.
      const startMs = Math.floor(random() * 40) * 250;
      turns.push({
        speaker: `S${Math.floor(random() * 3)}`,
        startMs,
        endMs: startMs + 250 * (1 + Math.floor(random() * 12)),
      });
    }
    expect(holdOwnPauses(turns, OWN_PAUSE_MS)).toEqual(byScan(turns, OWN_PAUSE_MS));
  }
});
