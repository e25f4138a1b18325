/**
 * The long-set bench: a whole job on a 10–120 minute multicam set (tools/fixtures/long-set.ts),
 * driven through the contract in Chromium by `multicam edit` (the CLI, in-process), from the
 * file inputs to a downloaded render, beside native ffmpeg doing the comparable work in the
 * same run.
 *
 *   npx tsx bench/long/run.ts [--minutes 10,60] [--loop 127] [--bitrate 8M] [--no-native-render] [--analysis-only] [--copy]
 *
 * The files are used in place (the CLI's default); `--copy` uploads them into the browser's
 * storage instead, as a client of the contract that PUTs.
 *
 * Prints, per set: each stage's time and × real time, the peak PSS of the browser's processes,
 * the storage the browser's profile used, and checks against the truth (offsets, DER outside
 * the seams, each close-up's speaker, the render's length against the kept timeline, and audio
 * and video in sync in the render's last minute: av-sync.ts). The PSS of every sample, with the
 * stage it fell in, goes to .cache/bench-long/pss-N.json. Native
 * baseline: ffmpeg decoding the audio of every source (what syncing and speaker detection
 * read), and a libx264 veryfast render of the same edit (the kept pieces through the concat
 * demuxer, 8 Mb/s, AAC). Ratios, never timed assertions.
 *
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { diarizationErrorRate } from '../../src/analysis/diarize/der.ts';
import { parseEditArgs } from '../../src/cli/args.ts';
import { runEdit } from '../../src/cli/main.ts';
import type { GetJobResponse, Turn } from '../../src/contract/types.ts';
import { keptPieces } from '../../src/render/plan.ts';
import { FIXTURE_CACHE } from '../../tools/fixtures/cache.ts';
import { concatInput, ensureLongSet, type LongTruth } from '../../tools/fixtures/long-set.ts';
import { nativeAudioSeconds } from '../../tools/native-audio.ts';
import { chromiumTree, treeMemory } from '../upload/proc-memory.ts';
import { checkAvSync } from './av-sync.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, '.cache', 'bench-long');

/** Stage spans from the CLI's status lines (`[  12.3 s] syncing  (next: wait)`). */
interface Spans {
  ingest: number;
  syncing: number;
  diarizing: number;
  mapping: number;
  rendering: number;
  download: number;
  total: number;
}

function spansOf(lines: readonly string[]): Spans {
  const at = new Map<string, number>();
  for (const line of lines) {
    const m = /^\[\s*([\d.]+) s\] (\S+)/.exec(line);
    if (!m) continue;
    const word = m[2]!;
    // A status is a line with the next action ("mapping  (next: wait)"); "mapping by the
    // service …" after `ready` is the CLI reporting the map, not the stage.
    const statuses = ['syncing', 'diarizing', 'mapping', 'ready', 'rendering', 'complete'];
    if (statuses.includes(word) && !line.includes('(next:')) continue;
    const key = word === 'uploading' ? 'upload' : word;
    if (!at.has(key)) at.set(key, Number(m[1]));
  }
  // A stage over between two polls prints no line: it starts when the next one does.
  const order = ['upload', 'syncing', 'diarizing', 'mapping', 'ready', 'rendering', 'complete', 'wrote'];
  const t = (k: string): number => {
    for (const key of order.slice(order.indexOf(k))) if (at.has(key)) return at.get(key)!;
    return NaN;
  };
  return {
    ingest: t('syncing') - t('upload'),
    syncing: t('diarizing') - t('syncing'),
    diarizing: t('mapping') - t('diarizing'),
    mapping: t('ready') - t('mapping'),
    rendering: t('complete') - t('rendering'),
    download: t('wrote') - t('complete'),
    total: t('wrote') - t('upload'),
  };
}

function seconds(f: () => void): number {
  const t0 = performance.now();
  f();
  return (performance.now() - t0) / 1000;
}

/** Native: libx264 veryfast render of the edit's kept pieces (concat demuxer in/out points). */
function nativeRender(dir: string, job: GetJobResponse, outFile: string): number {
  const byId = new Map(job.job.sources.map((s) => [s.id, s]));
  const lines = keptPieces(job.job.cuts, job.job.removed_ranges ?? []).map((p) => {
    const s = byId.get(p.sourceId)!;
    const off = s.offsetMs ?? 0;
    return `file '${join(dir, `${s.label}.mp4`)}'\ninpoint ${((p.startMs - off) / 1000).toFixed(3)}\noutpoint ${((p.endMs - off) / 1000).toFixed(3)}\n`;
  });
  const list = `${outFile}.txt`;
  writeFileSync(list, lines.join(''));
  return seconds(() =>
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      ...concatInput(list),
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-b:v',
      '8M',
      '-c:a',
      'aac',
      '-b:a',
      '128k',
      outFile,
    ]),
  );
}

function probeDurationMs(file: string): number {
  const r = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], {
    encoding: 'utf8',
  });
  return Number(r.stdout.trim()) * 1000;
}

/** Hypothesis turns with the seams cut out (the truth leaves them out). */
function outsideSeams(turns: readonly Turn[], seams: LongTruth['seams']): Turn[] {
  let out = [...turns];
  for (const s of seams)
    out = out.flatMap((t) => {
      if (t.endMs <= s.startMs || t.startMs >= s.endMs) return [t];
      const parts: Turn[] = [];
      if (t.startMs < s.startMs) parts.push({ ...t, endMs: s.startMs });
      if (t.endMs > s.endMs) parts.push({ ...t, startMs: s.endMs });
      return parts;
    });
  return out;
}

const fmt = (x: number, d = 1): string => (Number.isFinite(x) ? x.toFixed(d) : '—');

async function runSet(
  minutes: number,
  loopSec: number,
  nativeRenderToo: boolean,
  analysisOnly: boolean,
  copy: boolean,
  videoBitrate: string,
): Promise<void> {
  const log = (line: string): void => console.log(`  ${line}`);
  console.log(`\n=== ${minutes}-minute set`);
  const { dir, truth } = await ensureLongSet({ minutes, loopSec, videoBitrate }, FIXTURE_CACHE, log);
  const realSec = truth.durationMs / 1000;
  const inputBytes = truth.sources.reduce((a, s) => a + s.bytes, 0);
  const videos = truth.sources.filter((s) => s.kind === 'video').map((s) => join(dir, s.file));
  const mics = truth.sources.filter((s) => s.kind === 'audio').map((s) => join(dir, s.file));
  console.log(
    `set: ${videos.length} cameras + ${mics.length} mics, ${fmt(truth.minutes, 0)} min, ${(inputBytes / 1e9).toFixed(1)} GB`,
  );

  mkdirSync(OUT, { recursive: true });
  const output = join(OUT, `edit-${minutes}.mp4`);
  const args = parseEditArgs([
    ...videos,
    ...mics.flatMap((m) => ['--audio', m]),
    ...(copy ? ['--copy'] : []),
    '-o',
    output,
    '--timeout',
    '14400',
  ]);
  const lines: string[] = [];
  let profile = '';
  let peakPss = 0;
  // The stage running when each sample was taken (from the CLI's status lines).
  let stage = 'ingest';
  const peakByStage = new Map<string, number>();
  let peakStorage = 0;
  let job: GetJobResponse | null = null;
  // Every sample, to see when in a stage the memory peaks: [s since start, stage, PSS bytes].
  const timeline: Array<[number, string, number]> = [];
  const started = performance.now();
  const sampler = setInterval(() => {
    if (profile === '') return;
    const pss = treeMemory(chromiumTree(profile)).pssBytes;
    timeline.push([Math.round((performance.now() - started) / 100) / 10, stage, pss]);
    peakPss = Math.max(peakPss, pss);
    peakByStage.set(stage, Math.max(peakByStage.get(stage) ?? 0, pss));
    const du = spawnSync('du', ['-sb', profile], { encoding: 'utf8' });
    peakStorage = Math.max(peakStorage, Number(du.stdout.split('\t')[0]) || 0);
  }, 2000);
  const code = await runEdit(
    args,
    (line) => {
      lines.push(line);
      const word = /^\[\s*[\d.]+ s\] (\w+)/.exec(line)?.[1];
      if (word && ['syncing', 'diarizing', 'mapping', 'ready', 'rendering', 'complete'].includes(word))
        stage = word === 'complete' ? 'download' : word;
      console.log(`  ${line}`);
    },
    {
      onBrowser: (d) => (profile = d),
      onDone: (j) => void (job = j),
      analysisOnly,
      onStageRuns: (runs) => {
        for (const r of runs)
          console.log(
            `  engine ${r.stage} ${r.outcome} in ${(r.elapsedMs / 1000).toFixed(1)} s${
              r.metrics
                ? `: ${Object.entries(r.metrics)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(', ')}`
                : ''
            }`,
          );
      },
    },
  );
  clearInterval(sampler);
  if (code !== 0 || job === null) throw new Error(`multicam edit exited ${code}`);
  const done: GetJobResponse = job;
  const spans = spansOf(lines);
  const analysis = spans.syncing + spans.diarizing + spans.mapping;

  // Native baseline, same machine, same run.
  const audioSec = nativeAudioSeconds(truth.sources.map((x) => join(dir, x.file)));
  const nativeOut = join(OUT, `native-${minutes}.mp4`);
  const renderSec = nativeRenderToo && !analysisOnly ? nativeRender(dir, done, nativeOut) : NaN;
  rmSync(nativeOut, { force: true });

  // Checks against the truth.
  const labelOf = (id: string): string => done.job.sources.find((s) => s.id === id)?.label ?? id;
  // Both timelines start at the earliest source (offset 0).
  const offsetErr = Math.max(
    ...done.job.sources.map((s) => {
      const t = truth.sources.find((x) => x.label === s.label);
      return t ? Math.abs((s.offsetMs ?? 0) - t.offsetMs) : NaN;
    }),
  );
  const drift = Math.max(...done.job.sources.map((s) => Math.abs(s.driftPpm ?? 0)));
  writeFileSync(join(OUT, `job-${minutes}.json`), JSON.stringify(done, null, 1));
  writeFileSync(join(OUT, `pss-${minutes}.json`), JSON.stringify(timeline));
  const der = diarizationErrorRate(truth.speech, outsideSeams(done.job.turns, truth.seams), { collarMs: 250 });
  const closeups = truth.expectedCameraMap.cameras.filter((c) => c.kind === 'closeup');
  const rightCloseups = closeups.filter((c) => {
    const track = done.job.tracks.find((t) => labelOf(t.sourceId) === c.label);
    return track !== undefined && track.speakers.length === 1 && der.mapping[c.speakers[0]!] === track.speakers[0];
  }).length;
  const keptMs = keptPieces(done.job.cuts, done.job.removed_ranges ?? []).reduce((a, p) => a + p.endMs - p.startMs, 0);
  const renderedMs = analysisOnly ? NaN : probeDurationMs(output);
  const pathOf = (label: string): string => join(dir, truth.sources.find((s) => s.label === label)!.file);
  const av = analysisOnly ? null : checkAvSync(done.job, output, pathOf);

  const row = (stage: string, sec: number, native = ''): string =>
    `| ${stage} | ${fmt(sec, 0)} s | ${fmt(realSec / sec, 1)}× | ${native} |`;
  console.log(
    `\n${fmt(truth.minutes, 0)}-minute set: ${videos.length} × 1080p30 H.264 ${videoBitrate.replace(/M$/, ' Mb/s')} + AAC, ${mics.length} × 48 kHz WAV, ${(inputBytes / 1e9).toFixed(1)} GB`,
  );
  console.log('| stage | time | × real time | native ffmpeg, same run |');
  console.log('|---|---|---|---|');
  console.log(
    copy
      ? row('ingest (file inputs → storage)', spans.ingest, `${fmt(inputBytes / 1e6 / spans.ingest, 0)} MB/s`)
      : row('ingest (files used in place: nothing copied)', spans.ingest),
  );
  console.log(
    row('syncing', spans.syncing, `audio of every source decoded: ${fmt(audioSec, 0)} s (${fmt(realSec / audioSec)}×)`),
  );
  console.log(row('diarizing', spans.diarizing));
  console.log(row('mapping', spans.mapping));
  console.log(row('analysis (sync + speakers + map)', analysis));
  console.log(
    row(
      'render',
      spans.rendering,
      `libx264 veryfast: ${fmt(renderSec, 0)} s; ratio ours/native ${fmt(spans.rendering / renderSec, 2)}`,
    ),
  );
  console.log(row('download', spans.download));
  console.log(row('start to downloaded file', spans.total));
  console.log(
    `peak PSS of the browser's processes: ${(peakPss / 2 ** 30).toFixed(2)} GiB (by stage: ${[...peakByStage]
      .map(([s, b]) => `${s} ${(b / 2 ** 30).toFixed(2)}`)
      .join(', ')})`,
  );
  console.log(
    `peak storage of the browser profile: ${(peakStorage / 1e9).toFixed(1)} GB (input ${(inputBytes / 1e9).toFixed(1)} GB)`,
  );
  console.log(
    `checks: offsets within ${fmt(offsetErr, 1)} ms; largest |drift| ${fmt(drift, 1)} ppm (truth 0); DER ${fmt(der.der * 100)} % (0.25 s collar, seams out); close-ups on their speaker ${rightCloseups}/${closeups.length}; render ${fmt(renderedMs / 1000, 2)} s vs kept ${fmt(keptMs / 1000, 2)} s`,
  );
  if (av)
    console.log(
      `A/V at ${fmt(av.atS, 2)} s of the render (${av.camera} at ${fmt(av.sourceS, 2)} s): video ${av.videoFramesOff} frames off the plan (next best frame ${fmt(av.videoMargin)}× further), audio ${fmt(av.audioLagMs, 2)} ms off the mics' mix (correlation ${fmt(av.audioCorrelation, 3)})`,
    );
  rmSync(output, { force: true });
}

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    loop: { type: 'string', default: '127' },
    /** `--no-native-render`: leave out the (slow) native render, e.g. while tuning the analysis. */
    'no-native-render': { type: 'boolean' },
    /** `--analysis-only`: stop when the job is ready (no render, no download). */
    'analysis-only': { type: 'boolean' },
    /** `--copy`: upload the files into the browser's storage instead of using them in place. */
    copy: { type: 'boolean' },
    /** `--bitrate 4M`: the cameras' bitrate (default 8M; a lower one makes a smaller set). */
    bitrate: { type: 'string', default: '8M' },
  },
});
for (const m of values.minutes.split(',').map(Number))
  await runSet(
    m,
    Number(values.loop),
    values['no-native-render'] !== true,
    values['analysis-only'] === true,
    values.copy === true,
    values.bitrate,
  );
