/**
 * The render's mixer with mastering (src/render/audio-mix.ts), end to end in Node: two close
 * mics as WAV files (decoded by mediabunny, as in the render worker), mic B recorded 12 dB lower,
 * each hearing the other 18 dB down, with clicks that peak far above the speech. The mixed
 * output, read by the BS.1770 meter, must sit at the target, under the true-peak ceiling, with
 * both voices within 1 LU of each other; without mastering they stay over 5 LU apart.
 */
import { ALL_FORMATS, BufferSource, Input } from 'mediabunny';
import { describe, expect, test } from 'vitest';
import type { SpeechTurn } from '../../../src/analysis/audio/levelling.ts';
import { LoudnessMeter } from '../../../src/analysis/audio/loudness.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';
import type { SourceGain } from '../../../src/contract/types.ts';
import { audioOptions } from '../../../src/pipeline/stages/rendering.ts';
import { AudioMixer, OUTPUT_SAMPLE_RATE, SourceAudioReader, type MixLevels } from '../../../src/render/audio-mix.ts';

const RATE = OUTPUT_SAMPLE_RATE;
const SECONDS = 40;

/** A 16-bit mono WAV file of `x`. */
function wav(x: Float32Array): Uint8Array {
  const bytes = new Uint8Array(44 + x.length * 2);
  const v = new DataView(bytes.buffer);
  const text = (at: number, s: string) => [...s].forEach((ch, i) => v.setUint8(at + i, ch.charCodeAt(0)));
  text(0, 'RIFF');
  v.setUint32(4, 36 + x.length * 2, true);
  text(8, 'WAVEfmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, RATE, true);
  v.setUint32(28, RATE * 2, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  text(36, 'data');
  v.setUint32(40, x.length * 2, true);
  for (let i = 0; i < x.length; i++) v.setInt16(44 + 2 * i, Math.round(32767 * Math.max(-1, Math.min(1, x[i]!))), true);
  return bytes;
}

/**
 * Speech-like noise (syllables, pauses between words) at about `dbfs` RMS while voiced; with
 * `plosiveDb`, a 1 ms plosive that many dB over the RMS at the start of every third syllable
 * after the first second (peaky voices, as raw recordings of read speech are: peaks 20 dB over
 * their loudness; the compressors learn each voice's level on its first blocks).
 */
function voice(n: number, dbfs: number, seed: number, plosiveDb?: number): Float32Array {
  const random = seededRandom(seed);
  const out = new Float32Array(n);
  const amp = 10 ** (dbfs / 20) * 3.5;
  const plosive = plosiveDb === undefined ? 0 : 10 ** ((dbfs + plosiveDb) / 20);
  const syllable = RATE / 4.1;
  let lp = 0;
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    const envelope = Math.max(0, Math.sin(2 * Math.PI * 4.1 * t));
    lp += 0.3 * (random() * 2 - 1 - lp);
    const s = i % syllable;
    const burst =
      i > RATE && Math.floor(i / syllable) % 3 === 0 && s < RATE / 1000
        ? plosive * Math.sin((Math.PI * s * 1000) / RATE)
        : 0;
    out[i] = (t % 2 > 1.7 ? 0 : 1) * (amp * envelope * lp + burst);
  }
  return out;
}

const turns: SpeechTurn[] = Array.from({ length: SECONDS / 5 }, (_, k) => ({
  speaker: k % 2 === 0 ? 'A' : 'B',
  startMs: k * 5000,
  endMs: (k + 1) * 5000,
}));

function mics(clicks = true, plosiveDb?: number): { micA: Float32Array; micB: Float32Array } {
  const n = SECONDS * RATE;
  const a = voice(n, -24, 1, plosiveDb);
  const b = voice(n, -24, 2, plosiveDb);
  const micA = new Float32Array(n);
  const micB = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const ms = (i / RATE) * 1000;
    const who = turns.find((t) => t.startMs <= ms && ms < t.endMs)!.speaker;
    // A click on A's mic every 7 s: 2 ms at −6 dBFS, 18 dB above the speech's RMS.
    const clap = clicks && i % (7 * RATE) < RATE / 500 ? 0.5 * (i % 2 === 0 ? 1 : -1) : 0;
    const va = who === 'A' ? a[i]! : 0;
    const vb = who === 'B' ? b[i]! : 0;
    micA[i] = va + 0.125 * vb + clap;
    micB[i] = 10 ** (-12 / 20) * (vb + 0.125 * va + 0.125 * clap);
  }
  return { micA, micB };
}

async function render(
  master: boolean | 'turns',
  gains: Record<string, SourceGain> = {},
  clicks = true,
  targetLufs = -16,
  plosiveDb?: number,
): Promise<{ out: Float32Array; levels: MixLevels | null }> {
  const { micA, micB } = mics(clicks, plosiveDb);
  const readers: SourceAudioReader[] = [];
  for (const [id, x] of [
    ['micA', micA],
    ['micB', micB],
  ] as const) {
    const input = new Input({ source: new BufferSource(wav(x)), formats: ALL_FORMATS });
    const track = (await input.getPrimaryAudioTrack())!;
    readers.push(new SourceAudioReader(track, RATE, 1, { offsetMs: 0, driftPpm: 0 }, id));
  }
  const keptMs = SECONDS * 1000;
  const ranges = [{ outStartMs: 0, outEndMs: keptMs, refStartMs: 0, refEndMs: keptMs, fadeInMs: 0, fadeOutMs: 0 }];
  const mixer = new AudioMixer(
    readers,
    ranges,
    keptMs,
    master === 'turns'
      ? { targetLufs: -16, truePeakDbtp: -1, speech: {}, turns }
      : master
        ? {
            targetLufs,
            truePeakDbtp: -1,
            speech: { micA: turns.filter((t) => t.speaker === 'A'), micB: turns.filter((t) => t.speaker === 'B') },
          }
        : null,
    gains,
  );
  await mixer.prepare();
  const out = new Float32Array(mixer.totalSamples);
  while (!mixer.done) {
    const at = mixer.position;
    const [plane] = await mixer.next(4800);
    out.set(plane!, at);
  }
  await Promise.all(readers.map((r) => r.dispose()));
  return { out, levels: mixer.levels() };
}

function speechLufs(x: Float32Array, speaker: string): number {
  const meter = new LoudnessMeter(RATE, 1, { truePeak: false });
  for (const t of turns.filter((u) => u.speaker === speaker))
    meter.push([x.subarray((t.startMs / 1000) * RATE, (t.endMs / 1000) * RATE)]);
  return meter.integratedLufs;
}

describe('the mixer with mastering', () => {
  test('−16 LUFS, true peak under −1 dBTP, the voices within 1 LU; the report says what it did', async () => {
    const { out, levels } = await render(true);
    const meter = new LoudnessMeter(RATE, 1);
    meter.push([out]);
    expect(Math.abs(meter.integratedLufs + 16)).toBeLessThan(0.5);
    expect(20 * Math.log10(meter.truePeak)).toBeLessThanOrEqual(-1);
    expect(Math.abs(speechLufs(out, 'A') - speechLufs(out, 'B'))).toBeLessThan(1);
    const [a, b] = levels!.sources;
    expect(a!.sourceId).toBe('micA');
    // Mic B was recorded 12 dB lower; the levelling lifts it by that and by what its compressor
    // took more than A's (A's clicks lift the level A's compressor works from, so it takes less).
    expect(b!.speakers[0]!.speechLufsBefore! - a!.speakers[0]!.speechLufsBefore!).toBeCloseTo(-12, 0);
    expect(b!.speakers[0]!.gainDb - a!.speakers[0]!.gainDb).toBeGreaterThan(11);
    expect(b!.speakers[0]!.gainDb - a!.speakers[0]!.gainDb).toBeLessThan(18);
    // After levelling the two speeches are reported level, and the clicks made the limiter work.
    expect(Math.abs(a!.speakers[0]!.speechLufsAfter! - b!.speakers[0]!.speechLufsAfter!)).toBeLessThan(1);
    expect(levels!.limiterMaxReductionDb).toBeGreaterThan(3);
    expect(levels!.compressorMaxReductionDb).toBeGreaterThan(0);
  }, 60_000);

  test('given only the turns, it finds whose mic is whose from the audio and levels the same', async () => {
    const { out, levels } = await render('turns');
    expect(levels!.sources.map((s) => s.speakers.map((k) => k.speaker))).toEqual([['A'], ['B']]);
    expect(Math.abs(speechLufs(out, 'A') - speechLufs(out, 'B'))).toBeLessThan(1);
  }, 60_000);

  test("a person's gain: mic B nudged −6 dB sits 6 dB under A at −16 LUFS on peaky voices, and the mix still meets its target", async () => {
    // Plosives 20 dB over the speech: the compressors take each voice's peaks down before the
    // mix, so the limiter has little to do and the distance the levelling sets survives it.
    const plain = await render(true, {}, false, -16, 20);
    const { out, levels } = await render(true, { micB: -6 }, false, -16, 20);
    const meter = new LoudnessMeter(RATE, 1);
    meter.push([out]);
    const moved =
      speechLufs(out, 'A') - speechLufs(out, 'B') - (speechLufs(plain.out, 'A') - speechLufs(plain.out, 'B'));
    console.log(
      `nudge at −16 LUFS: ${meter.integratedLufs.toFixed(2)} LUFS, B moved ${moved.toFixed(2)} LU under A; limiter at most ${levels!.limiterMaxReductionDb} dB (un-nudged ${plain.levels!.limiterMaxReductionDb} dB), compressors at most ${levels!.compressorMaxReductionDb} dB`,
    );
    // Within the ±1 LU every podcast host allows: the limiter's take is estimated, not measured.
    expect(Math.abs(meter.integratedLufs + 16)).toBeLessThan(1);
    expect(20 * Math.log10(meter.truePeak)).toBeLessThanOrEqual(-1);
    // B is heard on A's mic too (18 dB down): the levelling makes up for it, so the voices move 6 dB.
    expect(moved).toBeGreaterThan(5);
    expect(moved).toBeLessThan(7);
    expect(levels!.sources.map((s) => s.sourceGainDb)).toEqual([0, -6]);
    // What is left for the limiter is a few dB on the loudest plosives (over 20 without the compressors).
    expect(levels!.compressorMaxReductionDb).toBeGreaterThan(10);
    expect(levels!.limiterMaxReductionDb).toBeLessThan(10);
  }, 60_000);

  test('a muted source leaves the mix: B is heard only as bleed on A', async () => {
    const { out, levels } = await render(true, { micB: 'mute' });
    // B reaches A's mic 18 dB down; A is levelled to the target alone. A's compressor takes A's
    // voice down (this noise-like voice by about 8 dB) and not the bleed under its threshold, so
    // the bleed stands that much nearer (over 15 dB under A without the compressors).
    expect(speechLufs(out, 'A') - speechLufs(out, 'B')).toBeGreaterThan(8);
    expect(levels!.sources[1]!.sourceGainDb).toBeNull();
  }, 60_000);

  test('without mastering the mix is the plain average: the voices stay over 5 LU apart', async () => {
    const { out, levels } = await render(false);
    expect(levels).toBeNull();
    // Less than 12: B is heard on A's louder mic too, 6 dB under B's own.
    expect(speechLufs(out, 'A') - speechLufs(out, 'B')).toBeGreaterThan(5);
  }, 60_000);
});

describe("the rendering stage's audio options", () => {
  const jobTurns = [
    { speaker: 'S1', startMs: 0, endMs: 1000 },
    { speaker: 'S2', startMs: 1000, endMs: 2000 },
  ];

  test('every turn goes to the render (it finds whose mic is whose); defaults −16 LUFS and −1 dBTP on jobs from before', () => {
    expect(audioOptions({ turns: jobTurns })).toEqual({
      audio: { loudnessLufs: -16, truePeakDbtp: -1, turns: jobTurns },
    });
    expect(audioOptions({ turns: jobTurns, audio: { loudness: -14, truePeak: -2 } }).audio).toMatchObject({
      loudnessLufs: -14,
      truePeakDbtp: -2,
    });
  });

  test("loudness 'off': the render gets no mastering", () => {
    expect(audioOptions({ turns: jobTurns, audio: { loudness: 'off', truePeak: -1 } })).toEqual({});
  });

  test("a person's gains go to the render, with or without mastering", () => {
    const audioGains = { micB: -6, cam: 'mute' as const };
    expect(audioOptions({ turns: jobTurns, audioGains }).audioGains).toEqual(audioGains);
    expect(audioOptions({ turns: jobTurns, audioGains, audio: { loudness: 'off', truePeak: -1 } })).toEqual({
      audioGains,
    });
    expect(audioOptions({ turns: jobTurns, audioGains: {} })).not.toHaveProperty('audioGains');
  });
});
