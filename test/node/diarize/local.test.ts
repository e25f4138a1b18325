/**
 * Local speakers of a segmentation model tied to global speakers (local.ts), on windows built
 * by hand: 10 ms speech rows, model frames of 20 ms, three local speakers per window.
 */
import { describe, expect, test } from 'vitest';
import {
  localRows,
  localSpeakerFloor,
  localVotes,
  speakersWithOverlap,
  type LocalSpeakerWindows,
} from '../../../src/analysis/diarize/local.ts';

const FRAME_MS = 10;

/** A window of `lengthMs` starting at `startMs` in which local speaker s talks over `talk[s]` ([startMs, endMs) runs, absolute). */
function windowOf(
  startMs: number,
  lengthMs: number,
  talk: Array<Array<[number, number]>>,
): { startMs: number; activity: Float32Array } {
  const frames = lengthMs / 20;
  const activity = new Float32Array(frames * 3);
  talk.forEach((runs, s) => {
    for (const [a, b] of runs)
      for (let f = 0; f < frames; f++) {
        const ms = startMs + (f + 0.5) * 20;
        if (ms >= a && ms < b) activity[f * 3 + s] = 0.9;
      }
  });
  return { startMs, activity };
}

/** Every 10 ms frame of [0, ms) is speech. */
const allSpeech = (ms: number): number[] => Array.from({ length: ms / FRAME_MS }, (_, i) => i);

/** Per-row scores for `k` speakers: `who(row)` scores 0, the others −1. */
function scoresFor(rows: number, k: number, who: (row: number) => number): Float64Array[] {
  return Array.from({ length: k }, (_, g) => Float64Array.from({ length: rows }, (_, r) => (who(r) === g ? 0 : -1)));
}

describe('local speakers of a segmentation model', () => {
  test('the count floor is the most local speakers talking ≥ 2 s each in one window', () => {
    const local: LocalSpeakerWindows = {
      frameMs: 20,
      speakers: 3,
      windows: [
        windowOf(0, 10000, [[[0, 6000]], [[6000, 9000]], [[9000, 9500]]]), // two long, one 0.5 s
        windowOf(5000, 10000, [[[5000, 15000]], [], []]),
      ],
    };
    expect(localSpeakerFloor(localRows(local, allSpeech(15000), FRAME_MS), FRAME_MS)).toBe(2);
    // Only speech rows count: with the VAD hearing nothing after 7 s, the second talker has 1 s.
    expect(localSpeakerFloor(localRows(local, allSpeech(7000), FRAME_MS), FRAME_MS)).toBe(1);
  });

  test("each window's local speakers go to distinct global speakers, and their rows are voted for", () => {
    // Truth: global 0 talks 0–4 s, global 1 4–10 s. Local speaker labels swap between windows.
    const local: LocalSpeakerWindows = {
      frameMs: 20,
      speakers: 3,
      windows: [
        windowOf(0, 10000, [[[0, 4000]], [[4000, 10000]], []]),
        windowOf(0, 10000, [[[4000, 10000]], [[0, 4000]], []]),
      ],
    };
    const rows = allSpeech(10000);
    // The models get 3.5–4 s wrong (they say global 1); the local speaker covering 0–4 s is
    // still mostly global 0, so both windows vote global 0 there.
    const scores = scoresFor(rows.length, 2, (r) => (r < 350 ? 0 : 1));
    const votes = localVotes(localRows(local, rows, FRAME_MS), FRAME_MS, scores);
    expect(votes.share[0]![370]).toBe(1);
    expect(votes.share[1]![370]).toBe(0);
    expect(votes.share[1]![700]).toBe(1);
    // Both windows heard the two as different people.
    expect(votes.together[0 * 2 + 1]).toBe(2);
    expect(votes.together[1 * 2 + 0]).toBe(2);
    expect(Array.from(votes.talking.subarray(0, 5))).toEqual([1, 1, 1, 1, 1]);
  });

  test('a voice the models split in two is never two local speakers of one window', () => {
    // One person talks throughout; the models split the time between globals 0 and 1.
    const local: LocalSpeakerWindows = {
      frameMs: 20,
      speakers: 3,
      windows: [windowOf(0, 10000, [[[0, 10000]], [], []])],
    };
    const rows = allSpeech(10000);
    const votes = localVotes(
      localRows(local, rows, FRAME_MS),
      FRAME_MS,
      scoresFor(rows.length, 2, (r) => (r < 600 ? 0 : 1)),
    );
    expect(votes.together[0 * 2 + 1]).toBe(0);
    expect(votes.share[0]![900]).toBe(1); // the whole local speaker went to the better-scoring global 0
  });

  test('where two local speakers talk at once, the other voted speaker is marked too', () => {
    const local: LocalSpeakerWindows = {
      frameMs: 20,
      speakers: 3,
      windows: [windowOf(0, 10000, [[[0, 6000]], [[5000, 10000]], []])],
    };
    const rows = allSpeech(10000);
    const votes = localVotes(
      localRows(local, rows, FRAME_MS),
      FRAME_MS,
      scoresFor(rows.length, 2, (r) => (r < 550 ? 0 : 1)),
    );
    const path = Int32Array.from(rows, (r) => (r < 550 ? 0 : 1));
    const active = speakersWithOverlap(votes, path);
    const both = (r: number): boolean => active[0]![r] === 1 && active[1]![r] === 1;
    expect(both(520) && both(580)).toBe(true);
    expect(both(300) || both(800)).toBe(false);
    expect(active[0]![300]).toBe(1);
    expect(active[1]![800]).toBe(1);
  });
});
