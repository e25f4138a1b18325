/**
 * The diarizing stage's result and the steps every method shares: frame decisions to
 * turns, and SPEAKER_nn labels by talk time.
 *
 * @module
 */
import type { Turn } from '../../contract/types.ts';
import { speechSegments, type SpeechSegment } from '../speech/vad.ts';

/** Speakers were found. `speakers` is most talkative first; labels follow that order. */
export interface SpeakersFound {
  kind: 'speakers';
  turns: Turn[];
  speakers: string[];
  /** Per-mic mode: speaker label → index of the channel (diarize source) it was heard on. */
  channelOfSpeaker?: Record<string, number>;
}

/**
 * The diarize sources hold no usable speech (muted or distant mic). The engine fails the
 * job at diarizing with this message; `nextAction` is retry with other diarizeSourceIds.
 */
export interface NoSpeech {
  kind: 'no-speech';
  /** Names the fault for the job's error message. */
  message: string;
  /** Speech found, in ms (below the minimum). */
  speechMs: number;
}

/** Result of {@link diarizePerMic} and {@link diarizeMix}. */
export type DiarizationResult = SpeakersFound | NoSpeech;

/** Below this much detected speech in total, a source counts as silent. */
export const MIN_TOTAL_SPEECH_MS = 2000;

/** The contract's label for the speaker at `rank` (0 = most talkative). */
export function speakerLabel(rank: number): string {
  return `SPEAKER_${String(rank).padStart(2, '0')}`;
}

/** Options for turning per-frame activity into turns. */
export interface TurnSmoothing {
  /** Pauses shorter than this inside one speaker's speech are bridged. Default 300 ms. */
  minPauseMs?: number;
  /** Turns shorter than this are dropped. Default 250 ms. */
  minTurnMs?: number;
  /** Added on both sides of every turn (word onsets and tails sit below the VAD). Default 0. */
  padMs?: number;
}

/**
 * Builds the result from per-speaker activity (`activity[k][t]` true when internal speaker
 * k speaks in frame t): smooths each speaker's activity into turns (then `refine` may move
 * their edges), drops speakers with no turns, and labels the rest SPEAKER_00… by
 * decreasing talk time.
 */
export function resultFromActivity(
  activity: readonly Uint8Array[],
  frameMs: number,
  smoothing: TurnSmoothing = {},
  channelOf?: readonly number[],
  refine?: (k: number, segments: SpeechSegment[]) => SpeechSegment[],
): DiarizationResult {
  const perSpeaker = activity.map((frames, k) => ({
    k,
    segments: (refine ?? ((_: number, s: SpeechSegment[]) => s))(
      k,
      speechSegments(frames, {
        frameMs,
        threshold: 0.5,
        negThreshold: 0.5,
        minSilenceMs: smoothing.minPauseMs ?? 300,
        minSpeechMs: smoothing.minTurnMs ?? 250,
        padMs: smoothing.padMs ?? 0,
      }),
    ),
  }));
  const talk = perSpeaker.map((s) => ({
    k: s.k,
    segments: s.segments,
    ms: s.segments.reduce((a, g) => a + g.endMs - g.startMs, 0),
  }));
  const total = talk.reduce((a, s) => a + s.ms, 0);
  if (total < MIN_TOTAL_SPEECH_MS) {
    return {
      kind: 'no-speech',
      speechMs: total,
      message: `no speech found in the diarize sources (${(total / 1000).toFixed(1)} s detected); retry with other diarizeSourceIds`,
    };
  }
  const ranked = talk.filter((s) => s.ms > 0).sort((a, b) => b.ms - a.ms || a.k - b.k);
  const turns: Turn[] = [];
  const speakers: string[] = [];
  const channelOfSpeaker: Record<string, number> = {};
  ranked.forEach((s, rank) => {
    const label = speakerLabel(rank);
    speakers.push(label);
    if (channelOf) channelOfSpeaker[label] = channelOf[s.k]!;
    for (const g of s.segments)
      turns.push({ speaker: label, startMs: Math.round(g.startMs), endMs: Math.round(g.endMs) });
  });
  turns.sort((a, b) => a.startMs - b.startMs || a.speaker.localeCompare(b.speaker));
  return channelOf ? { kind: 'speakers', turns, speakers, channelOfSpeaker } : { kind: 'speakers', turns, speakers };
}
