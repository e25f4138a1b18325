/**
 * The fixtures part of tools/eval-diarization.ts: engineer D's generated sets, scored in
 * per-mic mode (close mics, or the cameras' audio) and single-mix mode (the room mix).
 * Filled in once tools/fixtures is usable; until then it reports nothing.
 *
 * @module
 */
import type { Turn } from '../../src/contract/types.ts';
import type { MixOptions } from '../../src/analysis/diarize/mix.ts';
import type { DiarizationResult } from '../../src/analysis/diarize/result.ts';
import type { SileroVad } from '../../src/models/silero-vad.ts';
import type { EvalRow } from '../eval-diarization.ts';

type Score = (name: string, mode: EvalRow['mode'], seconds: number, truth: Turn[], result: DiarizationResult, note?: string) => EvalRow;

/** Scores every available fixture set; returns no rows when fixtures cannot be built. */
export async function evaluateFixtures(_vad: SileroVad, _mix: MixOptions, _score: Score): Promise<EvalRow[]> {
  return [];
}
