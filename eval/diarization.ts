/**
 * Diarization evaluation (`npm run eval -- --only diarization [--split tuning|test|both]`):
 * DER (no collar and 0.25 s collar, overlap scored) and speaker-count accuracy of the
 * single-mix and per-mic methods on
 *   - pyannote's sample.wav with its RTTM (single-mix),
 *   - deterministic conversations assembled from the LibriSpeech voices (both modes; per-mic
 *     with the bleed as a plain copy and as it crosses a room),
 *   - the generated fixtures (both modes; per-mic also on the same settings with other seeds);
 * the spread of single-mix DER and count over UBM seeds 1–8 (skipped with --quick); and the
 * two count mechanisms of single-mix: the GLR merge on single voices and over-clustering on a
 * four-reader conversation.
 *
 * **Splits** ({@link DIARIZATION_SPLITS}). A test split is never used to choose a parameter.
 * The tuning split holds every case a parameter was chosen on: sample.wav (the only real
 * recording; the single-mix defaults, the switch penalty and the seed were looked at on it),
 * the LibriSpeech conversations with seeds 1–6, the six `EVAL_FIXTURES` (eval/diarization-fixtures.ts) and the same
 * settings with seed + 10, 20, 30 and 40 (once called "sets no parameter was chosen on", but
 * the VAD bleed gate's defaults were settled on all 42 per-mic sets, those included, and its
 * joint gap on seed + 0 … + 50: src/analysis/speech/vad-gate.ts), the single voices of seeds 1–4 and
 * the four-reader conversation of seed 6 (picked because the eigengap alone miscounts it). Its
 * figures are printed as info. The test split is fresh: LibriSpeech conversations with seeds
 * 7–12 (same speaker counts, new draws of readers and turns), the fixture settings with seed
 * + 100, 110, 120 and 130, single voices of seeds 5–8 and four-reader conversations of seeds 9
 * and 12. Gates read the test split only. sample.wav has no counterpart in the test split (no
 * other real recording with a reference is at hand): its figures are tuning figures.
 *
 * With ../shared/models/pyannote-segmentation-3.0.int8.onnx present, single-mix is also
 * scored with its local speakers (rows marked mix+seg).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { Targets, type AreaEvaluation, type EvalSplits, type Split } from './target.ts';
import type { Turn } from '../src/contract/types.ts';
import { diarizationErrorRate, type DerScore } from '../src/analysis/diarize/der.ts';
import { diarizeMix, diarizeMixWithDiagnostics, type MixOptions } from '../src/analysis/diarize/mix.ts';
import { diarizePerMic } from '../src/analysis/diarize/per-mic.ts';
import type { DiarizationResult } from '../src/analysis/diarize/result.ts';
import type { SileroVad } from '../src/models/silero-vad.ts';
import { assembleConversation, withBleed, withRoomBleed } from '../tools/diarization/assemble.ts';
import { evaluateFixtures, evaluatePerMicOnOtherSeeds, OTHER_SEED_NOTE } from './diarization-fixtures.ts';
import { loadMono16k } from '../tools/diarization/audio.ts';
import { readRttm } from '../tools/diarization/rttm.ts';
import { channelProbabilities, createNodeSegmentation, createNodeVad } from '../tools/diarization/vad-node.ts';
import { sharedPath } from '../tools/shared-data.ts';

const SAMPLE_WAV = sharedPath('data', 'pyannote', 'sample.wav');
const SAMPLE_RTTM = sharedPath('data', 'pyannote', 'sample.rttm');
/** Seeds of the single-mix spread. */
const SEED_SPREAD = [1, 2, 3, 4, 5, 6, 7, 8];
const SEEDS_LABEL = `${SEED_SPREAD[0]}–${SEED_SPREAD[SEED_SPREAD.length - 1]}`;

/** A LibriSpeech conversation: speakers, seconds, seed. */
type LibriCase = readonly [number, number, number];

/** The cases of each split. */
export const DIARIZATION_SPLITS: EvalSplits<{
  /** Whether pyannote's sample.wav is scored (tuning only: there is no second real recording). */
  sampleWav: boolean;
  /** LibriSpeech conversations (120 s and the first two with --quick). */
  libri: readonly LibriCase[];
  /** Offsets added to each `EVAL_FIXTURES` seed: scored in both modes (the first alone with --quick). */
  fixtureOffsets: readonly number[];
  /** Further offsets scored per-mic only, their rows noted {@link OTHER_SEED_NOTE} (skipped with --quick). */
  perMicOffsets: readonly number[];
  /** Seeds of the 2-speaker, 60 s conversations whose single tracks test the GLR merge. */
  glrSeeds: readonly number[];
  /** Seeds of the 4-speaker, 180 s conversations counted over UBM seeds with over-clustering. */
  fourReaderSeeds: readonly number[];
}> = {
  tuning: {
    sampleWav: true,
    libri: [
      [2, 180, 1],
      [2, 180, 4],
      [3, 180, 2],
      [3, 180, 5],
      [4, 180, 3],
      [4, 180, 6],
    ],
    fixtureOffsets: [0],
    perMicOffsets: [10, 20, 30, 40],
    glrSeeds: [1, 2, 3, 4],
    fourReaderSeeds: [6],
  },
  test: {
    sampleWav: false,
    libri: [
      [2, 180, 7],
      [2, 180, 10],
      [3, 180, 8],
      [3, 180, 11],
      [4, 180, 9],
      [4, 180, 12],
    ],
    fixtureOffsets: [100, 110, 120, 130],
    perMicOffsets: [],
    glrSeeds: [5, 6, 7, 8],
    fourReaderSeeds: [9, 12],
  },
};
/** Note of the per-mic rows whose bleed crosses a room ({@link withRoomBleed}'s defaults). */
const ROOM_NOTE = 'room bleed: −16 dB, 2–6 ms, RT60 0.4 s, DRR 0 dB';

/** One scored case. */
export interface EvalRow {
  name: string;
  mode: 'mix' | 'mix+seg' | 'per-mic';
  seconds: number;
  trueSpeakers: number;
  foundSpeakers: number;
  der: DerScore;
  derCollar: DerScore;
  note: string;
}

const pct = (x: number): string => (100 * x).toFixed(1).padStart(5);

function score(
  name: string,
  mode: EvalRow['mode'],
  seconds: number,
  truth: Turn[],
  result: DiarizationResult,
  note = '',
): EvalRow {
  const turns = result.kind === 'speakers' ? result.turns : [];
  return {
    name,
    mode,
    seconds,
    trueSpeakers: new Set(truth.map((t) => t.speaker)).size,
    foundSpeakers: result.kind === 'speakers' ? result.speakers.length : 0,
    der: diarizationErrorRate(truth, turns),
    derCollar: diarizationErrorRate(truth, turns, { collarMs: 250 }),
    note: result.kind === 'no-speech' ? `no speech: ${result.message}` : note,
  };
}

function printRow(r: EvalRow): void {
  const d = r.der;
  console.log(
    `${r.name.padEnd(34)} ${r.mode.padEnd(7)} ${r.seconds.toFixed(0).padStart(5)}s  spk ${r.foundSpeakers}/${r.trueSpeakers}` +
      `  DER ${pct(d.der)}%  (miss ${pct(d.missed / d.scored)} fa ${pct(d.falseAlarm / d.scored)} conf ${pct(d.confusion / d.scored)})` +
      `  collar0.25 ${pct(r.derCollar.der)}%  ${r.note}`,
  );
}

/** Pooled DER (%) of rows: all their errors over all their scored time. */
function pooledDer(rows: readonly EvalRow[], score: (r: EvalRow) => DerScore): number {
  const tot = (f: (d: DerScore) => number): number => rows.reduce((s, r) => s + f(score(r)), 0);
  return (tot((d) => d.missed + d.falseAlarm + d.confusion) / tot((d) => d.scored)) * 100;
}

/** "speaker count right a/n<sep>DER ≤ 15 % on b/n" over runs of one file set. */
function countAndTarget(rows: readonly EvalRow[], sep: string): string {
  const right = rows.filter((r) => r.foundSpeakers === r.trueSpeakers).length;
  const onTarget = rows.filter((r) => r.der.der <= 0.15).length;
  return `speaker count right ${right}/${rows.length}${sep}DER ≤ 15 % on ${onTarget}/${rows.length}`;
}

/**
 * One pooled line per data set and mode. `noteHas` narrows to rows whose note says each; rows
 * of other seeds are left out unless it asks for them. Per-mic lines count the files over 5 %.
 */
interface Summary {
  files: number;
  /** Pooled DER (%). */
  der: number;
  /** Pooled DER (%) with a 0.25 s collar. */
  derCollar: number;
  countRight: number;
  /** Worst single-file DER (%). */
  worst: number;
  /** Files over 5 % DER. */
  over5: number;
}

function summary(rows: EvalRow[], mode: EvalRow['mode'], label: string, ...noteHas: string[]): Summary | undefined {
  const otherSeed = noteHas.includes(OTHER_SEED_NOTE);
  const sel = rows.filter(
    (r) =>
      r.mode === mode &&
      r.name.startsWith(label) &&
      noteHas.every((n) => r.note.includes(n)) &&
      r.note.includes(OTHER_SEED_NOTE) === otherSeed,
  );
  if (sel.length === 0) return undefined;
  const der = pooledDer(sel, (r) => r.der);
  const derC = pooledDer(sel, (r) => r.derCollar);
  const countOk = sel.filter((r) => r.foundSpeakers === r.trueSpeakers).length;
  const over = mode === 'per-mic' ? `, over 5 % on ${sel.filter((r) => r.der.der > 0.05).length}/${sel.length}` : '';
  console.log(
    `== ${label} ${mode}${noteHas.length > 0 ? ` (${noteHas.join(', ')})` : ''}: ${sel.length} files, pooled DER ${der.toFixed(2)}%, collar 0.25 s ${derC.toFixed(2)}%, speaker count right ${countOk}/${sel.length}${over}`,
  );
  const worst = Math.max(...sel.map((r) => r.der.der)) * 100;
  return {
    files: sel.length,
    der,
    derCollar: derC,
    countRight: countOk,
    worst,
    over5: sel.filter((r) => r.der.der > 0.05).length,
  };
}

/** Runs every case of each split asked for, prints its rows and summaries, and returns the targets. */
export const evaluateDiarization: AreaEvaluation = async ({ quick, splits, log }) => {
  const vad: SileroVad = await createNodeVad(1);
  // The optional model slot: pyannote segmentation-3.0 from ../shared/models when present.
  const seg = await createNodeSegmentation(1);
  const targets = new Targets('diarization');
  for (const split of splits) {
    log(`--- ${split} split`);
    await diarizationSplit(split, quick, vad, seg, targets, log);
  }
  await vad.dispose();
  await seg?.dispose();
  return targets.results;
};

type Segmentation = Awaited<ReturnType<typeof createNodeSegmentation>>;

/** One split's cases, rows, summaries and targets. */
async function diarizationSplit(
  split: Split,
  quick: boolean,
  vad: SileroVad,
  seg: Segmentation,
  targets: Targets,
  log: (line: string) => void,
): Promise<void> {
  const cases = DIARIZATION_SPLITS[split];
  const mixOptions: MixOptions = {};
  const sampleSpread = new Map<'mix' | 'mix+seg', EvalRow[]>();
  /** The segmentation model's local speakers (and overlap) as diarizeMix options. */
  const segOptions = async (samples: Float32Array): Promise<MixOptions | undefined> => {
    if (!seg) return undefined;
    const { local, overlap } = await seg.localSpeakers(samples);
    return { overlap, localSpeakers: local };
  };
  const withSeg = async (
    name: string,
    samples: Float32Array,
    probs: Float32Array,
    truth: Turn[],
    options?: MixOptions,
  ): Promise<EvalRow | undefined> => {
    const fromModel = options ?? (await segOptions(samples));
    if (!fromModel) return undefined;
    const { result, diagnostics } = diarizeMixWithDiagnostics(samples, 16000, probs, { ...mixOptions, ...fromModel });
    const row = score(
      name,
      'mix+seg',
      samples.length / 16000,
      truth,
      result,
      `local speakers from segmentation-3.0, count floor ${diagnostics.localFloor}`,
    );
    run(row);
    return row;
  };
  /** Single-mix rows over SEED_SPREAD: `first` (the default seed's) and the other seeds' with `extra` options. */
  const overSeeds = (
    first: EvalRow,
    samples: Float32Array,
    probs: Float32Array,
    truth: Turn[],
    extra: MixOptions = {},
  ): EvalRow[] =>
    SEED_SPREAD.map((seed) =>
      seed === (mixOptions.seed ?? 1)
        ? first
        : score(
            first.name,
            'mix',
            first.seconds,
            truth,
            diarizeMix(samples, 16000, probs, { ...mixOptions, ...extra, seed }),
          ),
    );
  /** Single-mix rows over SEED_SPREAD, per data set. */
  const spreadRows = new Map<string, EvalRow[]>();
  const seedSpread = (set: string, samples: Float32Array, probs: Float32Array, truth: Turn[], first: EvalRow): void => {
    if (quick) return;
    spreadRows.set(set, [...(spreadRows.get(set) ?? []), ...overSeeds(first, samples, probs, truth)]);
  };
  const rows: EvalRow[] = [];
  const run = (r: EvalRow): void => {
    rows.push(r);
    printRow(r);
  };

  if (cases.sampleWav && existsSync(SAMPLE_WAV)) {
    const audio = loadMono16k(SAMPLE_WAV);
    const probs = await vad.speechProbabilities(audio.samples);
    const truth = readRttm(SAMPLE_RTTM);
    const seconds = audio.samples.length / 16000;
    const { result, diagnostics } = diarizeMixWithDiagnostics(audio.samples, 16000, probs, mixOptions);
    const row = score(
      'sample.wav',
      'mix',
      seconds,
      truth,
      result,
      `eigengap k=${diagnostics.eigengapCount} from ${diagnostics.clusteredFrom}`,
    );
    run(row);
    const fromModel = await segOptions(audio.samples);
    const segRow = await withSeg('sample.wav', audio.samples, probs, truth, fromModel);
    // 30 s of speech is little for a UBM trained on the file: how much the figure owes to the
    // initialisation shows in the spread over seeds (the rows above are the default seed's).
    const spread = (mode: 'mix' | 'mix+seg', first: EvalRow, extra: MixOptions): void => {
      const rows = overSeeds(first, audio.samples, probs, truth, extra);
      sampleSpread.set(mode, rows);
      log(
        `sample.wav ${mode} over seeds ${SEEDS_LABEL}: DER ${rows.map((r) => pct(r.der.der).trim()).join(' ')} %; ${countAndTarget(rows, '; ')}`,
      );
    };
    spread('mix', row, {});
    if (segRow && fromModel) spread('mix+seg', segRow, fromModel);
  }

  {
    // With --quick: the split's first 2- and 3-speaker conversations, 120 s each.
    const libri: LibriCase[] = quick
      ? [2, 3].flatMap((n) => {
          const c = cases.libri.find(([speakers]) => speakers === n);
          return c ? [[n, 120, c[2]] as const] : [];
        })
      : [...cases.libri];
    for (const [speakers, seconds, seed] of libri) {
      const c = assembleConversation({ speakers, seconds, seed });
      const secs = c.mix.length / 16000;
      const probs = await vad.speechProbabilities(c.mix);
      const { result, diagnostics } = diarizeMixWithDiagnostics(c.mix, 16000, probs, mixOptions);
      const mixRow = score(
        c.name,
        'mix',
        secs,
        c.truth,
        result,
        `eigengap k=${diagnostics.eigengapCount} from ${diagnostics.clusteredFrom} merged ${diagnostics.merged} dropped ${diagnostics.dropped}`,
      );
      run(mixRow);
      seedSpread('libri', c.mix, probs, c.truth, mixRow);
      await withSeg(c.name, c.mix, probs, c.truth);
      const mics = withBleed(c.tracks);
      const micProbs = await channelProbabilities(vad, mics);
      run(score(c.name, 'per-mic', secs, c.truth, diarizePerMic(mics, 16000, micProbs), 'bleed −16 dB'));
      // The same bleed through a room (delay and reverberant tail), as real mics get it.
      const roomMics = withRoomBleed(c.tracks);
      const roomProbs = await channelProbabilities(vad, roomMics);
      run(score(c.name, 'per-mic', secs, c.truth, diarizePerMic(roomMics, 16000, roomProbs), ROOM_NOTE));
    }
  }

  {
    const onMix = (mix: Float32Array, probs: Float32Array, reference: Turn[], row: EvalRow): void =>
      seedSpread('fixture', mix, probs, reference, row);
    for (const offset of quick ? cases.fixtureOffsets.slice(0, 1) : cases.fixtureOffsets)
      for (const r of await evaluateFixtures(vad, mixOptions, score, log, onMix, offset)) run(r);
    if (!quick && cases.perMicOffsets.length > 0)
      for (const r of await evaluatePerMicOnOtherSeeds(vad, cases.perMicOffsets, score, log)) run(r);
  }

  log('');
  const sum = {
    sampleMix: summary(rows, 'mix', 'sample'),
    sampleSeg: summary(rows, 'mix+seg', 'sample'),
    libriMix: summary(rows, 'mix', 'libri'),
    libriSeg: summary(rows, 'mix+seg', 'libri'),
    libriMics: summary(rows, 'per-mic', 'libri', 'bleed −16 dB'),
    libriRoom: summary(rows, 'per-mic', 'libri', ROOM_NOTE),
    fixtureMix: summary(rows, 'mix', 'fixture'),
    fixtureMics: summary(rows, 'per-mic', 'fixture'),
    close: summary(rows, 'per-mic', 'fixture', 'close mics'),
    camera: summary(rows, 'per-mic', 'fixture', 'camera audio'),
    closeOther: summary(rows, 'per-mic', 'fixture', 'close mics', OTHER_SEED_NOTE),
    cameraOther: summary(rows, 'per-mic', 'fixture', 'camera audio', OTHER_SEED_NOTE),
  };
  for (const [set, sel] of spreadRows) {
    log(
      `== ${set} mix over seeds ${SEEDS_LABEL}: ${sel.length} runs, pooled DER ${pooledDer(sel, (r) => r.der).toFixed(2)}%, ${countAndTarget(sel, ', ')}`,
    );
  }
  const glrSeeds = quick ? cases.glrSeeds.slice(0, 1) : cases.glrSeeds;
  const glr = await glrMergeOnSingleVoices(vad, glrSeeds);
  log(
    `== single voices (seeds ${glrSeeds.join(' ')}): one speaker on ${glr.merged}/${glr.tracks} with the GLR merge, ${glr.eigengapOnly}/${glr.tracks} by eigengap alone`,
  );
  const ubmSeeds = quick ? [1, 2] : [1, 2, 3, 4];
  const fours = [];
  for (const seed of cases.fourReaderSeeds) {
    const four = await overClusteringOnFourReaders(vad, seed, ubmSeeds);
    log(
      `== four readers (conversation seed ${seed}): count ${four.withOverCluster.join(' ')} with over-clustering, ${four.eigengapOnly.join(' ')} by eigengap alone (UBM seeds ${four.seeds.join(' ')})`,
    );
    fours.push(four);
  }

  const target = (t: string, measured: string, pass: boolean): void => targets.on(split, t, measured, pass);
  const perMic = (label: string, s: Summary | undefined): void => {
    if (s)
      target(
        `per-mic DER ≤ 5 % on every ${label}`,
        `pooled ${s.der.toFixed(2)} %, worst ${s.worst.toFixed(2)} %, ${s.over5}/${s.files} over 5 %`,
        s.over5 === 0,
      );
  };
  const offsets = (list: readonly number[]): string => list.map((o) => `+${o}`).join(', ');
  const fixtureSeeds = `seed ${offsets(cases.fixtureOffsets)}`;
  perMic(`fixture set (${fixtureSeeds}), close mics`, sum.close);
  perMic(`fixture set (${fixtureSeeds}), camera audio`, sum.camera);
  perMic(`fixture set of seed ${offsets(cases.perMicOffsets)}, close mics`, sum.closeOther);
  perMic(`fixture set of seed ${offsets(cases.perMicOffsets)}, camera audio`, sum.cameraOther);
  const libriSeeds = `seeds ${cases.libri.map((c) => c[2]).join(', ')}`;
  perMic(`LibriSpeech conversation (${libriSeeds}), bleed copied`, sum.libriMics);
  perMic(`LibriSpeech conversation (${libriSeeds}), bleed through a room`, sum.libriRoom);
  if (sum.libriMix)
    target(
      `single-mix pooled DER ≤ 15 % on the LibriSpeech conversations (${libriSeeds})`,
      `${sum.libriMix.der.toFixed(2)} %, count right ${sum.libriMix.countRight}/${sum.libriMix.files}`,
      sum.libriMix.der <= 15,
    );
  const libriSpread = spreadRows.get('libri');
  if (libriSpread) {
    const ok = libriSpread.filter((r) => r.der.der <= 0.15).length;
    target(
      `single-mix DER ≤ 15 % on every LibriSpeech conversation (${libriSeeds}) and UBM seed ${SEEDS_LABEL}`,
      `${ok}/${libriSpread.length} runs`,
      ok === libriSpread.length,
    );
  }
  if (sum.sampleMix)
    target(
      'single-mix DER ≤ 15 % on sample.wav, default seed',
      `${sum.sampleMix.der.toFixed(2)} % (collar 0.25 s: ${sum.sampleMix.derCollar.toFixed(2)} %)`,
      sum.sampleMix.der <= 15,
    );
  const sampleMixSpread = sampleSpread.get('mix');
  if (sampleMixSpread) {
    const ok = sampleMixSpread.filter((r) => r.der.der <= 0.15).length;
    const count = sampleMixSpread.filter((r) => r.foundSpeakers === r.trueSpeakers).length;
    target(
      `single-mix DER ≤ 15 % on sample.wav with every UBM seed ${SEEDS_LABEL} (issue 6: needs a speaker-embedding model)`,
      `${ok}/${sampleMixSpread.length} seeds, count right ${count}/${sampleMixSpread.length}`,
      ok === sampleMixSpread.length,
    );
  }
  const sampleSegSpread = sampleSpread.get('mix+seg');
  if (sampleSegSpread) {
    const ok = sampleSegSpread.filter((r) => r.der.der <= 0.15).length;
    target(
      `with segmentation-3.0 in its slot, sample.wav DER ≤ 15 % on most UBM seeds ${SEEDS_LABEL}`,
      `${ok}/${sampleSegSpread.length} seeds`,
      ok > sampleSegSpread.length / 2,
    );
  }
  if (sum.fixtureMix)
    targets.info(
      split,
      'single-mix speaker count right on the fixture mixes (no product target)',
      `${sum.fixtureMix.countRight}/${sum.fixtureMix.files}, pooled DER ${sum.fixtureMix.der.toFixed(2)} %`,
    );
  target(
    'a single voice is one speaker more often with the GLR merge than by eigengap alone (on ≥ 5/8 of the tracks, and 3/8 more)',
    `${glr.merged}/${glr.tracks} against ${glr.eigengapOnly}/${glr.tracks}`,
    glr.merged >= (glr.tracks * 5) / 8 && glr.merged - glr.eigengapOnly >= (glr.tracks * 3) / 8,
  );
  if (fours.length > 0) {
    const right = (counts: readonly number[]): number => counts.filter((k) => k === 4).length;
    const runs = fours.reduce((n, f) => n + f.seeds.length, 0);
    target(
      `over-clustering counts four readers right on every UBM seed (conversation seed ${cases.fourReaderSeeds.join(', ')})`,
      `${fours.reduce((n, f) => n + right(f.withOverCluster), 0)}/${runs} runs (eigengap alone ${fours.reduce((n, f) => n + right(f.eigengapOnly), 0)}/${runs})`,
      fours.every((f) => f.withOverCluster.every((k) => k === 4)),
    );
  }
}

/**
 * Single-reader tracks of about a minute: the eigengap alone splits a voice by its words; the
 * GLR merge should bring most back to one speaker.
 */
async function glrMergeOnSingleVoices(
  vad: SileroVad,
  seeds: readonly number[],
): Promise<{ tracks: number; merged: number; eigengapOnly: number }> {
  let tracks = 0;
  let merged = 0;
  let eigengapOnly = 0;
  for (const seed of seeds) {
    const c = assembleConversation({ speakers: 2, seconds: 60, seed });
    for (const track of c.tracks) {
      const p = await vad.speechProbabilities(track);
      const a = diarizeMix(track, 16000, p);
      const b = diarizeMix(track, 16000, p, { countVote: false, mergeBelowGlr: 0 });
      tracks++;
      if (a.kind === 'speakers' && a.speakers.length === 1) merged++;
      if (b.kind === 'speakers' && b.speakers.length === 1) eigengapOnly++;
    }
  }
  return { tracks, merged, eigengapOnly };
}

/**
 * A four-reader conversation with `conversationSeed`, counted per UBM seed (seed 6, the tuning
 * split's, was picked because the eigengap alone counts three there with UBM seed 2).
 */
async function overClusteringOnFourReaders(
  vad: SileroVad,
  conversationSeed: number,
  seeds: readonly number[],
): Promise<{ seeds: readonly number[]; withOverCluster: number[]; eigengapOnly: number[] }> {
  const four = assembleConversation({ speakers: 4, seconds: 180, seed: conversationSeed });
  const p = await vad.speechProbabilities(four.mix);
  const counts = (overCluster: number): number[] =>
    seeds.map((seed) => {
      const r = diarizeMix(four.mix, 16000, p, { seed, overCluster });
      return r.kind === 'speakers' ? r.speakers.length : 0;
    });
  return { seeds, withOverCluster: counts(4), eigengapOnly: counts(0) };
}
