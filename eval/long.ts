/**
 * Long footage that is not a repeated period (issue 51): does an hands-off job on a long set,
 * with pictures unlike the tuning sets, show each speaker on their own close-up and never on
 * someone else's?
 *
 *   flock /tmp/multicam-browser.lock npx tsx eval/run.ts --only long [--split tuning|test|both] [--quick]
 *
 * (The end-to-end rows launch Chromium and build the app: hold the browser lock.)
 *
 * **The sets** (tools/fixtures/long-meters.ts): a conversation of {@link LONG_SPLITS}' minutes
 * planned turn by turn from the seed (no loop), three close mics, a close-up per speaker whose
 * picture is that speaker's own close-mic signal drawn on a flat colour (a scope trace, a
 * scrolling waveform or an LED meter, centred or off to one side), and a wide of the three
 * displays; 640×360 at 25 fps, x264 ultrafast, the mics 48 kHz WAV. Built once into the fixture
 * cache (about 10–25 minutes per 30-minute set on this 2-core machine, more when it is loaded).
 *
 * **End to end** (gates on the test split): the cameras and mics go through the product
 * (eval/engine-run.ts `runEngine`: `multicam edit` in Chromium, analysis only, `--auto-map
 * always`), and the job is put on the truth's timeline. Each close-up is **right** (its track is
 * its own speaker alone), **asked** (the service asked for a mapping — the CLI exiting 4, or
 * taking the camera map's proposal, which on the demo page is a person's click — or left it out
 * of the edit with a `camera_unused` warning on the Job) or **wrong** (a track with someone else,
 * or left out without a word). Also: the seconds of single-speaker time shown on another
 * speaker's close-up away from a turn change (the wrong face; none may be) and, as info, those at
 * a turn change (the cut timing of the speaker just before or after: {@link otherCloseupTime}),
 * and the share on the speaker's own close-up
 * (eval/handsoff.ts `ownCloseupShare`; 0 when the service asked: nothing was shown). Beside them,
 * in the same run: the analysis (syncing to `ready` or to the question) × real time, and native
 * ffmpeg decoding every source's audio to 16 kHz mono (what the analysis reads).
 *
 * **Oracle** (info on both splits): the camera map from the same pictures sampled as the vision
 * worker samples them (runs of 15 frames from the keyframe before every max(2 s, length / 160),
 * decoded by ffmpeg in Node), with the true turns: what the pictures and the sampling give with a
 * right speaker detection; with the evidence each answer rests on (`support`).
 *
 * **Splits** ({@link LONG_SPLITS}). A test split is never used to choose a parameter. The tuning
 * split's seeds are the sets the thin-evidence threshold (src/analysis/camera/automap.ts
 * `MIN_SAMPLED_TURNS`) was looked at on; the test split's seed was not looked at before its one
 * run. `--quick`: the first seed of each split at 10 minutes (a smoke run, not the figures).
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeCameraMap } from '../src/analysis/camera/camera-map.ts';
import {
  motionFeatures,
  samplesToReference,
  type LumaFrame,
  type MotionSamples,
} from '../src/analysis/camera/features.ts';
import { decideAutoMap } from '../src/analysis/camera/automap.ts';
import { DEFAULT_PRESET_ID, PRESETS } from '../src/analysis/edit/presets.ts';
import type { CameraMapCamera, Cut, Job, TimeRange, Turn } from '../src/contract/types.ts';
import { keyframeTimesS } from '../test/node/camera/ffmpeg-frames.ts';
import { singleSpeakerSpans } from '../test/node/edit/measure.ts';
import { FIXTURE_CACHE } from '../tools/fixtures/cache.ts';
import { nativeAudioSeconds } from '../tools/native-audio.ts';
import { ensureMeterSet, type MeterSetTruth } from '../tools/fixtures/long-meters.ts';
import { filesOf, onTruth, runEngine, type EngineRun } from './engine-run.ts';
import { ownCloseupShare } from './handsoff.ts';
import { Targets, type AreaEvaluation, type EvalSplits, type Split } from './target.ts';

/** The sets of each split: fixture seeds of tools/fixtures/long-meters.ts and their length. */
export const LONG_SPLITS: EvalSplits<{ seeds: readonly string[]; minutes: number }> = {
  /** Looked at while the thin-evidence threshold was chosen. */
  tuning: { seeds: ['1'], minutes: 30 },
  /** Fresh: no parameter was chosen on it, and it was not looked at while choosing one. */
  test: { seeds: ['3'], minutes: 30 },
};

/** The vision worker's sampling (src/vision/frame-sampler.ts defaults): runs every 2 s, at most 160, 15 frames each. */
const SAMPLER = { everyS: 2, maxRuns: 160, framesPerRun: 15 } as const;

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

export const evaluateLong: AreaEvaluation = async ({ quick, splits, log }) => {
  const targets = new Targets('long');
  for (const split of splits) await longSplit(split, quick, targets, log);
  return targets.results;
};

/** What happened to one expected close-up. */
type CloseupVerdict = 'right' | 'asked' | 'wrong';

interface SetResult {
  name: string;
  verdicts: CloseupVerdict[];
  /** Single-speaker time on another speaker's close-up, split as {@link otherCloseupTime} does. */
  other: OtherCloseupTime;
  /** Share on the speaker's own close-up; 0 when the service asked. */
  share: number;
  asked: boolean;
  realS: number;
  analysisS: number;
  nativeS: number;
}

async function longSplit(split: Split, quick: boolean, targets: Targets, log: (line: string) => void): Promise<void> {
  const cases = LONG_SPLITS[split];
  const minutes = quick ? 10 : cases.minutes;
  const seeds = quick ? cases.seeds.slice(0, 1) : cases.seeds;
  const results: SetResult[] = [];
  let oracleRight = 0;
  const oracleNotes: string[] = [];
  for (const seed of seeds) {
    const name = `${minutes} min, seed ${seed}`;
    const { dir, truth } = await ensureMeterSet({ minutes, seed }, FIXTURE_CACHE, (l) => log(`  [${seed}] ${l}`));
    log(`[${split}] ${name}: ${describePictures(truth)}`);
    const oracle = await cachedOracleMap(dir, truth);
    if (oracle.right) oracleRight++;
    oracleNotes.push(`${name}: ${oracle.summary}`);
    log(`[${split}] ${name} (oracle: true turns, the worker's sampling): ${oracle.summary}`);
    for (const line of oracle.cameras) log(`    ${line}`);
    const result = await endToEnd(split, name, dir, truth, log);
    results.push(result);
  }

  targets.info(
    split,
    'long, oracle (true turns, pictures sampled as the vision worker does, motion): autoMap always maps every close-up to its own speaker',
    `${oracleRight}/${seeds.length} (${oracleNotes.join('; ')})`,
  );
  const e2e = `end to end, ${minutes}-minute non-repeating sets with meter pictures, autoMap always`;
  const verdicts = results.flatMap((r) => r.verdicts);
  const count = (v: CloseupVerdict): number => verdicts.filter((x) => x === v).length;
  targets.on(
    split,
    `long ${e2e}: every close-up right or asked about (none wrong)`,
    `${count('right')} right, ${count('asked')} asked, ${count('wrong')} wrong of ${verdicts.length}`,
    count('wrong') === 0,
  );
  const sum = (f: (o: OtherCloseupTime) => number): number => results.reduce((a, r) => a + f(r.other), 0);
  const wrongMs = sum((o) => o.elsewhereMs);
  targets.on(
    split,
    `long ${e2e}: no single-speaker time on another speaker's close-up away from a turn change (a wrong face)`,
    `${(wrongMs / 1000).toFixed(1)} s in ${sum((o) => o.elsewhere)} pieces`,
    wrongMs === 0,
  );
  targets.info(
    split,
    `long ${e2e}: single-speaker time on the close-up of the speaker just before or after, at the turn change (cut timing: pre-roll, hold, a turn shorter than the minimum shot; also in the share above)`,
    `${(sum((o) => o.timingMs) / 1000).toFixed(1)} s in ${sum((o) => o.timing)} pieces, the longest ${(Math.max(0, ...results.map((r) => r.other.longestTimingMs)) / 1000).toFixed(1)} s`,
  );
  const worst = results.reduce((m, r) => Math.min(m, r.share), Infinity);
  targets.on(
    split,
    `long ${e2e}, balanced: ≥ 90 % of single-speaker time on the speaker's own close-up on every set`,
    results.map((r) => `${r.name}: ${r.asked ? 'asked (nothing shown)' : pct(r.share)}`).join('; '),
    worst >= 0.9,
  );
  targets.info(
    split,
    `long ${e2e}: analysis (syncing to ready or to the question) × real time, beside native ffmpeg decoding every source's audio in the same run`,
    results
      .map(
        (r) =>
          `${r.name}: analysis ${r.analysisS.toFixed(0)} s (${(r.realS / r.analysisS).toFixed(1)}×), native audio ${r.nativeS.toFixed(0)} s (${(r.realS / r.nativeS).toFixed(0)}×)`,
      )
      .join('; '),
  );
}

function describePictures(truth: MeterSetTruth): string {
  return Object.entries(truth.pictures)
    .map(
      ([file, p]) =>
        `${file} ${p.displays.map((d) => `${d.speaker}:${d.style}@${d.x},${d.y} ${d.w}×${d.h}`).join(' ')}`,
    )
    .join('; ');
}

/** `closeup/low [spk2] z … (160 runs; sampled turns spk1 41, …)` for the log; `name` names the z and support keys (engine speakers). */
function describeAnswer(c: CameraMapCamera, name: (s: string) => string = (s) => s): string {
  const support = c.support
    ? ` (${c.support.runs} runs; sampled turns ${Object.entries(c.support.turns)
        .map(([s, n]) => `${name(s)} ${n}`)
        .join(', ')}; seconds ${Object.entries(c.support.seconds)
        .map(([s, n]) => `${name(s)} ${n}`)
        .join(', ')})`
    : '';
  const z = c.z
    ? ` z ${Object.entries(c.z)
        .map(([s, v]) => `${name(s)} ${v}`)
        .join(', ')}`
    : '';
  return `${c.kind}/${c.confidence} [${c.speakers.join(',')}]${z}${support}`;
}

/**
 * The frames the vision worker decodes of a file (runs of {@link SAMPLER}'s frames from the last
 * keyframe at or before every `everyS`), as 160×90 luma: one ffmpeg decodes the file once and
 * the runs' frames are kept as they stream by (one ffmpeg per run costs minutes on a loaded
 * machine).
 */
async function sampledFrames(file: string, fps: number, everyS: number, durationS: number): Promise<LumaFrame[]> {
  const keys = keyframeTimesS(file).map((t) => Math.round(t * fps));
  const wanted = new Set<number>();
  for (let t = 0; t < durationS; t += everyS) {
    const k = keys.filter((x) => x <= Math.round(t * fps)).pop() ?? 0;
    for (let i = 0; i < SAMPLER.framesPerRun; i++) wanted.add(k + i);
  }
  const [w, h] = [160, 90];
  const size = w * h;
  const child = spawn(
    'ffmpeg',
    ['-v', 'error', '-threads', '1', '-i', file, '-vf', `scale=${w}:${h},format=gray`, '-f', 'rawvideo', '-'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const frames: LumaFrame[] = [];
  let pending: Buffer = Buffer.alloc(0);
  let n = 0;
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let at = 0;
    for (; at + size <= pending.length; at += size, n++)
      if (wanted.has(n))
        frames.push({
          t: (n * 1000) / fps,
          luma: new Uint8Array(pending.subarray(at, at + size)),
          width: w,
          height: h,
        });
    pending = pending.subarray(at);
  }
  const code = await new Promise<number>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.on('close', (c) => resolve(c ?? -1)),
  );
  if (code !== 0) throw new Error(`ffmpeg failed on ${file}: ${stderr.trim()}`);
  return frames;
}

/** What the oracle's answer depends on besides the set: the camera map's and autoMap's code, and this file. */
const ORACLE_CODE = [
  '../src/analysis/camera/camera-map.ts',
  '../src/analysis/camera/correlation.ts',
  '../src/analysis/camera/features.ts',
  '../src/analysis/camera/automap.ts',
  './long.ts',
];

/**
 * {@link oracleMap}, kept beside the set (`oracle-<hash>.json`) for the code it was computed
 * with: decoding four 30-minute cameras takes minutes, and the end-to-end rows hold the browser
 * lock the whole time the evaluation runs.
 */
export async function cachedOracleMap(dir: string, truth: MeterSetTruth): ReturnType<typeof oracleMap> {
  const h = createHash('sha256');
  for (const f of ORACLE_CODE) h.update(readFileSync(join(import.meta.dirname, f)));
  const file = join(dir, `oracle-${h.digest('hex').slice(0, 12)}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Awaited<ReturnType<typeof oracleMap>>;
  const result = await oracleMap(dir, truth);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

/** The camera map of the set's pictures sampled as the vision worker samples them, with the true turns. */
export async function oracleMap(
  dir: string,
  truth: MeterSetTruth,
): Promise<{ right: boolean; summary: string; cameras: string[] }> {
  const videos = truth.sources.filter((s) => s.kind === 'video');
  const cameras: Array<{ sourceId: string; samples: MotionSamples }> = [];
  for (const s of videos) {
    const durationS = s.durationMs / 1000;
    const everyS = Math.max(SAMPLER.everyS, durationS / SAMPLER.maxRuns);
    const frames = await sampledFrames(join(dir, s.file), s.video?.fps ?? 25, everyS, durationS);
    cameras.push({ sourceId: s.file, samples: samplesToReference(motionFeatures(frames), s.offsetMs, 0) });
  }
  const map = computeCameraMap({ cameras, turns: truth.turns });
  const talk = new Map<string, number>();
  for (const t of truth.turns) talk.set(t.speaker, (talk.get(t.speaker) ?? 0) + t.endMs - t.startMs);
  const decision = decideAutoMap({
    mode: 'always',
    cameraMap: map,
    speakers: [...talk].map(([speaker, talkMs]) => ({ speaker, talkMs })),
  });
  const closeups = truth.expectedCameraMap.cameras.filter((e) => e.kind === 'closeup');
  const tracks = decision.action === 'map' ? decision.tracks : [];
  const right = closeups.filter((e) => {
    const t = tracks.find((x) => x.sourceId === e.file);
    return t !== undefined && t.speakers.length === 1 && t.speakers[0] === e.speakers[0];
  }).length;
  const wrong = closeups.filter((e) => {
    const t = tracks.find((x) => x.sourceId === e.file);
    return t !== undefined && t.speakers.some((s) => s !== e.speakers[0]);
  }).length;
  const summary =
    decision.action === 'ask'
      ? `asks (${right} right, ${wrong} wrong in the map's own answers)`
      : `maps: ${right} of ${closeups.length} close-ups right, ${wrong} wrong`;
  return {
    right: decision.action === 'map' && right === closeups.length,
    summary,
    cameras: map.cameras.map((c) => {
      const e = truth.expectedCameraMap.cameras.find((x) => x.file === c.sourceId);
      return `${c.sourceId} (truth ${e?.kind} [${e?.speakers.join(',')}]): ${describeAnswer(c)}`;
    }),
  };
}

/** Seconds of the run's log between the first `syncing` status and `ready` (or its last line: the question). */
function analysisSeconds(lines: readonly string[]): number {
  const at = (pred: (word: string, line: string) => boolean): number | undefined => {
    for (const line of lines) {
      const m = /^\[\s*([\d.]+) s\] (\S+)/.exec(line);
      if (m && pred(m[2]!, line)) return Number(m[1]);
    }
    return undefined;
  };
  const start = at((w, l) => w === 'syncing' && l.includes('(next:'));
  const end =
    at((w, l) => w === 'ready' && l.includes('(next:')) ??
    at((w, l) => w === 'mapping' && l.includes('(next: map_speakers'));
  if (start === undefined) return NaN;
  if (end !== undefined) return end - start;
  const last = [...lines].reverse().find((l) => /^\[\s*[\d.]+ s\]/.test(l));
  return last ? Number(/^\[\s*([\d.]+) s\]/.exec(last)![1]) - start : NaN;
}

async function endToEnd(
  split: Split,
  name: string,
  dir: string,
  truth: MeterSetTruth,
  log: (line: string) => void,
): Promise<SetResult> {
  const files = filesOf(dir, truth);
  const run: EngineRun = await runEngine(files, { autoMap: 'always', timeoutS: 3600 });
  const realS = truth.durationMs / 1000;
  const analysisS = analysisSeconds(run.lines);
  const nativeS = nativeAudioSeconds(truth.sources.map((x) => join(dir, x.file)));
  const what = `[${split}] ${name} (end to end, ${files.videos.length} cameras + ${files.audio.length} mics)`;
  const closeups = truth.expectedCameraMap.cameras.filter((e) => e.kind === 'closeup');
  const base = { name, realS, analysisS, nativeS };
  const speed = `analysis ${analysisS.toFixed(0)} s (${(realS / analysisS).toFixed(1)}× real time), native audio decode ${nativeS.toFixed(0)} s (${(realS / nativeS).toFixed(0)}×)`;
  if (run.outcome === 'failed') {
    log(`${what}: engine failed (${run.message}) after ${run.seconds} s`);
    // A failed job shows nobody: no close-up asked about, none right.
    return { ...base, verdicts: closeups.map(() => 'wrong'), other: NO_OTHER, share: 0, asked: false };
  }
  if (run.outcome === 'needs-mapping' || run.mappedBy === 'proposal') {
    const map = run.lines.filter((l) => /closeup|wide|twoshot|unknown|multi|Speakers heard|S\d/.test(l)).slice(-12);
    log(
      `${what}: the service ASKED for a mapping (${speed}); ${run.outcome === 'ready' ? 'the CLI took the proposal' : 'the CLI exited 4'}`,
    );
    for (const l of map) log(`    ${l}`);
    if (run.outcome === 'ready') logProposal(run.job, truth, log);
    return { ...base, verdicts: closeups.map(() => 'asked'), other: NO_OTHER, share: 0, asked: true };
  }
  const { job } = run;
  const on = onTruth(job, truth);
  const idOf = (file: string): string | undefined => [...on.sourceOf].find(([, t]) => t.file === file)?.[0];
  const named = (s: string): string => on.truthSpeaker.get(s) ?? `?${s}`;
  const verdicts = closeups.map((e): CloseupVerdict => {
    const id = idOf(e.file);
    const speakers = job.tracks.find((t) => t.sourceId === id)?.speakers.map(named) ?? [];
    if (speakers.length === 0)
      return job.warnings.some((w) => w.code === 'camera_unused' && w.sourceId === id) ? 'asked' : 'wrong';
    return speakers.length === 1 && speakers[0] === e.speakers[0] ? 'right' : 'wrong';
  });
  // Single-speaker time (true turns, outside the removed ranges) shown on someone else's close-up.
  const closeupOf = new Map(closeups.map((e) => [e.speakers[0]!, e.file]));
  const other = otherCloseupTime(truth.turns, on.removed, on.cuts, closeupOf, PRESETS[DEFAULT_PRESET_ID].minShotMs);
  const share = ownCloseupShare(truth, on.cuts, on.removed);
  log(
    `${what}: mapped by the service; close-ups ${closeups.map((e, i) => `${e.file} ${verdicts[i]}`).join(', ')}; ` +
      `own close-up ${pct(share)}, on another's close-up ${((other.timingMs + other.elsewhereMs) / 1000).toFixed(1)} s ` +
      `(${(other.timingMs / 1000).toFixed(1)} s at turn changes in ${other.timing} pieces, ${(other.elsewhereMs / 1000).toFixed(1)} s elsewhere in ${other.elsewhere}); ` +
      `DER ${on.derPct.toFixed(1)} % (${on.speakersHeard} heard), worst offset error ${on.syncErrorMs.toFixed(0)} ms; ${speed}`,
  );
  for (const e of truth.expectedCameraMap.cameras) {
    const c = on.cameraOf(e.file);
    log(`    ${e.file} (truth ${e.kind} [${e.speakers.join(',')}]): ${c ? describeAnswer(c, named) : 'missing'}`);
  }
  for (const w of job.warnings) log(`    warning ${w.code}${w.sourceId ? ` (${w.sourceId})` : ''}: ${w.message}`);
  for (const p of other.pieces.filter((x) => !x.atTurnChange).slice(0, 10))
    log(
      `    elsewhere: ${(p.startMs / 1000).toFixed(1)}–${(p.endMs / 1000).toFixed(1)} s, ${p.speaker} speaking, ${p.shown}'s close-up`,
    );
  return { ...base, verdicts, other, share, asked: false };
}

/** One piece of single-speaker time on another speaker's close-up. */
interface OtherCloseupPiece extends TimeRange {
  /** Who speaks, whose close-up is shown (the truth's names). */
  speaker: string;
  shown: string;
  /** Cut timing at a turn change (see {@link otherCloseupTime}). */
  atTurnChange: boolean;
}

/** {@link otherCloseupTime}'s answer. */
export interface OtherCloseupTime {
  timingMs: number;
  timing: number;
  longestTimingMs: number;
  elsewhereMs: number;
  elsewhere: number;
  pieces: OtherCloseupPiece[];
}

const NO_OTHER: OtherCloseupTime = {
  timingMs: 0,
  timing: 0,
  longestTimingMs: 0,
  elsewhereMs: 0,
  elsewhere: 0,
  pieces: [],
};

/**
 * Single-speaker time (true turns, outside `removed`) that `cuts` show on another speaker's
 * close-up, in two parts. **At a turn change**: a piece no longer than `minShotMs` at the start
 * of the span showing the speaker of the turn just before it (the cut comes late: a hold, or the
 * shot before must last its minimum), or at its end showing the speaker of the turn just after
 * it (the cut comes early: the pre-roll); the edit's cut timing, which the planner's rules give
 * with a right map and the true turns too (on the tuning set: 13.1 s of 30 minutes planned on
 * whole turns, 20.2 s on speech-level turns, pieces of 0.3 s median, none longer than 1.1 s).
 * **Elsewhere**: the rest, a face shown for someone else's speech (a wrong map, or a planner
 * choice away from any turn change). Both kinds count against
 * the own close-up share ({@link ownCloseupShare}, the hands-off measure) as before.
 */
export function otherCloseupTime(
  turns: readonly Turn[],
  removed: readonly TimeRange[],
  cuts: readonly Cut[],
  closeupOf: ReadonlyMap<string, string>,
  minShotMs: number,
): OtherCloseupTime {
  const out: OtherCloseupTime = { ...NO_OTHER, pieces: [] };
  for (const span of singleSpeakerSpans(turns, removed))
    for (const [shown, file] of closeupOf) {
      if (shown === span.speaker) continue;
      for (const c of cuts) {
        if (c.sourceId !== file) continue;
        const startMs = Math.max(c.startMs, span.startMs);
        const endMs = Math.min(c.endMs, span.endMs);
        if (endMs <= startMs) continue;
        // The turns just before and after the span, of anyone else.
        let before: Turn | undefined;
        let after: Turn | undefined;
        for (const t of turns) {
          if (t.speaker === span.speaker) continue;
          if (t.endMs <= span.startMs + 1 && (!before || t.endMs > before.endMs)) before = t;
          if (t.startMs >= span.endMs - 1 && (!after || t.startMs < after.startMs)) after = t;
        }
        const atTurnChange =
          endMs - startMs <= minShotMs &&
          ((startMs === span.startMs && before?.speaker === shown) ||
            (endMs === span.endMs && after?.speaker === shown));
        out.pieces.push({ startMs, endMs, speaker: span.speaker, shown, atTurnChange });
        if (atTurnChange) {
          out.timingMs += endMs - startMs;
          out.timing++;
          out.longestTimingMs = Math.max(out.longestTimingMs, endMs - startMs);
        } else {
          out.elsewhereMs += endMs - startMs;
          out.elsewhere++;
        }
      }
    }
  return out;
}

/** When the service asked and the CLI took the proposal: what the proposal said (log only). */
function logProposal(job: Job, truth: MeterSetTruth, log: (line: string) => void): void {
  const on = onTruth(job, truth);
  const named = (s: string): string => on.truthSpeaker.get(s) ?? `?${s}`;
  log(
    `    DER ${on.derPct.toFixed(1)} % (${on.speakersHeard} heard), worst offset error ${on.syncErrorMs.toFixed(0)} ms`,
  );
  for (const e of truth.expectedCameraMap.cameras) {
    const c = on.cameraOf(e.file);
    log(`    ${e.file} (truth ${e.kind} [${e.speakers.join(',')}]): ${c ? describeAnswer(c, named) : 'missing'}`);
  }
  log(`    had a person accepted the proposal: own close-up ${pct(ownCloseupShare(truth, on.cuts, on.removed))}`);
}
