/**
 * Synthetic conversations for the edit tests: a seeded PRNG and a generator of turns,
 * cameras, sources, laughter and the quiet ranges an energy analysis would report.
 */

import type { CameraMap, JobSource, TimeRange, Track, Turn } from '../../../src/contract/types.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

/** The project's seeded generator (mulberry32), under the name these tests use. */
export const prng = seededRandom;

export const speakerName = (i: number): string => `SPEAKER_${String(i).padStart(2, '0')}`;

export interface Conversation {
  turns: Turn[];
  /** Loud non-speech (laughter) inside pauses: never a turn, never quiet. */
  laughs: TimeRange[];
  quietRanges: TimeRange[];
  sources: JobSource[];
  tracks: Track[];
  cameraMap: CameraMap | null;
  speakers: string[];
  /** Whether every video source covers the whole timeline. */
  fullCoverage: boolean;
  hasWide: boolean;
}

/** Complement of `busy` (sorted, merged) inside [start, end]. */
export function complement(busy: readonly TimeRange[], start: number, end: number): TimeRange[] {
  const sorted = busy.toSorted((a, b) => a.startMs - b.startMs);
  const out: TimeRange[] = [];
  let t = start;
  for (const r of sorted) {
    if (r.startMs > t) out.push({ startMs: t, endMs: Math.min(r.startMs, end) });
    t = Math.max(t, r.endMs);
    if (t >= end) break;
  }
  if (t < end) out.push({ startMs: t, endMs: end });
  return out.filter((r) => r.endMs > r.startMs);
}

export interface ConversationOptions {
  /** Number of turns of the main thread (default random 0–40). */
  turnCount?: number;
  /** Allow sources that start late or end early (default random). */
  partialCoverage?: boolean;
}

/** A random conversation. Times are whole milliseconds. */
export function randomConversation(rand: () => number, options: ConversationOptions = {}): Conversation {
  const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const speakerCount = int(1, 3);
  const speakers = Array.from({ length: speakerCount }, (_, i) => speakerName(i));
  const unmapped = rand() < 0.2 ? speakerName(speakerCount) : null; // speech nobody's camera shows
  const turns: Turn[] = [];
  const laughs: TimeRange[] = [];
  const turnCount = options.turnCount ?? int(0, 40);
  let t = int(0, 3000);
  let current = pick(speakers);
  for (let k = 0; k < turnCount; k++) {
    const r = rand();
    const length = r < 0.3 ? int(300, 2500) : r < 0.85 ? int(2500, 15_000) : int(15_000, 50_000);
    const speaker = unmapped && rand() < 0.1 ? unmapped : current;
    turns.push({ speaker, startMs: t, endMs: t + length });
    // A backchannel of someone else in the middle of a long turn.
    if (speakers.length > 1 && length > 4000 && rand() < 0.3) {
      const other = pick(speakers.filter((s) => s !== speaker));
      const at = t + int(1000, length - 2000);
      turns.push({ speaker: other, startMs: at, endMs: at + int(200, 900) });
    }
    const g = rand();
    const gap = g < 0.15 ? -int(100, 1500) : g < 0.6 ? int(0, 1200) : g < 0.9 ? int(1200, 6000) : int(6000, 20_000);
    if (gap > 2500 && rand() < 0.3) {
      const at = t + length + int(500, gap - 1500);
      laughs.push({ startMs: at, endMs: at + int(300, 1000) });
    }
    t = Math.max(t + 200, t + length + gap);
    if (speakers.length > 1 && rand() < 0.75) current = pick(speakers.filter((s) => s !== current));
  }
  const speechEnd = turns.reduce((m, x) => Math.max(m, x.endMs), 0);
  const endMs = Math.max(speechEnd, t) + int(0, 5000) + 1;
  // With one speaker a "wide" shows only that speaker: it is a second close-up, not a group shot.
  const hasWide = speakers.length > 1 && rand() < 0.8;
  const partial = options.partialCoverage ?? rand() < 0.25;
  const sources: JobSource[] = [];
  const tracks: Track[] = [];
  const span = (): { offsetMs: number; durationMs: number } => {
    if (!partial) return { offsetMs: 0, durationMs: endMs };
    const offsetMs = rand() < 0.5 ? int(0, Math.floor(endMs / 3)) : 0;
    const stop = rand() < 0.5 ? int(Math.floor((2 * endMs) / 3), endMs) : endMs;
    return { offsetMs, durationMs: Math.max(1, stop - offsetMs) };
  };
  speakers.forEach((s, i) => {
    const id = `cam-${i}`;
    sources.push({ id, label: `Cam ${s}`, kind: 'video', ext: 'mp4', ...span() });
    tracks.push({ sourceId: id, speakers: [s] });
  });
  if (hasWide) {
    // The wide is the master shot: when sources are partial it still covers everything.
    sources.push({ id: 'cam-wide', label: 'Wide', kind: 'video', ext: 'mp4', offsetMs: 0, durationMs: endMs });
    tracks.push({ sourceId: 'cam-wide', speakers: [...speakers] });
  }
  if (rand() < 0.3) {
    sources.push({ id: 'cam-empty', label: 'B-roll', kind: 'video', ext: 'mp4', offsetMs: 0, durationMs: endMs });
    tracks.push({ sourceId: 'cam-empty', speakers: [] });
  }
  sources.push({ id: 'mic', label: 'Mic', kind: 'audio', ext: 'wav', offsetMs: 0, durationMs: endMs + 10_000 });
  const busy = [...turns, ...laughs];
  const quietRanges = complement(busy, 0, endMs);
  const cameraMap: CameraMap | null =
    rand() < 0.5
      ? null
      : {
          version: 1,
          speakers,
          unassignedSpeakers: [],
          droppedSpeakers: unmapped ? [unmapped] : [],
          cameras: tracks.map((tr) => ({
            sourceId: tr.sourceId,
            kind:
              tr.speakers.length === 1
                ? 'closeup'
                : tr.speakers.length === 2
                  ? 'twoshot'
                  : tr.speakers.length === 0
                    ? 'unknown'
                    : 'wide',
            confidence: tr.speakers.length === 0 ? 'none' : 'high',
            speakers: tr.speakers,
          })),
        };
  const fullCoverage = sources
    .filter((s) => s.kind === 'video')
    .every((s) => (s.offsetMs ?? 0) === 0 && s.durationMs === endMs);
  return { turns, laughs, quietRanges, sources, tracks, cameraMap, speakers, fullCoverage, hasWide };
}
