/**
 * The fixtures part of eval/diarization.ts: a fixed list of generated settings
 * ({@link EVAL_FIXTURES}, made on first use, with their own seeds or seeds offset by a split's
 * offsets), scored against their speech-level truth in
 *   - single-mix mode on the fixture's reference mix (reference.wav),
 *   - per-mic mode on the close mics when the set has them, otherwise on the cameras' audio:
 *     for each speaker the camera whose room mix favours them most, plus the wide when a
 *     speaker has no camera of their own. Cameras are put on the reference timeline with
 *     the truth's offset and drift (what the syncing stage does in the app).
 *
 * @module
 */
import { join } from 'node:path';
import type { Turn } from '../src/contract/types.ts';
import { diarizeMixWithDiagnostics, type MixOptions } from '../src/analysis/diarize/mix.ts';
import { diarizePerMic } from '../src/analysis/diarize/per-mic.ts';
import type { DiarizationResult } from '../src/analysis/diarize/result.ts';
import type { SileroVad } from '../src/models/silero-vad.ts';
import { ensureFixtureAt } from '../tools/fixtures/cache.ts';
import type { FixtureOptions, FixtureSet } from '../tools/fixtures/options.ts';
import type { Truth, TruthSource } from '../tools/fixtures/truth.ts';
import type { EvalRow } from './diarization.ts';
import { decodeWithFfmpeg, loadMono16k } from '../tools/diarization/audio.ts';
import { channelProbabilities } from '../tools/diarization/vad-node.ts';

type Score = (
  name: string,
  mode: EvalRow['mode'],
  seconds: number,
  truth: Turn[],
  result: DiarizationResult,
  note?: string,
) => EvalRow;

/** A source's audio on the reference timeline (16 kHz), using the truth's offset and drift. */
export function onReferenceTimeline(dir: string, source: TruthSource, durationMs: number): Float32Array {
  const own = decodeWithFfmpeg(join(dir, source.file)).samples;
  const out = new Float32Array(Math.round((durationMs / 1000) * 16000));
  const scale = 1 + source.driftPpm * 1e-6;
  for (let i = 0; i < out.length; i++) {
    const c = Math.round((i - (source.offsetMs / 1000) * 16000) * scale);
    if (c >= 0 && c < own.length) out[i] = own[c]!;
  }
  return out;
}

/** Picks the per-mic channels: close mics, else the camera favouring each speaker most. */
function perMicSources(truth: Truth): { sources: TruthSource[]; kind: string } {
  const mics = truth.sources.filter((s) => s.kind === 'audio' && s.micOf);
  if (mics.length > 0) return { sources: mics, kind: 'close mics' };
  const cams = truth.sources.filter((s) => s.kind === 'video' && s.shot !== 'switched');
  const chosen = new Set<TruthSource>();
  let uncovered = false;
  for (const sp of truth.speakers) {
    let best: TruthSource | undefined;
    let bestRatio = 1.5;
    for (const c of cams) {
      const own = c.gains[sp.id] ?? 0;
      const other = Math.max(
        0,
        ...Object.entries(c.gains)
          .filter(([k]) => k !== sp.id)
          .map(([, v]) => v),
      );
      if (own / Math.max(other, 1e-6) > bestRatio) {
        bestRatio = own / Math.max(other, 1e-6);
        best = c;
      }
    }
    if (best) chosen.add(best);
    else uncovered = true;
  }
  if (uncovered) {
    const wide = cams.find((c) => c.shot === 'wide');
    if (wide) chosen.add(wide);
  }
  return { sources: [...chosen], kind: `camera audio: ${[...chosen].map((c) => c.label).join(', ')}` };
}

/**
 * The fixtures scored: generated on first use into `.cache/fixtures/` (small frames: only the
 * audio matters here). Close mics in the first four (the per-mic target), camera audio only
 * in the last two.
 */
const LIST: Array<{ set: FixtureSet; options: FixtureOptions }> = [
  {
    set: 'tiny',
    options: { voices: 'espeak', speakers: 2, mics: true, seconds: 60, cameras: 'closeup:1,closeup:2', seed: '11' },
  },
  { set: 'tiny', options: { speakers: 2, mics: true, seconds: 120, cameras: 'closeup:1,twoshot:1-2', seed: '12' } },
  {
    set: 'tiny',
    options: { speakers: 3, mics: true, seconds: 120, cameras: 'closeup:1,closeup:2,wide:1-2-3', seed: '13' },
  },
  {
    set: 'tiny',
    options: { speakers: 4, mics: true, seconds: 120, cameras: 'closeup:1,closeup:2,twoshot:3-4', seed: '14' },
  },
  { set: 'tiny', options: { speakers: 2, seconds: 120, cameras: 'closeup:1,closeup:2', seed: '15' } },
  {
    set: 'tiny',
    options: { speakers: 3, seconds: 120, cameras: 'closeup:1,closeup:2,closeup:3,wide:1-2-3', seed: '16' },
  },
];
export const EVAL_FIXTURES: ReadonlyArray<{ set: FixtureSet; options: FixtureOptions }> = LIST.map((f) => ({
  set: f.set,
  options: { width: 320, height: 180, fps: 15, ...f.options },
}));

/** Called with each reference mix scored in single-mix mode (the eval scores it over more seeds). */
type OnMix = (mix: Float32Array, probs: Float32Array, reference: Turn[], row: EvalRow) => void;

type Generated = Awaited<ReturnType<typeof ensureFixtureAt>>;

/** Ends the note of every row {@link evaluatePerMicOnOtherSeeds} scores. */
export const OTHER_SEED_NOTE = 'other seed';

const referenceOf = (truth: Truth): Turn[] =>
  truth.speech.map((t) => ({ speaker: t.speaker, startMs: t.startMs, endMs: t.endMs }));
const labelOf = (truth: Truth): string =>
  `fixture ${Math.round(truth.durationMs / 1000)}s ${truth.speakers.length}spk ${String(truth.options['voices'])} s${truth.seed}`;

/** The per-mic row of one generated set, or none when it has neither close mics nor cameras. */
async function perMicRow(vad: SileroVad, score: Score, { dir, truth }: Generated): Promise<EvalRow | undefined> {
  const { sources, kind } = perMicSources(truth);
  if (sources.length === 0) return undefined;
  const channels = sources.map((s) => onReferenceTimeline(dir, s, truth.durationMs));
  const probs = await channelProbabilities(vad, channels);
  return score(
    labelOf(truth),
    'per-mic',
    truth.durationMs / 1000,
    referenceOf(truth),
    diarizePerMic(channels, 16000, probs),
    kind,
  );
}

/**
 * Generates (or reuses) {@link EVAL_FIXTURES}, each with its seed plus `offset` (0: the sets
 * themselves), and scores each in both modes.
 */
export async function evaluateFixtures(
  vad: SileroVad,
  mixOptions: MixOptions,
  score: Score,
  log: (line: string) => void = () => {},
  onMix: OnMix = () => {},
  offset = 0,
): Promise<EvalRow[]> {
  const rows: EvalRow[] = [];
  for (const f of EVAL_FIXTURES) {
    const generated = await ensureFixtureAt(f.set, { ...f.options, seed: String(Number(f.options.seed) + offset) });
    const { dir, truth } = generated;
    if (generated.generated) log(`generated ${dir}`);
    const reference = referenceOf(truth);
    const mix = loadMono16k(join(dir, truth.reference.file)).samples;
    const mixProbs = await vad.speechProbabilities(mix);
    const { result, diagnostics } = diarizeMixWithDiagnostics(mix, 16000, mixProbs, mixOptions);
    const mixRow = score(
      labelOf(truth),
      'mix',
      truth.durationMs / 1000,
      reference,
      result,
      `reference.wav; eigengap k=${diagnostics.eigengapCount} from ${diagnostics.clusteredFrom} merged ${diagnostics.merged} dropped ${diagnostics.dropped}`,
    );
    rows.push(mixRow);
    onMix(mix, mixProbs, reference, mixRow);
    const perMic = await perMicRow(vad, score, generated);
    if (perMic) rows.push(perMic);
  }
  return rows;
}

/**
 * Per-mic rows of {@link EVAL_FIXTURES}' settings generated with other seeds (each set's seed
 * plus each of `offsets`), their notes ending in {@link OTHER_SEED_NOTE}. The offsets 10–40
 * were meant as held-out sets, but the VAD bleed gate's defaults were then settled on them
 * (src/analysis/speech/vad-gate.ts): they are part of eval/diarization.ts's tuning split now.
 */
export async function evaluatePerMicOnOtherSeeds(
  vad: SileroVad,
  offsets: readonly number[],
  score: Score,
  log: (line: string) => void = () => {},
): Promise<EvalRow[]> {
  const rows: EvalRow[] = [];
  for (const offset of offsets) {
    for (const f of EVAL_FIXTURES) {
      const generated = await ensureFixtureAt(f.set, { ...f.options, seed: String(Number(f.options.seed) + offset) });
      if (generated.generated) log(`generated ${generated.dir}`);
      const row = await perMicRow(vad, score, generated);
      if (row) rows.push({ ...row, note: `${row.note}; ${OTHER_SEED_NOTE}` });
    }
  }
  return rows;
}
