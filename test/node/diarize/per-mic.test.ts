import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { diarizationErrorRate } from '../../../src/analysis/diarize/der.ts';
import {
  diarizeFiltered,
  diarizePerMic,
  lowCutChannels,
  type PerMicOptions,
} from '../../../src/analysis/diarize/per-mic.ts';
import type { DiarizationResult } from '../../../src/analysis/diarize/result.ts';
import {
  residualLevels,
  residualLevelsRead,
  type ResidualHelper,
  type ResidualShareJob,
} from '../../../src/analysis/diarize/residual-levels.ts';
import { arrayReader } from '../../../src/analysis/signal/sample-reader.ts';
import { lowCut } from '../../../src/analysis/signal/signal-filter.ts';
import { frameLevelsDb } from '../../../src/analysis/diarize/edges.ts';
import { readerDouble } from '../../support/reader-double.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';
import type { Turn } from '../../../src/contract/types.ts';
import type { SileroVad } from '../../../src/models/silero-vad.ts';
import {
  assembleConversation,
  roomImpulse,
  withBleed,
  withRoomBleed,
  type Conversation,
} from '../../../tools/diarization/assemble.ts';
import { channelProbabilities, createNodeVad } from '../../../tools/diarization/vad-node.ts';
import { patient } from '../../support/patience.ts';

/**
 * One mic at 16 kHz: tones at `hz` over uniform hiss of rms −50 dBFS (seeded), each tone
 * [from s, to s, rms dBFS].
 */
function tonesOverHiss(
  seconds: number,
  hz: number,
  seed: number,
  tones: ReadonlyArray<readonly [number, number, number]>,
): Float32Array {
  const rate = 16000;
  const rand = seededRandom(seed);
  const mic = new Float32Array(seconds * rate);
  const hiss = 10 ** (-50 / 20) * Math.sqrt(3);
  for (let i = 0; i < mic.length; i++) {
    const t = i / rate;
    const tone = tones.find(([from, to]) => t >= from && t < to);
    const amp = tone ? 10 ** (tone[2] / 20) * Math.SQRT2 : 0;
    mic[i] = amp * Math.sin(2 * Math.PI * hz * t) + hiss * (2 * rand() - 1);
  }
  return mic;
}

/** A VAD test double for a 16 kHz signal of `samples`: speech (0.9) on Silero's 32 ms frames inside `rangesMs`, 0.1 elsewhere. */
function vadDouble(samples: number, rangesMs: ReadonlyArray<readonly [number, number]>): Float32Array {
  return Float32Array.from({ length: Math.floor(samples / 512) }, (_, k) =>
    rangesMs.some(([from, to]) => k * 32 >= from && k * 32 < to) ? 0.9 : 0.1,
  );
}

/**
 * Two mics at 16 kHz, each over its own hiss at −60 dBFS (seeded): voices A and B are noise
 * at `[from s, to s, rms dBFS]`; mic A hears B `bleedOntoADb` down, mic B hears A `bleedOntoBDb` down.
 */
function twoMicsWithBleed(
  seconds: number,
  seed: number,
  voiceA: readonly [number, number, number],
  voiceB: readonly [number, number, number],
  bleedOntoADb: number,
  bleedOntoBDb: number,
): Float32Array[] {
  const rate = 16000;
  const rand = seededRandom(seed);
  const noise = (db: number, on: (t: number) => boolean): Float32Array =>
    Float32Array.from({ length: seconds * rate }, (_, i) =>
      on(i / rate) ? 10 ** (db / 20) * Math.sqrt(3) * (2 * rand() - 1) : 0,
    );
  const a = noise(voiceA[2], (t) => t >= voiceA[0] && t < voiceA[1]);
  const b = noise(voiceB[2], (t) => t >= voiceB[0] && t < voiceB[1]);
  const hiss = [noise(-60, () => true), noise(-60, () => true)];
  const ontoA = 10 ** (-bleedOntoADb / 20);
  const ontoB = 10 ** (-bleedOntoBDb / 20);
  return [a.map((v, i) => v + ontoA * b[i]! + hiss[0]![i]!), b.map((v, i) => v + ontoB * a[i]! + hiss[1]![i]!)];
}

/** The label per-mic gave the speaker of channel `channel`. */
function labelOfChannel(r: DiarizationResult, channel: number): string | undefined {
  if (r.kind !== 'speakers') throw new Error('expected speakers');
  return Object.entries(r.channelOfSpeaker ?? {}).find(([, ch]) => ch === channel)?.[0];
}

/**
 * Per-mic turns of one mic whose VAD is a test double: speech (0.9) on Silero's 32 ms frames
 * from `fromMs` to `toMs`, 0.1 elsewhere; the voice floor and the minimum turn are off.
 */
function oneMicTurns(mic: Float32Array, fromMs: number, toMs: number, options: PerMicOptions): Turn[] {
  const r = diarizePerMic([mic], 16000, [vadDouble(mic.length, [[fromMs, toMs]])], {
    voiceFloorQuantile: 0,
    minTurnMs: 0,
    ...options,
  });
  if (r.kind !== 'speakers') throw new Error('expected speakers');
  return r.turns;
}

describe('diarizePerMic with crosstalk cancellation', () => {
  test("the quieter voice of an overlap, under its neighbour's bleed, is found in what cancelling leaves", () => {
    // Two mics, each hearing the other 10 dB down over hiss at −60 dBFS. A (−20 dBFS) talks
    // 1–7 s; B (−28 dBFS) talks 5–9 s. In the overlap B's mic reads B plus A's bleed (−30):
    // 4 dB over the bleed alone, under the 6 dB margin of the plain test. (Within 3 dB of
    // the bleed, B would count as bleed where the cancelling is learnt.)
    const mics = twoMicsWithBleed(10, 7, [1, 7, -20], [5, 9, -28], 10, 10);
    // VAD test doubles: each mic's VAD hears speech from 1 to 9 s (its own voice or the bleed).
    const vad = vadDouble(mics[0]!.length, [[1000, 9000]]);
    const startOfB = (cancelCrosstalk: boolean): number => {
      // A steady noise has no quieter frames than its own level: the voice floor is off.
      const r = diarizePerMic(mics, 16000, [vad, vad], { cancelCrosstalk, voiceFloorQuantile: 0 });
      const label = labelOfChannel(r, 1);
      if (r.kind !== 'speakers') throw new Error('expected speakers');
      return Math.min(...r.turns.filter((t) => t.speaker === label).map((t) => t.startMs));
    };
    // Measured: 5000 ms with cancelling, 7000 ms (when A stops) without.
    expect(Math.abs(startOfB(true) - 5000)).toBeLessThanOrEqual(100);
    expect(startOfB(false)).toBeGreaterThanOrEqual(6900);
  });
});

describe('diarizePerMic when every mic is at its floor', () => {
  test("a neighbour at its noise floor explains nothing: a short word keeps the VAD's hangover and its turn", () => {
    // Two mics close together: A hears B 3 dB down, B hears A 16 dB down, hiss at −60 dBFS.
    // B talks 1–4 s; A says a 200 ms word at 6 s, which the VAD (a test double) hears for
    // 320 ms, its hangover running on over the floor. Were B's floor read as bleed (−60 − 3
    // dB, within the 6 dB margin of A's floor), A would own only the word's 200 ms, under the
    // 250 ms shortest turn, and lose it.
    const mics = twoMicsWithBleed(8, 5, [6, 6.2, -20], [1, 4, -20], 3, 16);
    const n = mics[0]!.length;
    const r = diarizePerMic(
      mics,
      16000,
      [
        vadDouble(n, [
          [1000, 4000],
          [6000, 6320],
        ]),
        vadDouble(n, [[1000, 4000]]),
      ],
      { voiceFloorQuantile: 0 },
    );
    const labelOfA = labelOfChannel(r, 0);
    if (r.kind !== 'speakers') throw new Error('expected speakers');
    const word = r.turns.filter((t) => t.speaker === labelOfA);
    expect(word).toHaveLength(1);
    expect(Math.abs(word[0]!.startMs - 6000)).toBeLessThanOrEqual(20);
    expect(Math.abs(word[0]!.endMs - 6200)).toBeLessThanOrEqual(20);
    // B's talk is B's alone: A's mic hears it as bleed.
    expect(r.turns.filter((t) => t.speaker !== labelOfA).map((t) => [t.startMs, t.endMs])).toEqual([[1000, 4000]]);
  });
});

describe('diarizePerMic on mics with bleed (real Silero VAD)', () => {
  let vad: SileroVad;
  let conv: Conversation;
  let mics: Float32Array[];
  let probs: Float32Array[];
  /** What perfect, bleed-free mics would give with the same VAD: the bleed rule's target. */
  let cleanReference: Turn[];
  beforeAll(async () => {
    vad = await createNodeVad(1);
    conv = assembleConversation({ speakers: 3, seconds: 45, seed: 11, overlapRate: 0.35 });
    // Every mic hears the two others at −16 dB: their VAD fires on the bleed too.
    mics = withBleed(conv.tracks, 0.15);
    probs = await channelProbabilities(vad, mics);
    // The same method on each bleed-free track alone (VAD, smoothing and edge refinement).
    cleanReference = [];
    for (const [k, track] of conv.tracks.entries()) {
      const alone = diarizePerMic([track], 16000, [await vad.speechProbabilities(track)]);
      if (alone.kind === 'speakers')
        for (const t of alone.turns) cleanReference.push({ ...t, speaker: conv.speakerIds[k]! });
    }
  }, patient(60_000));
  afterAll(async () => {
    await vad?.dispose();
  });

  test('attributes speech to the mic that dominates, not to the ones hearing bleed', () => {
    const r = diarizePerMic(mics, 16000, probs);
    expect(r.kind).toBe('speakers');
    if (r.kind !== 'speakers') return;
    expect(r.speakers).toHaveLength(3);
    const score = diarizationErrorRate(conv.truth, r.turns, { collarMs: 250 });
    // Confusion is the bleed error: a neighbour's speech given to the wrong mic.
    expect(score.confusion / score.scored).toBeLessThan(0.02);
    // Against the assembled truth, misses are mostly Silero calling breaths and weak
    // syllables non-speech; against clean-mic VAD the bleed rule itself must be near exact.
    expect(score.der).toBeLessThan(0.3);
    // 8.8 % measured on this overlap-heavy conversation (35 % of turns start over the
    // previous one): bleed makes the 10 ms edges a little longer than on clean mics.
    expect(diarizationErrorRate(cleanReference, r.turns).der).toBeLessThan(0.1);
    // The mapping found by the scorer sends each reader to the label of their own mic.
    for (const [reader, label] of Object.entries(score.mapping)) {
      expect(r.channelOfSpeaker?.[label]).toBe(conv.speakerIds.indexOf(reader));
    }
    // Labels by talk time: SPEAKER_00 talks most.
    const talk = (s: string): number =>
      r.turns.filter((t) => t.speaker === s).reduce((a, t) => a + t.endMs - t.startMs, 0);
    expect(talk('SPEAKER_00')).toBeGreaterThanOrEqual(talk('SPEAKER_01'));
  });

  test('overwriting the channels (low cut in place, no second copy) gives the same result', () => {
    const copies = mics.map((m) => m.slice());
    const inPlace = diarizePerMic(copies, 16000, probs, { overwriteChannels: true });
    expect(inPlace).toEqual(diarizePerMic(mics, 16000, probs));
    expect(copies[0]).not.toEqual(mics[0]); // they were overwritten
  });

  test('half the crosstalk residuals measured by a helper gives the same result', () => {
    // Test double for the helper thread: it measures its share here, when collected, on copies
    // (as the real one gets them), and says what it was given.
    const shares: { from: number; frames: number; length: number }[] = [];
    const inThreadHelper: ResidualHelper = (job) => {
      shares.push({ from: job.from, frames: job.frames, length: job.length });
      const copies = { ...job, channels: job.channels.map((c) => arrayReader(c.read(0, job.length).slice())) };
      return () => residualLevelsRead(copies);
    };
    const helped = diarizePerMic(mics, 16000, probs, { residualHelper: inThreadHelper });
    expect(helped).toEqual(diarizePerMic(mics, 16000, probs));
    expect(shares).toHaveLength(1);
    // Cut on both grids (512 and 160 samples), near the middle.
    const { from, length } = shares[0]!;
    expect(from % 2560).toBe(0);
    expect(Math.abs(from - mics[0]!.length / 2)).toBeLessThanOrEqual(2560);
    expect(length).toBe(mics[0]!.length);
    // A helper that cannot take it: all measured here, the same result.
    expect(diarizePerMic(mics, 16000, probs, { residualHelper: () => null })).toEqual(helped);
  });

  test('a share read piece by piece measures the same levels as on whole arrays, holding only a piece', () => {
    let share: ResidualShareJob | undefined;
    const capture: ResidualHelper = (job) => {
      share = job;
      return null;
    };
    diarizePerMic(mics, 16000, probs, { residualHelper: capture });
    const job = share!;
    const origin = job.from - 2 * job.weights.hop;
    const whole = residualLevels({ ...job, origin, channels: job.channels.map((c) => c.read(origin, job.length)) });
    const files = job.channels.map((c) => readerDouble(c.read(0, job.length)));
    const read = residualLevelsRead({ ...job, channels: files }, undefined, { pieceSamples: 40_000 });
    expect(read).toEqual(whole);
    // Pieces of 40 000 samples with the 2 · hop (1024 samples) on each side that their frames reach.
    expect(Math.max(...files.map((f) => f.largest))).toBe(40_000 + 2 * 1024);
    expect(job.length - job.from).toBeGreaterThan(4 * 40_000);
  });

  test('channels read by range (files, test double) give the same result as channels in memory', () => {
    const files = mics.map((m) => readerDouble(m.slice()));
    const levels = lowCutChannels(files, 16000, probs, (i, at, block) => files[i]!.write(at, block));
    const fromFiles = diarizeFiltered(
      files.map((samples, i) => ({ samples, levels: levels[i]! })),
      16000,
      probs,
    );
    expect(fromFiles).toEqual(diarizePerMic(mics, 16000, probs));
    // The files now hold the low cut of the channels, to the bit.
    expect(files[1]!.read(0, mics[1]!.length)).toEqual(lowCut(mics[1]!, 16000));
  });

  test('10 ms edge refinement brings turns closer to the speech-level truth', async () => {
    // A minute of ordinary turn-taking (the conversation above is mostly overlap, where the
    // bleed rule, not the edges, decides).
    const plain = assembleConversation({ speakers: 3, seconds: 60, seed: 2 });
    const plainMics = withBleed(plain.tracks, 0.15);
    const plainProbs = await channelProbabilities(vad, plainMics);
    const coarse = diarizePerMic(plainMics, 16000, plainProbs, { refineEdges: false });
    const fine = diarizePerMic(plainMics, 16000, plainProbs);
    if (coarse.kind !== 'speakers' || fine.kind !== 'speakers') throw new Error('expected speakers');
    const c = diarizationErrorRate(plain.truth, coarse.turns);
    const f = diarizationErrorRate(plain.truth, fine.turns);
    // Measured: 9.8 % without, 6.3 % with (no collar); false alarm 5.0 % → 1.4 %, the VAD's
    // hangover trimmed.
    expect(f.der).toBeLessThan(c.der - 0.02);
    expect(f.falseAlarm).toBeLessThan(0.5 * c.falseAlarm);
  });

  test('a mic that starts late: its speaker is heard on the others, not given to them', async () => {
    // The mic of whoever speaks first records only from 15 s on (the diarizing stage leaves
    // what a source did not record at zero).
    const lateFrom = 15 * 16000;
    const k = conv.speakerIds.indexOf(conv.truth[0]!.speaker);
    const late = mics.map((m, i) => (i === k ? Float32Array.from(m, (v, j) => (j < lateFrom ? 0 : v)) : m));
    const lateProbs = [...probs];
    lateProbs[k] = await vad.speechProbabilities(late[k]!);
    const r = diarizePerMic(late, 16000, lateProbs);
    if (r.kind !== 'speakers') throw new Error('expected speakers');
    // Before 15 s, 10 ms steps where that reader speaks alone (truth): who does the result credit?
    const active = (turns: readonly Turn[], t: number): Turn[] => turns.filter((x) => x.startMs <= t && x.endMs > t);
    let alone = 0;
    let toLate = 0;
    let toOthers = 0;
    for (let t = 0; t < 15000; t += 10) {
      const truth = active(conv.truth, t);
      if (truth.length !== 1 || truth[0]!.speaker !== conv.speakerIds[k]) continue;
      alone++;
      const channels = new Set(active(r.turns, t).map((x) => r.channelOfSpeaker?.[x.speaker]));
      if (channels.has(k)) toLate++;
      if ([...channels].some((c) => c !== undefined && c !== k)) toOthers++;
    }
    expect(alone).toBeGreaterThan(200);
    // Measured: 20 % still given to the others (their loudest bleed frames pass as their own)
    // and 46 % credited to the late mic; without the recording-span rule 63 % went to the
    // others and none to the late mic.
    expect(toOthers / alone).toBeLessThan(0.4);
    expect(toLate / alone).toBeGreaterThan(0.35);
  });

  test('two mics not recording yet: a run of speech goes to the one whose speaker it runs on into', async () => {
    const plain = assembleConversation({ speakers: 3, seconds: 60, seed: 2 });
    const plainMics = withBleed(plain.tracks, 0.15);
    // A turn of at least 2 s that someone takes alone after the first few seconds; its
    // speaker's mic and one other start recording 1 s into it.
    const turn = plain.truth.find(
      (t) =>
        t.startMs > 3000 &&
        t.endMs - t.startMs > 2000 &&
        plain.truth.every((o) => o === t || o.endMs <= t.startMs || o.startMs >= t.startMs + 1000),
    )!;
    expect(turn).toBeDefined();
    const k = plain.speakerIds.indexOf(turn.speaker);
    const j = (k + 1) % 3;
    const from = Math.round(((turn.startMs + 1000) / 1000) * 16000);
    const late = plainMics.map((m, i) => (i === k || i === j ? Float32Array.from(m, (v, s) => (s < from ? 0 : v)) : m));
    const lateProbs = await channelProbabilities(vad, late);
    const r = diarizePerMic(late, 16000, lateProbs);
    if (r.kind !== 'speakers') throw new Error('expected speakers');
    const credited = (channel: number): number => {
      let ms = 0;
      for (const x of r.turns)
        if (r.channelOfSpeaker?.[x.speaker] === channel)
          ms += Math.max(0, Math.min(x.endMs, turn.startMs + 1000) - Math.max(x.startMs, turn.startMs));
      return ms;
    };
    // Measured: 830 ms to the speaker and none to the other absent mic. Choosing by level
    // alone (both mics' bleed is the same −16 dB) gave 670 ms and 290 ms.
    expect(credited(k)).toBeGreaterThan(600);
    expect(credited(j)).toBeLessThan(100);
  });

  test('a voice that brings its own background: the edges stop at the voice, not at its room tone', async () => {
    // Speaker 0's room tone (white noise at −45 dBFS: about 27 dB under the voice's loud
    // frames, 20 dB over the mics' own noise) starts 400 ms before each of its turns and ends
    // 400 ms after, as a reader's recording or a remote guest's gated track does. The
    // reference does not call it speech; against the mic's noise floor alone, it passes for it.
    const plain = assembleConversation({ speakers: 2, seconds: 60, seed: 3 });
    const rand = seededRandom(7);
    const tone = new Float32Array(plain.tracks[0]!.length);
    for (const t of plain.truth.filter((x) => x.speaker === plain.speakerIds[0])) {
      const from = Math.max(0, Math.round(((t.startMs - 400) / 1000) * 16000));
      const to = Math.min(tone.length, Math.round(((t.endMs + 400) / 1000) * 16000));
      for (let i = from; i < to; i++) tone[i] = (rand() - 0.5) * 0.02;
    }
    const toned = [Float32Array.from(plain.tracks[0]!, (v, i) => v + tone[i]!), plain.tracks[1]!];
    const tonedMics = withBleed(toned, 0.15);
    const tonedProbs = await channelProbabilities(vad, tonedMics);
    const withFloor = diarizePerMic(tonedMics, 16000, tonedProbs);
    const micFloorOnly = diarizePerMic(tonedMics, 16000, tonedProbs, { voiceFloorQuantile: 0 });
    if (withFloor.kind !== 'speakers' || micFloorOnly.kind !== 'speakers') throw new Error('expected speakers');
    const a = diarizationErrorRate(plain.truth, withFloor.turns);
    const b = diarizationErrorRate(plain.truth, micFloorOnly.turns);
    // Measured: 3.4 % DER (false alarm 1.5 %, miss 1.9 %) against 9.3 % (7.7 %, 1.6 %).
    expect(a.falseAlarm).toBeLessThan(0.5 * b.falseAlarm);
    expect(a.der).toBeLessThan(b.der - 0.02);
  });

  test('an edge takes a quiet tail only where the voice itself, not voice plus hiss, is 6 dB over the hiss', () => {
    // A 2.5 s tone at −30 dBFS, then a 400 ms tail at −44.8 dBFS: 5.2 dB over the mic's hiss
    // (−50 dBFS), so 6.4 dB over it with the hiss added. The test double's VAD covers the
    // loud part only (2 s of speech at least, or there is no speech); the edge may move out
    // into the tail by level alone.
    const mic = tonesOverHiss(5, 220, 5, [
      [1, 3.5, -30],
      [3.5, 3.9, -44.8],
    ]);
    const endOf = (options: PerMicOptions): number =>
      Math.max(...oneMicTurns(mic, 1000, 3500, options).map((t) => t.endMs));
    // Measured: the turn ends at 3510 ms by default, at 3890 ms with a 6 dB margin.
    expect(endOf({})).toBeLessThan(3600);
    // Judged as voice plus hiss 6 dB over the hiss, most of the tail passed for speech.
    expect(endOf({ edges: { floorMarginDb: 6 } })).toBeGreaterThan(3750);
  });

  test('a turn the VAD starts in the pause after a soft syllable takes the syllable', () => {
    // A soft syllable at −42 dBFS (0.80–0.95 s), a pause, then a word at −30 dBFS (1.10–3.50 s),
    // over a hiss of −50 dBFS. The test double's VAD starts at 1.024 s, inside the pause.
    const mic = tonesOverHiss(4.5, 180, 6, [
      [0.8, 0.95, -42],
      [1.1, 3.5, -30],
    ]);
    const startOf = (options: PerMicOptions): number =>
      Math.min(...oneMicTurns(mic, 1000, 3500, options).map((t) => t.startMs));
    // Measured: 800 ms by default, 1100 ms without reachPastQuietEdge.
    expect(startOf({})).toBeLessThan(850);
    // Only moved inward from a quiet first frame, the start stops at the word.
    expect(startOf({ edges: { reachPastQuietEdge: false } })).toBeGreaterThanOrEqual(1100);
  });

  test("an onset Silero sleeps through 600 ms before the word is still the turn's, up to a long pause", () => {
    // Over a hiss of −50 dBFS: a knock at −42 dBFS (1.00–1.10 s), 300 ms of quiet, two soft
    // syllables at −42 dBFS (1.40–1.50 s and 1.70–1.85 s) with short pauses, then the word at
    // −30 dBFS (1.95–4.00 s). The test double's VAD starts at 2.016 s, on the word.
    const mic = tonesOverHiss(5, 200, 8, [
      [1.0, 1.1, -42],
      [1.4, 1.5, -42],
      [1.7, 1.85, -42],
      [1.95, 4.0, -30],
    ]);
    const startOf = (options: PerMicOptions): number =>
      Math.min(...oneMicTurns(mic, 2016, 4000, options).map((t) => t.startMs));
    // Measured: 1400 ms by default (the knock beyond the 300 ms pause is left out); 1700 ms
    // with the 500 ms reach of single-mix, which stops short of the first syllable.
    expect(startOf({})).toBeGreaterThanOrEqual(1390);
    expect(startOf({})).toBeLessThan(1450);
    expect(startOf({ edges: { maxShiftMs: 500 } })).toBeGreaterThanOrEqual(1690);
  });

  test('bleed that crosses a room (a delay and a reverberant tail) is still told from a voice of its own', async () => {
    const h = roomImpulse(seededRandom(2));
    const delay = h.findIndex((v) => v !== 0);
    expect(delay).toBeGreaterThanOrEqual(32); // 2–6 ms at 16 kHz
    expect(delay).toBeLessThanOrEqual(96);
    expect(h.reduce((a, v) => a + v * v, 0)).toBeCloseTo(1, 6);
    expect(h[delay]! ** 2).toBeCloseTo(0.5, 6); // direct path and tail carry equal energy
    const roomMics = withRoomBleed(conv.tracks, 0.15);
    const roomProbs = await channelProbabilities(vad, roomMics);
    const r = diarizePerMic(roomMics, 16000, roomProbs);
    const plain = diarizePerMic(mics, 16000, probs);
    if (r.kind !== 'speakers' || plain.kind !== 'speakers') throw new Error('expected speakers');
    const inRoom = diarizationErrorRate(conv.truth, r.turns);
    const copied = diarizationErrorRate(conv.truth, plain.turns);
    const flat = diarizePerMic(roomMics, 16000, roomProbs, { bleedDecayDbPerSec: 0 });
    if (flat.kind !== 'speakers') throw new Error('expected speakers');
    const frameByFrame = diarizationErrorRate(conv.truth, flat.turns);
    // Measured: 8.2 % DER (false alarm 0.2 %, confusion 0); comparing frame by frame, the
    // tail of each neighbour's voice passed for the mic's own (11.6 %, false alarm 4.7 %).
    // With the bleed a plain copy, 6.2 % (8.1 % without crosstalk cancelling; this
    // conversation overlaps on 35 % of turns). A test of coherence between mics took the
    // tail for voices of their own (decision 003).
    expect(r.speakers).toHaveLength(3);
    expect(inRoom.falseAlarm).toBeLessThan(0.5 * frameByFrame.falseAlarm);
    expect(inRoom.der).toBeLessThan(frameByFrame.der);
    expect(inRoom.der).toBeLessThan(copied.der + 0.05);
    expect(inRoom.falseAlarm / inRoom.scored).toBeLessThan(0.04);
    expect(inRoom.confusion / inRoom.scored).toBeLessThan(0.01);
    // Crosstalk cancelling takes little off a bleed whose tail outlasts its window: the pairs
    // keep the plain test, and the room's figure is what it is without cancelling.
    const plainTest = diarizePerMic(roomMics, 16000, roomProbs, { cancelCrosstalk: false });
    if (plainTest.kind !== 'speakers') throw new Error('expected speakers');
    expect(Math.abs(inRoom.der - diarizationErrorRate(conv.truth, plainTest.turns).der)).toBeLessThan(0.005);
  });

  test('the same VAD without the bleed rule would give the bleed to the quiet mics', () => {
    // With a margin of −40 dB every voiced frame counts as own speech: false alarms appear.
    const naive = diarizePerMic(mics, 16000, probs, { bleedMarginDb: -40 });
    const fixed = diarizePerMic(mics, 16000, probs);
    if (naive.kind !== 'speakers' || fixed.kind !== 'speakers') throw new Error('expected speakers');
    const n = diarizationErrorRate(conv.truth, naive.turns);
    const f = diarizationErrorRate(conv.truth, fixed.turns);
    expect(n.falseAlarm).toBeGreaterThan(2 * f.falseAlarm);
  });

  test('overlapping speech on two mics keeps both speakers', () => {
    const overlaps = conv.truth
      .flatMap((a) =>
        conv.truth
          .filter((b) => b.speaker < a.speaker && b.startMs < a.endMs && a.startMs < b.endMs)
          .map((b) => [Math.max(a.startMs, b.startMs), Math.min(a.endMs, b.endMs)] as const),
      )
      .filter(([s, e]) => e - s >= 400);
    expect(overlaps.length).toBeGreaterThan(0);
    const r = diarizePerMic(mics, 16000, probs);
    if (r.kind !== 'speakers') throw new Error('expected speakers');
    let both = 0;
    for (const [s, e] of overlaps) {
      const mid = (s + e) / 2;
      const active = new Set(r.turns.filter((t) => t.startMs <= mid && t.endMs >= mid).map((t) => t.speaker));
      if (active.size >= 2) both++;
    }
    expect(both / overlaps.length).toBeGreaterThanOrEqual(0.5);
  });

  test('muted mics give a typed no-speech result that names the remedy', async () => {
    const quiet = [new Float32Array(16000 * 10), new Float32Array(16000 * 10)];
    quiet[1]!.fill(1e-4);
    const qp = await channelProbabilities(vad, quiet);
    const r = diarizePerMic(quiet, 16000, qp);
    expect(r.kind).toBe('no-speech');
    if (r.kind === 'no-speech') expect(r.message).toContain('diarizeSourceIds');
  });
});

describe('lowCutChannels', () => {
  test('filters and measures a long channel a block at a time: the same samples and levels, to the bit', () => {
    // 2.2 M samples (2 min 18 s at 16 kHz): three blocks, the last one short.
    const rand = seededRandom(4);
    const mic = Float32Array.from({ length: 2_200_000 }, (_, i) => 0.1 * (2 * rand() - 1) + 0.3 * Math.sin(i / 200));
    const file = readerDouble(mic.slice());
    const frames = Math.floor(mic.length / 512) - 3;
    const written: number[] = [];
    const [levels] = lowCutChannels([file], 16000, [new Float32Array(frames)], (_, at, block) => {
      written.push(at);
      file.write(at, block);
    });
    expect(written).toEqual([0, 1 << 20, 2 << 20]);
    expect(file.largest).toBe(1 << 20);
    const filtered = lowCut(mic, 16000);
    const sameBits = (a: ArrayBufferView, b: ArrayBufferView): boolean =>
      Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    expect(sameBits(file.read(0, mic.length), filtered)).toBe(true);
    expect(sameBits(levels!.coarse, frameLevelsDb(filtered, 16000, 32, frames, 0))).toBe(true);
    expect(sameBits(levels!.fine, frameLevelsDb(filtered, 16000, 10, undefined, 0))).toBe(true);
    expect(levels!.coarse).toHaveLength(frames);
    expect(levels!.fine).toHaveLength(Math.floor(mic.length / 160));
  });
});
