/**
 * Quiet ranges of a generated fixture as the engine finds them. Shared by
 * test/node/edit/fixture-silence.test.ts and eval/cuts.ts.
 */
import { join } from 'node:path';
import type { TimeRange } from '../../../src/contract/types.ts';
import { envelopeDb, findQuietRanges } from '../../../src/analysis/edit/edit.ts';
import { toReferenceTimeline } from '../../../src/analysis/sync/reference-timeline.ts';
import { DIARIZE_SAMPLE_RATE } from '../../../src/pipeline/stages/diarizing.ts';
import { decodeAudio } from '../../support/audio-analysis.ts';
import type { Truth } from '../../support/fixtures.ts';

/**
 * The quiet ranges of the fixture in `dir`: the diarize source the engine picks (the audio
 * sources, else the first source) decoded at 16 kHz, put on the reference timeline with its
 * offset and drift (`toReferenceTimeline`, as the diarizing stage does), mixed, then
 * `envelopeDb` → `findQuietRanges` (as the analysis worker does).
 */
export function fixtureQuietRanges(dir: string, truth: Truth): TimeRange[] {
  const audioSources = truth.sources.filter((s) => s.kind === 'audio');
  const diarize = audioSources.length > 0 ? audioSources : truth.sources.slice(0, 1);
  const lengthMs = Math.max(...truth.sources.map((s) => s.endRefMs));
  const channels = diarize.map((s) =>
    toReferenceTimeline(
      decodeAudio(join(dir, s.file), DIARIZE_SAMPLE_RATE),
      DIARIZE_SAMPLE_RATE,
      s.offsetMs,
      s.driftPpm,
      lengthMs,
    ),
  );
  const mix = new Float32Array(channels[0]?.length ?? 0);
  for (const c of channels) for (let i = 0; i < c.length; i++) mix[i]! += c[i]! / channels.length;
  return findQuietRanges(envelopeDb(mix, DIARIZE_SAMPLE_RATE));
}
