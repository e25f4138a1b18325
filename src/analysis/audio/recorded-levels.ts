/**
 * How loud each source was recorded and the levelling the render will plan from it, measured
 * where speaker detection already holds the decoded sources, so the review editor and the
 * exports know each mic's loudness and its speaker's levelling gain before any render. Pure.
 *
 * {@link SourceEnergies} keeps each source's 100 ms K-weighted energies as the samples stream by
 * (a few hundred KB for an hour); {@link recordedLevels} then measures, with the same functions
 * the render's mastering uses (src/analysis/audio/levelling.ts), each source's integrated
 * loudness (BS.1770-4 gating), which source carries which speaker (`assignSpeakers`: a close mic
 * is the one where its speaker stands out) and each speaker's speech loudness and static
 * levelling gain (`planLevelling`: every speaker to the mean of all speakers' speech).
 *
 * @module
 */
import {
  assignSpeakers,
  integratedFromBlocks,
  LevellingAnalysis,
  LEVELLING_BLOCK_SEC,
  planLevelling,
  type SpeechTurn,
} from './levelling.ts';

/** Samples K-weighted per push at most (the filter's scratch buffer is this long). */
const PUSH_SAMPLES = 1 << 16;

/**
 * Streaming 100 ms K-weighted energies of several mono sources: push each source's samples in
 * order, in pieces of any length.
 *
 * @example
 * const e = new SourceEnergies(2, 16000);
 * e.push(0, micA); e.push(1, micB);
 * const energies = e.finish(); // [Float64Array, Float64Array], one value per 100 ms
 */
export class SourceEnergies {
  private readonly analyses: LevellingAnalysis[];

  constructor(sources: number, sampleRate: number) {
    this.analyses = Array.from({ length: sources }, () => new LevellingAnalysis(1, 1, sampleRate));
  }

  /** The next samples of source `index`. */
  push(index: number, samples: Float32Array): void {
    const analysis = this.analyses[index]!;
    for (let at = 0; at < samples.length; at += PUSH_SAMPLES)
      analysis.push([[samples.subarray(at, Math.min(samples.length, at + PUSH_SAMPLES))]]);
  }

  /** Closes the last partial blocks; each source's 100 ms energies. */
  finish(): Float64Array[] {
    return this.analyses.map((a) => {
      a.finish();
      return a.sourceEnergies(0);
    });
  }
}

/** One speaker's speech on one source, as measured (see {@link recordedLevels}). */
export interface RecordedSpeakerLevel {
  speaker: string;
  /** Their speech's loudness on the source (their turns, gated), LUFS; null when too little. */
  speechLufs: number | null;
  /** The static levelling gain planned for them, dB (0 when under 2 s of speech could be measured). */
  gainDb: number;
  /** Seconds of their speech that passed the gates. */
  speechSec: number;
}

/** Each source's recorded loudness and its speakers' levelling (see {@link recordedLevels}). */
export interface RecordedLevelsResult {
  /** The speech loudness every speaker is levelled to, LUFS; null when no speaker could be measured. */
  speechTargetLufs: number | null;
  sources: Array<{ integratedLufs: number | null; speakers: RecordedSpeakerLevel[] }>;
}

/**
 * The sources' recorded loudness and the levelling planned for their speakers, from the 100 ms
 * energies of sources whose sample 0 is at reference time 0 (the turns' timeline). A source
 * that carries no speaker (room sound, a camera far off) has only its integrated loudness; with
 * one source, every speaker is levelled on it (a single mix). Mono: a channel counts once (the
 * diarizing stage adds 3.01 dB where the render's mix is stereo, see `recordedLevelsOf`).
 *
 * @example
 * const levels = recordedLevels(energies.finish(), job.turns);
 * levels.sources[1].speakers[0].gainDb; // +6 for a mic recorded 12 dB lower than the other
 */
export function recordedLevels(energies: readonly Float64Array[], turns: readonly SpeechTurn[]): RecordedLevelsResult {
  const blocks = Math.min(...energies.map((e) => e.length));
  const same = energies.map((e) => e.subarray(0, blocks));
  const blockTimesMs = Float64Array.from({ length: blocks }, (_, b) => (b + 0.5) * LEVELLING_BLOCK_SEC * 1000);
  const spoken = turns.map((t) => ({ speaker: t.speaker, startMs: t.startMs, endMs: t.endMs }));
  const speech = same.length > 0 ? assignSpeakers(same, blockTimesMs, spoken) : [];
  const plan = planLevelling({ energies: same, blockTimesMs, speech });
  const measured = (lufs: number | null): number | null =>
    lufs === null || !Number.isFinite(lufs) ? null : round(lufs);
  return {
    speechTargetLufs: measured(plan.speechTargetLufs),
    sources: same.map((e, s) => ({
      integratedLufs: measured(integratedFromBlocks(e)),
      speakers: plan.speakers[s]!.map((k) => ({
        speaker: k.speaker,
        speechLufs: measured(k.speechLufs),
        gainDb: round(k.gainDb),
        speechSec: k.speechSec,
      })),
    })),
  };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
