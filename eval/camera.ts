/**
 * Camera-map evaluation: how soon `computeCameraMap` is sure of every close-up on generated
 * fixtures, and that motion unrelated to speech never makes it sure.
 *
 *   npx tsx eval/run.ts --only camera [--split tuning|test|both] [--quick]
 *
 * **Splits** ({@link CAMERA_SPLITS}). A test split is never used to choose a parameter. The
 * map's thresholds (`zHigh`, `zLow`, `minSpeechMs`, `minSureSpeechMs`) were swept on the 90 s
 * fixture with seeds 1–4 and on the 150 cameras of chance conversations 1–50
 * (src/analysis/camera/camera-map.ts, docs/camera-map.md): those are the tuning split, printed
 * as info. The test split is fresh: fixture seeds 5–8 and chance conversations 51–100. Gates
 * read the test split only.
 *
 * - **How sure, how soon** (as bench/camera/seconds-needed.ts, every frame): the 90 s tiny
 *   fixture (test/support/fixtures.ts; 3 speakers, close-ups of two, a two-shot, a wide, a
 *   frozen camera, a switched feed; the first seed of each split with `--quick`). Each camera is
 *   decoded once with ffmpeg at 160×90 gray (test/node/camera/ffmpeg-frames.ts), its motion
 *   features put on the reference timeline, and the map run on growing prefixes of the
 *   conversation (10 s, 15 s, … every 5 s; `minSpeechMs` 1 s as the bench), by motion alone and
 *   with BlazeFace's faces every 2 s (the product's path: faces first, motion the fallback).
 *   Reported per set: the first prefix at which every close-up is answered right with `high`
 *   confidence (and no camera has a wrong `high` answer), and the prefix from which every longer
 *   prefix is. Gates (test split, faces on): sure and right from ≤ 90 s on every set; no prefix
 *   gives a wrong `high` answer; no worse than motion alone. Motion alone is a stage measured on
 *   its own, not the product's path: its rows are info on both splits.
 * - **End to end** (issue 49; gates on the test split): the same 90 s sets' cameras (no mics)
 *   through the real product pipeline in Chromium (eval/engine-run.ts: `multicam edit`
 *   in-process, analysis only, `--auto-map always`): detected turns, measured sync, faces as the
 *   browser samples them. Its final camera map, the engine's speakers named as the truth's by
 *   the DER's optimal mapping: every camera's kind and speakers right (a switched feed: kind
 *   only) with every close-up `high`, and no wrong `high` answer. Also reported: the engine's DER
 *   (0.25 s collar) and worst pairwise offset error. Run it under the browser lock
 *   (`flock /tmp/multicam-browser.lock npm run eval -- --only camera …`).
 * - **Never sure by chance** (as camera-map.test.ts; 50 conversations per split, 6 with
 *   `--quick`): 3 cameras per conversation (a close-up, a two-shot and a wide layout) whose
 *   motion ignores speech (gain 0), sampled in 2 s runs or every frame; gate: no `high` answer.
 *
 * @module
 */
import { join } from 'node:path';
import { computeCameraMap } from '../src/analysis/camera/camera-map.ts';
import type { FaceRun } from '../src/analysis/faces/face-tracks.ts';
import type { BlazeFace } from '../src/models/blazeface.ts';
import { createNodeBlazeFace } from '../tools/faces/blazeface-node.ts';
import { ffmpegCameraFaces } from '../test/node/camera/ffmpeg-faces.ts';
import { facesBefore } from './faces.ts';
import type { CameraMap } from '../src/contract/types.ts';
import { fixtureCameraSamples } from '../test/node/camera/ffmpeg-frames.ts';
import { samplesBefore, turnsBefore } from '../test/node/camera/prefixes.ts';
import { conversation, syntheticSamples, type Layout } from '../test/node/camera/synthetic.ts';
import { ensureFixture } from '../test/support/fixtures.ts';
import { describeCamera, describeFailure, engineCameraRight, filesOf, onTruth, runEngine } from './engine-run.ts';
import { Targets, type AreaEvaluation, type EvalSplits, type Split } from './target.ts';

/** Conversation length of the fixture sets (seconds) and the prefix step, as the bench. */
const SECONDS = 90;
const STEP_S = 5;

/** The cases of each split: fixture seeds of the 90 s set, and chance conversations. */
export const CAMERA_SPLITS: EvalSplits<{ fixtureSeeds: readonly string[]; chanceSeeds: readonly number[] }> = {
  /** The thresholds' sweep (issue 35, docs/camera-map.md "When a speaker is judged"). */
  tuning: { fixtureSeeds: ['1', '2', '3', '4'], chanceSeeds: range(1, 50) },
  /** Fresh: no parameter was chosen on these. */
  test: { fixtureSeeds: ['5', '6', '7', '8'], chanceSeeds: range(51, 100) },
};

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const same = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** What one prefix of one fixture set gave. */
interface PrefixResult {
  seconds: number;
  /** Every close-up answered right with `high` confidence. */
  closeupsSure: boolean;
  /** Cameras with a `high` answer that names the wrong kind or speakers. */
  wrongSure: string[];
  /** Cameras whose kind and speakers are right (multi: kind only), as `file kind/confidence`. */
  cells: string[];
  /** Close-ups not answered right and sure: what they got, with the z of their speaker. */
  unsure: string[];
}

/**
 * Runs the map on growing prefixes of the 90 s tiny fixture with `seed`, every frame; with
 * `detector`, BlazeFace also looks at runs of 15 frames every 2 s (drawn faces are found now and
 * then: the map must be no worse with them).
 */
async function prefixesOf(seed: string, detector?: BlazeFace): Promise<PrefixResult[]> {
  const { dir, truth } = await ensureFixture('tiny', { seed, seconds: SECONDS });
  const cams = fixtureCameraSamples(dir, truth);
  const faceRuns = new Map<string, { runs: FaceRun[]; offsetMs: number; driftPpm: number }>();
  if (detector) {
    for (const s of truth.sources.filter((x) => x.kind === 'video')) {
      const v = s.video!;
      const starts: number[] = [];
      for (let t = 0; t < s.durationMs / 1000 - 1; t += 2) starts.push(t);
      const found = await ffmpegCameraFaces(join(dir, s.file), (x) => detector.detect(x), {
        width: v.width,
        height: v.height,
        fps: v.fps,
        runStartsS: starts,
      });
      faceRuns.set(s.file, { runs: found.runs, offsetMs: s.offsetMs, driftPpm: s.driftPpm });
    }
  }
  const expected = truth.expectedCameraMap.cameras;
  const start = truth.conversation.startMs;
  const out: PrefixResult[] = [];
  for (let s = 10; s <= SECONDS + STEP_S; s += STEP_S) {
    const end = start + s * 1000;
    const turns = turnsBefore(truth.turns, end);
    const map: CameraMap = computeCameraMap({
      cameras: cams.map((c) => {
        const f = faceRuns.get(c.sourceId);
        return { sourceId: c.sourceId, samples: samplesBefore(c.samples, end), faces: f ? facesBefore(f, end) : null };
      }),
      turns,
      minSpeechMs: 1000,
    });
    const found = (file: string) => map.cameras.find((x) => x.sourceId === file)!;
    const closeupsSure = expected
      .filter((e) => e.kind === 'closeup')
      .every((e) => {
        const c = found(e.file);
        return c.kind === 'closeup' && c.confidence === 'high' && same(c.speakers, e.speakers);
      });
    const wrongSure = map.cameras
      .filter((c) => {
        const e = expected.find((x) => x.file === c.sourceId)!;
        return c.confidence === 'high' && (c.kind !== e.kind || !same(c.speakers, e.speakers));
      })
      .map((c) => `${c.sourceId} ${c.kind} [${c.speakers.join(',')}]`);
    const cells = expected.map((e) => {
      const c = found(e.file);
      const right = c.kind === e.kind && (e.kind === 'multi' || same(c.speakers, e.speakers));
      return `${right ? 'ok' : 'NO'}:${c.kind}/${c.confidence}`;
    });
    const unsure = expected
      .filter((e) => e.kind === 'closeup')
      .map((e) => ({ e, c: found(e.file) }))
      .filter(({ e, c }) => !(c.kind === 'closeup' && c.confidence === 'high' && same(c.speakers, e.speakers)))
      .map(({ e, c }) => {
        const z = c.z?.[e.speakers[0]!];
        return `${e.file} (${e.speakers[0]}) ${c.kind}/${c.confidence}, z ${z === undefined ? '–' : z.toFixed(2)}`;
      });
    out.push({ seconds: s, closeupsSure, wrongSure, cells, unsure });
  }
  return out;
}

/** First prefix that is sure and right, and the prefix from which every longer one is. */
function soonest(rows: readonly PrefixResult[]): { first: number | null; stableFrom: number | null } {
  let first: number | null = null;
  let stableFrom: number | null = null;
  for (const r of rows) {
    const ok = r.closeupsSure && r.wrongSure.length === 0;
    if (ok) {
      first ??= r.seconds;
      stableFrom ??= r.seconds;
    } else stableFrom = null;
  }
  return { first, stableFrom };
}

const SPEAKERS = ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02'] as const;

/** Answers of the map for 3 cameras whose motion ignores speech, conversation `seed`. */
function chanceMap(seed: number): CameraMap {
  const [A, B, C] = SPEAKERS;
  const durationMs = 120_000;
  const turns = conversation([...SPEAKERS], durationMs, 1000 + seed);
  const layouts: Layout[] = [
    { kind: 'closeup', speaker: A },
    { kind: 'twoshot', left: B, right: C },
    { kind: 'wide', left: A, middle: B, right: C },
  ];
  // Odd seeds: runs of 15 frames every 2 s (the browser sampler); even: every frame.
  const sampling = seed % 2 === 1 ? {} : { everyMs: 500, framesPerRun: 15 };
  return computeCameraMap({
    cameras: layouts.map((layout, i) => ({
      sourceId: `c${i}`,
      samples: syntheticSamples(layout, turns, { durationMs, gain: 0, seed: seed * 10 + i, ...sampling }),
    })),
    turns,
    minSpeechMs: 1000,
  });
}

const fmtS = (s: number | null): string => (s === null ? 'never' : `${s} s`);

export const evaluateCamera: AreaEvaluation = async ({ quick, splits, log }) => {
  const targets = new Targets('camera');
  const detector = await createNodeBlazeFace();
  for (const split of splits) {
    const cases = CAMERA_SPLITS[split];
    await howSoon(split, quick ? cases.fixtureSeeds.slice(0, 1) : cases.fixtureSeeds, detector, targets, log);
    neverByChance(split, quick ? cases.chanceSeeds.slice(0, 6) : cases.chanceSeeds, targets, log);
    await endToEnd(split, quick ? cases.fixtureSeeds.slice(0, 1) : cases.fixtureSeeds, targets, log);
  }
  await detector.dispose();
  return targets.results;
};

type PerSet = Array<{ seed: string; first: number | null; stableFrom: number | null; wrong: number }>;

/** How sure, how soon on the 90 s fixture with `seeds`: motion alone (info), then with faces (gated on the test split). */
async function howSoon(
  split: Split,
  seeds: readonly string[],
  detector: BlazeFace,
  targets: Targets,
  log: (line: string) => void,
): Promise<void> {
  const byMode = new Map<'motion' | 'faces', PerSet>();
  for (const mode of ['motion', 'faces'] as const) {
    const perSet: PerSet = [];
    const wrongLines: string[] = [];
    for (const seed of seeds) {
      const rows = await prefixesOf(seed, mode === 'faces' ? detector : undefined);
      const { first, stableFrom } = soonest(rows);
      const wrong = rows.filter((r) => r.wrongSure.length > 0);
      for (const r of wrong) wrongLines.push(`seed ${seed} at ${r.seconds} s: ${r.wrongSure.join('; ')}`);
      perSet.push({ seed, first, stableFrom, wrong: wrong.length });
      const last = rows.at(-1)!;
      log(
        `[${split}] tiny 90 s seed ${seed}, every frame${mode === 'faces' ? ' + faces every 2 s' : ''}: every close-up sure and right first at ${fmtS(first)}, ` +
          `at every longer prefix from ${fmtS(stableFrom)}; ${wrong.length} of ${rows.length} prefixes with a wrong sure answer; ` +
          `at ${last.seconds} s: ${last.cells.join('  ')}`,
      );
      if (last.unsure.length > 0) log(`  at ${last.seconds} s not sure: ${last.unsure.join('; ')}`);
    }
    for (const line of wrongLines.slice(0, 10)) log(`  wrong sure answer: ${line}`);
    byMode.set(mode, perSet);
  }
  const label = `tiny 90 s (seeds ${seeds.join(', ')}), every frame`;
  const stableOf = (perSet: PerSet): string =>
    perSet.map((p) => `seed ${p.seed}: first ${fmtS(p.first)}, stable from ${fmtS(p.stableFrom)}`).join('; ');
  const within = (perSet: PerSet): boolean => perSet.every((p) => p.stableFrom !== null && p.stableFrom <= SECONDS);
  const wrongOf = (perSet: PerSet): number => perSet.reduce((n, p) => n + p.wrong, 0);

  // Motion alone: the stage on its own, not the product's path (faces first): info on both splits.
  const motion = byMode.get('motion')!;
  targets.info(split, `${label}, motion alone: every close-up sure and right at every prefix from`, stableOf(motion));
  targets.info(split, `${label}, motion alone: prefixes with a wrong high answer`, `${wrongOf(motion)}`);

  // With faces on (the product's path): the drawn figures' faces are found now and then.
  const withFaces = byMode.get('faces')!;
  targets.on(
    split,
    `${label}, faces on (BlazeFace every 2 s): every close-up sure and right at every prefix from ≤ ${SECONDS} s`,
    stableOf(withFaces),
    within(withFaces),
  );
  targets.on(
    split,
    `${label}, faces on: no prefix gives a wrong high answer`,
    `${wrongOf(withFaces)} prefixes with a wrong high answer`,
    wrongOf(withFaces) === 0,
  );
  // Later: never where motion got there, or a later second.
  const later = (a: number | null, b: number | null): boolean => (a === null ? b !== null : b !== null && a > b);
  const worse = withFaces.filter((f, i) => later(f.stableFrom, motion[i]!.stableFrom) || f.wrong > motion[i]!.wrong);
  targets.on(
    split,
    `${label}: faces on no later and no more wrong than motion alone on any seed`,
    withFaces.map((p) => `seed ${p.seed}: stable from ${fmtS(p.stableFrom)}, ${p.wrong} wrong`).join('; '),
    worse.length === 0,
  );
}

/** Never sure by chance: the chance conversations `seeds`, 3 cameras each. */
function neverByChance(split: Split, seeds: readonly number[], targets: Targets, log: (line: string) => void): void {
  let high = 0;
  let low = 0;
  let cameras = 0;
  for (const [i, seed] of seeds.entries()) {
    const map = chanceMap(seed);
    for (const c of map.cameras) {
      cameras++;
      if (c.confidence === 'high') high++;
      else if (c.confidence === 'low') low++;
    }
    if ((i + 1) % 25 === 0) log(`  chance: ${i + 1}/${seeds.length}`);
  }
  const which = `${seeds.length} conversations (${seeds[0]}–${seeds.at(-1)}) × 3 cameras`;
  log(
    `[${split}] motion unrelated to speech: ${which} (120 s; half 2 s runs, half every frame): ` +
      `${high} high, ${low} low of ${cameras} answers`,
  );
  targets.on(
    split,
    `never sure by chance (${which}, motion unrelated to speech): no high answer`,
    `${high} high (${low} low) of ${cameras}`,
    high === 0,
  );
}

/**
 * End to end: the 90 s fixture with `seeds` through the engine in Chromium (autoMap always);
 * its camera map against the expected one (kind and speakers).
 */
async function endToEnd(
  split: Split,
  seeds: readonly string[],
  targets: Targets,
  log: (line: string) => void,
): Promise<void> {
  const perSet: string[] = [];
  const figures: string[] = [];
  let allRight = true;
  let wrongHigh = 0;
  for (const seed of seeds) {
    const { dir, truth } = await ensureFixture('tiny', { seed, seconds: SECONDS });
    const files = filesOf(dir, truth);
    const run = await runEngine(files, { autoMap: 'always' });
    const what = `[${split}] tiny 90 s seed ${seed} (end to end, ${files.videos.length} cameras + ${files.audio.length} mics)`;
    if (run.outcome !== 'ready') {
      log(`${what}: ${describeFailure(run)}`);
      perSet.push(`seed ${seed}: ${run.outcome}`);
      allRight = false;
      continue;
    }
    const on = onTruth(run.job, truth);
    const expected = truth.expectedCameraMap.cameras;
    const kindOnly = { positions: false };
    const right = expected.filter((e) => {
      const c = on.cameraOf(e.file);
      return engineCameraRight(c, e, kindOnly) && (e.kind !== 'closeup' || c?.confidence === 'high');
    }).length;
    const wrong = expected.filter((e) => {
      const c = on.cameraOf(e.file);
      return c?.confidence === 'high' && !engineCameraRight(c, e, kindOnly);
    });
    wrongHigh += wrong.length;
    if (right !== expected.length) allRight = false;
    perSet.push(
      `seed ${seed}: ${right}/${expected.length} right${wrong.length > 0 ? `, ${wrong.length} wrong high` : ''}`,
    );
    figures.push(
      `seed ${seed}: DER ${on.derPct.toFixed(1)} % (${on.speakersHeard} heard), sync ≤ ${on.syncErrorMs.toFixed(0)} ms`,
    );
    log(
      `${what}: ${right}/${expected.length} cameras right (close-ups sure), ${wrong.length} wrong high, ` +
        `${run.mappedBy === 'service' ? 'mapped by the service' : 'the service asked (the CLI took the proposal)'}; ` +
        `DER ${on.derPct.toFixed(1)} % (0.25 s collar, ${on.speakersHeard} speakers heard of ${truth.speakers.length}), ` +
        `worst pairwise offset error ${on.syncErrorMs.toFixed(1)} ms; ${run.seconds} s`,
    );
    for (const e of expected)
      log(
        `    ${engineCameraRight(on.cameraOf(e.file), e, kindOnly) ? 'ok' : 'NO'} ${describeCamera(on.cameraOf(e.file), e.file)} (expected ${e.kind} [${e.speakers.join(',')}])`,
      );
  }
  const e2e = 'end to end (detected turns, measured sync, faces)';
  const label = `tiny 90 s (seeds ${seeds.join(', ')}) ${e2e}`;
  targets.on(
    split,
    `${label}, autoMap always: every camera's kind and speakers right, every close-up high`,
    perSet.join('; '),
    allRight,
  );
  targets.on(split, `${label}: no wrong high answer`, `${wrongHigh}`, wrongHigh === 0);
  targets.info(split, `${label}: DER (0.25 s collar) and worst pairwise offset error`, figures.join('; '));
}
