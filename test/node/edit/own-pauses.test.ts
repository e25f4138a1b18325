import { expect, test } from 'vitest';
import { holdOwnPauses, OWN_PAUSE_MS } from '../../../src/analysis/cuts/timeline.ts';
import { planEdit, resolveSilence } from '../../../src/analysis/edit.ts';
import type { JobSource } from '../../../src/contract/types.ts';

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
