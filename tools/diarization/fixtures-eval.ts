/**
 * The fixtures part of tools/eval-diarization.ts: engineer D's generated sets found in
 * `.cache/fixtures/` (nothing is generated here; run `npm run fixtures` or the tests that
 * call ensureFixture first), scored in
 *   - single-mix mode on the fixture's reference mix (reference.wav),
 *   - per-mic mode on the close mics when the set has them, otherwise on the cameras' audio:
 *     for each speaker the camera whose room mix favours them most, plus the wide when a
 *     speaker has no camera of their own. Cameras are put on the reference timeline with
 *     the truth's offset and drift (what the syncing stage does in the app).
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Turn } from '../../src/contract/types.ts';
import { diarizeMix, type MixOptions } from '../../src/analysis/diarize/mix.ts';
import { diarizePerMic } from '../../src/analysis/diarize/per-mic.ts';
import type { DiarizationResult } from '../../src/analysis/diarize/result.ts';
import type { SileroVad } from '../../src/models/silero-vad.ts';
import type { Truth, TruthSource } from '../fixtures/truth.ts';
import type { EvalRow } from '../eval-diarization.ts';
import { decodeWithFfmpeg, loadMono16k } from './audio.ts';

type Score = (name: string, mode: EvalRow['mode'], seconds: number, truth: Turn[], result: DiarizationResult, note?: string) => EvalRow;

const CACHE = join(process.cwd(), '.cache', 'fixtures');

/** A source's audio on the reference timeline (16 kHz), using the truth's offset and drift. */
function onReferenceTimeline(dir: string, source: TruthSource, durationMs: number): Float32Array {
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
      const other = Math.max(0, ...Object.entries(c.gains).filter(([k]) => k !== sp.id).map(([, v]) => v));
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

/** Scores up to `limit` distinct cached fixtures; returns no rows when there are none. */
export async function evaluateFixtures(vad: SileroVad, mixOptions: MixOptions, score: Score, limit = 5): Promise<EvalRow[]> {
  if (!existsSync(CACHE)) return [];
  const seen = new Set<string>();
  const fixtures: Array<{ dir: string; truth: Truth }> = [];
  for (const name of readdirSync(CACHE).sort()) {
    const dir = join(CACHE, name);
    if (!existsSync(join(dir, '.complete')) || !existsSync(join(dir, 'truth.json'))) continue;
    const truth = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as Truth;
    const o = truth.options;
    const key = JSON.stringify([o['seconds'], o['speakers'], o['voices'], o['mics'], o['cameras'], truth.seed]);
    if (seen.has(key)) continue;
    seen.add(key);
    fixtures.push({ dir, truth });
  }
  fixtures.sort((a, b) => a.truth.durationMs - b.truth.durationMs);
  const rows: EvalRow[] = [];
  for (const { dir, truth } of fixtures.slice(0, limit)) {
    const reference: Turn[] = [
      ...truth.turns.map((t) => ({ speaker: t.speaker, startMs: t.startMs, endMs: t.endMs })),
      ...truth.backchannels.map((t) => ({ speaker: t.speaker, startMs: t.startMs, endMs: t.endMs })),
    ];
    const label = `fixture ${truth.set} ${Math.round(truth.durationMs / 1000)}s ${truth.speakers.length}spk ${String(truth.options['voices'])}`;
    const seconds = truth.durationMs / 1000;
    const mix = loadMono16k(join(dir, truth.reference.file)).samples;
    rows.push(score(label, 'mix', seconds, reference, diarizeMix(mix, 16000, await vad.speechProbabilities(mix), mixOptions), 'reference.wav'));
    const { sources, kind } = perMicSources(truth);
    if (sources.length === 0) continue;
    const channels = sources.map((s) => onReferenceTimeline(dir, s, truth.durationMs));
    const probs: Float32Array[] = [];
    for (const c of channels) probs.push(await vad.speechProbabilities(c));
    rows.push(score(label, 'per-mic', seconds, reference, diarizePerMic(channels, 16000, probs), kind));
  }
  return rows;
}
