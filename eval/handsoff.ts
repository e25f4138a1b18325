/**
 * Hands-off evaluation (issues 35 and 49): with `autoMap: always` and no click, does the edit
 * show each speaker on their own close-up?
 *
 *   flock /tmp/multicam-browser.lock npx tsx eval/run.ts --only handsoff [--split tuning|test|both] [--quick]
 *
 * (The end-to-end rows launch Chromium and build the app: hold the browser lock.)
 *
 * **End to end** (issue 49; the gates): what users get. Each set's cameras and mics (the files a
 * user would pick) go through the real product pipeline in Chromium (eval/engine-run.ts:
 * `multicam edit` in-process, analysis only, `--auto-map always`): detected turns, measured
 * sync, faces, the service's own autoMap decision and cuts (default preset, balanced). The job's
 * cuts are put on the truth's timeline camera by camera (measured offsets against the true ones)
 * and scored with the same `closeupShown` against the true turns and the true close-up of each
 * speaker. A set "maps itself" when the service mapped it without asking (the CLI neither exited
 * 4 nor had to take the camera map's proposal), with every close-up's track on its own speaker
 * (engine speakers named as the truth's by the DER's optimal mapping). Also reported: the
 * engine's DER (0.25 s collar, against the speech-level truth) and its worst pairwise offset
 * error; relaxed and dynamic are the job's outputs replanned in Node with those presets (log only).
 *
 * **Oracle** (issue 35; info on both splits, they isolate a stage): the camera map from the
 * fixtures' real pictures (every frame, decoded with ffmpeg in Node, motion alone) and the true
 * turns go through the autoMap decision and the cut planner, with the true offsets: the figures
 * of the autoMap decision and the planner on a right diarization and sync.
 *
 * **Splits** ({@link HANDSOFF_SPLITS}). A test split is never used to choose a parameter. The
 * tuning split is the demo's built-in sample (scripts/make-sample.ts: 60 s, 2 speakers,
 * 2 close-ups and a two-shot, close mics; issue 35 measured the wrong guess on it) and the
 * 3-minute, 3-speaker set (a close-up each and a wide, no mics) with fixture seeds 1–4, the sets
 * these figures were quoted from while the camera map's thresholds and the autoMap rules were
 * settled, and seeds 5–8, whose end-to-end result led to the planner's hold of a speaker's own
 * pauses. The test split is fresh: the same 3-minute set with fixture seeds 9–12 (the first seed
 * of each split with `--quick`). Gates (test split, end to end): every set maps itself, each
 * close-up with its own speaker, and ≥ 90 % on the own close-up with the default preset
 * (balanced). The tuning split's figures are info.
 *
 * @module
 */
import { computeCameraMap } from '../src/analysis/camera/camera-map.ts';
import { decideAutoMap } from '../src/analysis/camera/automap.ts';
import { planEdit, resolveSilence } from '../src/analysis/edit/edit.ts';
import { PRESET_IDS, type Cut, type TimeRange } from '../src/contract/types.ts';
import { fixtureCameraSamples } from '../test/node/camera/ffmpeg-frames.ts';
import { closeupShown } from '../test/node/edit/closeup.ts';
import { jobOfTruth } from '../test/node/edit/truth-job.ts';
import { ensureFixture, type FixtureOptions, type Truth } from '../test/support/fixtures.ts';
import { SAMPLE_FIXTURE_OPTIONS } from '../scripts/make-sample.ts';
import { describeFailure, filesOf, onTruth, runEngine } from './engine-run.ts';
import { Targets, type AreaEvaluation, type EvalSplits, type Split } from './target.ts';

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

/** The cases of each split: whether the built-in sample is in it, and the 3-minute set's fixture seeds. */
export const HANDSOFF_SPLITS: EvalSplits<{ builtInSample: boolean; seeds: readonly string[] }> = {
  /**
   * Seeds 5–8 were the test split until 27 Nov: their end-to-end result (69.5–89.2 % with every
   * close-up mapped right) showed the planner reading a monologue's pauses as quick exchanges.
   * The hold that fixed it (OWN_PAUSE_MS) was chosen on seeds 1–4, but seeds 5–8 showed the
   * mechanism, so they moved here and seeds 9–12 took their place.
   */
  tuning: { builtInSample: true, seeds: ['1', '2', '3', '4', '5', '6', '7', '8'] },
  /** Fresh: no parameter was chosen on these, and none was looked at while choosing one. */
  test: { builtInSample: false, seeds: ['9', '10', '11', '12'] },
};

export const evaluateHandsOff: AreaEvaluation = async ({ quick, splits, log }) => {
  const targets = new Targets('handsoff');
  for (const split of splits) await handsOff(split, quick, targets, log);
  return targets.results;
};

type HandsOffSet = { name: string; options: Partial<FixtureOptions> };

async function handsOff(split: Split, quick: boolean, targets: Targets, log: (line: string) => void): Promise<void> {
  const cases = HANDSOFF_SPLITS[split];
  const seeds = quick ? cases.seeds.slice(0, 1) : cases.seeds;
  const sets: HandsOffSet[] = [
    ...(cases.builtInSample ? [{ name: 'built-in sample', options: SAMPLE_FIXTURE_OPTIONS }] : []),
    ...seeds.map((seed) => ({
      name: `3 min, 3 speakers, seed ${seed}`,
      options: { seed, seconds: 180, speakers: 3, cameras: 'closeup:1,closeup:2,closeup:3,wide:1-2-3' },
    })),
  ];
  await oracle(split, sets, targets, log);
  await endToEnd(split, sets, targets, log);
}

/**
 * The hands-off figure: the share of single-speaker time (outside `removed`) that `cuts` show on
 * the speaker's own close-up, `cuts` and `removed` on the truth's timeline with the truth's file
 * names as source ids ({@link onTruth}); 1 when no speaker has a close-up. Also eval/long.ts's.
 */
export function ownCloseupShare(truth: Truth, cuts: readonly Cut[], removed: readonly TimeRange[]): number {
  const truthJob = jobOfTruth(truth);
  const s = closeupShown(truth, truthJob.sources, truthJob.cameraMap, cuts, removed);
  return s.totalMs === 0 ? 1 : s.onCloseupMs / s.totalMs;
}

/** Whether every close-up of `truth` has a track of exactly its own speaker (`speakersOf` names them as the truth does). */
function closeupsRight(truth: Truth, speakersOf: (file: string) => readonly string[] | undefined): boolean {
  return truth.expectedCameraMap.cameras
    .filter((e) => e.kind === 'closeup')
    .every((e) => {
      const speakers = speakersOf(e.file);
      return speakers !== undefined && speakers.length === 1 && speakers[0] === e.speakers[0];
    });
}

/** The oracle rows (info on both splits): true turns, true offsets, motion alone. */
async function oracle(
  split: Split,
  sets: readonly HandsOffSet[],
  targets: Targets,
  log: (line: string) => void,
): Promise<void> {
  let mappedRight = 0;
  let worst = Infinity;
  let worstSet = '';
  let worstSpeech = Infinity;
  let worstSpeechSet = '';
  for (const set of sets) {
    const { dir, truth } = await ensureFixture('tiny', set.options);
    const cams = fixtureCameraSamples(dir, truth);
    const map = computeCameraMap({
      cameras: cams.map((c) => ({ sourceId: c.sourceId, samples: c.samples })),
      turns: truth.turns,
    });
    const talk = new Map<string, number>();
    for (const t of truth.turns) talk.set(t.speaker, (talk.get(t.speaker) ?? 0) + t.endMs - t.startMs);
    const decision = decideAutoMap({
      mode: 'always',
      cameraMap: map,
      speakers: [...talk].map(([speaker, talkMs]) => ({ speaker, talkMs })),
    });
    const job = jobOfTruth(truth);
    if (decision.action !== 'map') {
      log(
        `[${split}] ${set.name} (oracle): asks for a mapping (${map.cameras.map((c) => `${c.sourceId} ${c.kind}/${c.confidence}`).join(', ')})`,
      );
      worst = 0;
      worstSet = set.name;
      continue;
    }
    const right = closeupsRight(truth, (file) => decision.tracks.find((x) => x.sourceId === file)?.speakers);
    if (right) mappedRight++;
    const shares = PRESET_IDS.map((presetId) => {
      const plan = planEdit({
        turns: truth.turns,
        tracks: decision.tracks,
        sources: job.sources,
        cameraMap: map,
        presetId,
        silence: resolveSilence(null),
      });
      const s = closeupShown(truth, job.sources, job.cameraMap, plan.cuts, plan.removedRanges);
      return { presetId, share: s.totalMs === 0 ? 1 : s.onCloseupMs / s.totalMs };
    });
    const balanced = shares.find((s) => s.presetId === 'balanced')!.share;
    if (balanced < worst) {
      worst = balanced;
      worstSet = set.name;
    }
    // The same with the speech-level truth as the turns (pauses inside a turn left out, as a
    // diarizer hears them): what separates whole turns from detected ones, sync and map aside.
    const speechPlan = planEdit({
      turns: truth.speech,
      tracks: decision.tracks,
      sources: job.sources,
      cameraMap: map,
      presetId: 'balanced',
      silence: resolveSilence(null),
    });
    const s = closeupShown(truth, job.sources, job.cameraMap, speechPlan.cuts, speechPlan.removedRanges);
    const speechShare = s.totalMs === 0 ? 1 : s.onCloseupMs / s.totalMs;
    if (speechShare < worstSpeech) {
      worstSpeech = speechShare;
      worstSpeechSet = set.name;
    }
    log(
      `[${split}] ${set.name} (oracle): ${right ? 'every close-up mapped to its speaker' : 'a close-up mapped WRONG'} ` +
        `(${map.cameras.map((c) => `${c.sourceId} ${c.kind}/${c.confidence} [${c.speakers.join(',')}]`).join(', ')}); ` +
        `own close-up ${shares.map((x) => `${x.presetId} ${pct(x.share)}`).join(', ')}; ` +
        `balanced with the speech-level truth as turns ${pct(speechShare)}`,
    );
  }
  // A stage on its own (a right diarization and sync): info on both splits.
  const isolated = 'true turns, true offsets, no faces';
  targets.info(
    split,
    `hands-off (autoMap always; ${isolated}): every set maps itself with each close-up on its own speaker`,
    `${mappedRight}/${sets.length}`,
  );
  targets.info(
    split,
    `hands-off, balanced (${isolated}): ≥ 90 % of single-speaker time on the speaker's own close-up on every set`,
    `worst ${pct(worst)} (${worstSet})`,
  );
  targets.info(
    split,
    `hands-off, balanced (true speech-level turns: pauses inside a turn left out, as a diarizer hears them; true offsets, no faces): single-speaker time on the speaker's own close-up`,
    `worst ${pct(worstSpeech)} (${worstSpeechSet})`,
  );
}

/** The end-to-end rows (gates on the test split): the engine's own outputs in Chromium. */
async function endToEnd(
  split: Split,
  sets: readonly HandsOffSet[],
  targets: Targets,
  log: (line: string) => void,
): Promise<void> {
  let mappedRight = 0;
  let worst = Infinity;
  let worstSet = '';
  const figures: string[] = [];
  for (const set of sets) {
    const { dir, truth } = await ensureFixture('tiny', set.options);
    const files = filesOf(dir, truth);
    const run = await runEngine(files, { autoMap: 'always' });
    const what = `[${split}] ${set.name} (end to end, ${files.videos.length} cameras + ${files.audio.length} mics)`;
    if (run.outcome !== 'ready') {
      log(`${what}: ${describeFailure(run)}`);
      figures.push(`${set.name}: ${run.outcome}`);
      worst = 0;
      worstSet = set.name;
      continue;
    }
    const { job } = run;
    const on = onTruth(job, truth);
    const byFile = (file: string): string | undefined => [...on.sourceOf].find(([, t]) => t.file === file)?.[0];
    const right = closeupsRight(truth, (file) =>
      job.tracks.find((t) => t.sourceId === byFile(file))?.speakers.map((s) => on.truthSpeaker.get(s) ?? `?${s}`),
    );
    const mapsItself = run.mappedBy === 'service' && right;
    if (mapsItself) mappedRight++;
    const shareOf = (cuts: readonly Cut[], removed: readonly TimeRange[]): number =>
      ownCloseupShare(truth, cuts, removed);
    // The job's own cuts are the default preset's (balanced); the others: its outputs replanned.
    const balanced = shareOf(on.cuts, on.removed);
    const others = PRESET_IDS.filter((p) => p !== 'balanced').map((presetId) => {
      const plan = planEdit({
        turns: job.turns,
        tracks: job.tracks,
        sources: job.sources,
        cameraMap: job.camera_map,
        presetId,
        silence: resolveSilence(null),
      });
      return `${presetId} ${pct(shareOf(on.toTruth(plan.cuts), on.removed))}`;
    });
    if (balanced < worst) {
      worst = balanced;
      worstSet = set.name;
    }
    const cams = truth.expectedCameraMap.cameras.map((e) => {
      const c = on.cameraOf(e.file);
      const track = job.tracks.find((t) => t.sourceId === byFile(e.file));
      return `${e.file} ${c ? `${c.kind}/${c.confidence} (${c.evidence ?? 'motion'})` : 'missing'} → [${(track?.speakers ?? []).map((s) => on.truthSpeaker.get(s) ?? `?${s}`).join(',')}]`;
    });
    figures.push(
      `${set.name}: DER ${on.derPct.toFixed(1)} % (${on.speakersHeard} heard), sync ≤ ${on.syncErrorMs.toFixed(0)} ms`,
    );
    log(
      `${what}: ${run.mappedBy === 'service' ? 'mapped by the service' : 'the service ASKED (the CLI took the camera map proposal)'}, ` +
        `${right ? 'every close-up on its own speaker' : 'a close-up mapped WRONG'} (${cams.join(', ')}); ` +
        `own close-up balanced ${pct(balanced)} (engine cuts), replanned ${others.join(', ')}; ` +
        `DER ${on.derPct.toFixed(1)} % (0.25 s collar, ${on.speakersHeard} speakers heard of ${truth.speakers.length}), ` +
        `worst pairwise offset error ${on.syncErrorMs.toFixed(1)} ms; ${run.seconds} s`,
    );
  }
  const e2e = 'end to end (detected turns, measured sync, faces)';
  targets.on(
    split,
    `hands-off ${e2e}, autoMap always: every set maps itself with each close-up on its own speaker`,
    `${mappedRight}/${sets.length}`,
    mappedRight === sets.length,
  );
  targets.on(
    split,
    `hands-off ${e2e}, balanced: ≥ 90 % of single-speaker time on the speaker's own close-up on every set`,
    `worst ${pct(worst)} (${worstSet})`,
    worst >= 0.9,
  );
  targets.info(split, `hands-off ${e2e}: DER (0.25 s collar) and worst pairwise offset error`, figures.join('; '));
}
