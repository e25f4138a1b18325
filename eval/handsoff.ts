/**
 * Hands-off evaluation (issue 35): with `autoMap: always` and no click, does the edit show each
 * speaker on their own close-up? The camera map from the fixtures' real pictures (every frame,
 * as the camera evaluation) and the true turns go through the autoMap decision and the cut
 * planner; the share of single-speaker time on the speaker's own close-up is measured against
 * the truth.
 *
 *   npx tsx eval/run.ts --only handsoff [--split tuning|test|both] [--quick]
 *
 * What it isolates: the true turns, the true offsets and no faces (motion alone) go in, so the
 * figures are those of the autoMap decision and the planner on a right diarization and sync,
 * not of the whole product path.
 *
 * **Splits** ({@link HANDSOFF_SPLITS}). A test split is never used to choose a parameter. The
 * tuning split is the demo's built-in sample (scripts/make-sample.ts: 60 s, 2 speakers,
 * 2 close-ups and a two-shot; issue 35 measured the wrong guess on it) and the 3-minute,
 * 3-speaker set (a close-up each and a wide) with fixture seeds 1–4, the sets these figures
 * were quoted from while the camera map's thresholds and the autoMap rules were settled. The
 * test split is fresh: the same 3-minute set with fixture seeds 5–8 (the first seed of each
 * split with `--quick`). Gates (test split): every set maps itself (no `mapping` question), each
 * close-up with its own speaker, and ≥ 90 % on the own close-up with the default preset
 * (balanced); relaxed and dynamic are reported. The tuning split's figures are info.
 *
 * @module
 */
import { computeCameraMap } from '../src/analysis/camera/camera-map.ts';
import { decideAutoMap } from '../src/analysis/automap.ts';
import { planEdit, resolveSilence } from '../src/analysis/edit.ts';
import { PRESET_IDS } from '../src/contract/types.ts';
import { fixtureCameraSamples } from '../test/node/camera/ffmpeg-frames.ts';
import { closeupShown } from '../test/node/edit/closeup.ts';
import { jobOfTruth } from '../test/node/edit/truth-job.ts';
import { ensureFixture, type FixtureOptions } from '../test/support/fixtures.ts';
import { SAMPLE_FIXTURE_OPTIONS } from '../scripts/make-sample.ts';
import { Targets, type AreaEvaluation, type EvalSplits, type Split } from './target.ts';

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

/** The cases of each split: whether the built-in sample is in it, and the 3-minute set's fixture seeds. */
export const HANDSOFF_SPLITS: EvalSplits<{ builtInSample: boolean; seeds: readonly string[] }> = {
  tuning: { builtInSample: true, seeds: ['1', '2', '3', '4'] },
  /** Fresh: no parameter was chosen on these. */
  test: { builtInSample: false, seeds: ['5', '6', '7', '8'] },
};

export const evaluateHandsOff: AreaEvaluation = async ({ quick, splits, log }) => {
  const targets = new Targets('handsoff');
  for (const split of splits) await handsOff(split, quick, targets, log);
  return targets.results;
};

async function handsOff(split: Split, quick: boolean, targets: Targets, log: (line: string) => void): Promise<void> {
  const cases = HANDSOFF_SPLITS[split];
  const seeds = quick ? cases.seeds.slice(0, 1) : cases.seeds;
  const sets: Array<{ name: string; options: Partial<FixtureOptions> }> = [
    ...(cases.builtInSample ? [{ name: 'built-in sample', options: SAMPLE_FIXTURE_OPTIONS }] : []),
    ...seeds.map((seed) => ({
      name: `3 min, 3 speakers, seed ${seed}`,
      options: { seed, seconds: 180, speakers: 3, cameras: 'closeup:1,closeup:2,closeup:3,wide:1-2-3' },
    })),
  ];
  let mappedRight = 0;
  let worst = Infinity;
  let worstSet = '';
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
        `[${split}] ${set.name}: asks for a mapping (${map.cameras.map((c) => `${c.sourceId} ${c.kind}/${c.confidence}`).join(', ')})`,
      );
      worst = 0;
      worstSet = set.name;
      continue;
    }
    const right = truth.expectedCameraMap.cameras
      .filter((e) => e.kind === 'closeup')
      .every((e) => {
        const t = decision.tracks.find((x) => x.sourceId === e.file);
        return t !== undefined && t.speakers.length === 1 && t.speakers[0] === e.speakers[0];
      });
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
    log(
      `[${split}] ${set.name}: ${right ? 'every close-up mapped to its speaker' : 'a close-up mapped WRONG'} ` +
        `(${map.cameras.map((c) => `${c.sourceId} ${c.kind}/${c.confidence} [${c.speakers.join(',')}]`).join(', ')}); ` +
        `own close-up ${shares.map((s) => `${s.presetId} ${pct(s.share)}`).join(', ')}`,
    );
  }
  const isolated = 'true turns, true offsets, no faces';
  targets.on(
    split,
    `hands-off (autoMap always; ${isolated}): every set maps itself with each close-up on its own speaker`,
    `${mappedRight}/${sets.length}`,
    mappedRight === sets.length,
  );
  targets.on(
    split,
    `hands-off, balanced (${isolated}): ≥ 90 % of single-speaker time on the speaker's own close-up on every set`,
    `worst ${pct(worst)} (${worstSet})`,
    worst >= 0.9,
  );
}
