import { describe, expect, test } from 'vitest';
import {
  FrameLevelMeter,
  frameLevelsDb,
  noiseFloorDb,
  refineSpeechEdges,
} from '../../../src/analysis/diarize/edges.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';

/** 3 s at 16 kHz: faint noise, a 1 kHz tone (the "word", 2 ms fades) from 1.00 s to 2.00 s. */
function word(): Float32Array {
  const rand = seededRandom(5);
  const x = new Float32Array(48000);
  for (let i = 0; i < x.length; i++) x[i] = (rand() - 0.5) * 2e-3;
  const fade = (i: number): number => Math.min(1, (i - 16000) / 32, (32000 - i) / 32);
  for (let i = 16000; i < 32000; i++) x[i] = x[i]! + 0.3 * fade(i) * Math.sin((2 * Math.PI * 1000 * i) / 16000);
  return x;
}

describe('refineSpeechEdges', () => {
  const levels = frameLevelsDb(word(), 16000);
  const floor = noiseFloorDb(levels);

  test('the noise floor is the quiet part, far below the word', () => {
    expect(floor).toBeLessThan(-55);
    expect(levels[150]! - floor).toBeGreaterThan(40);
  });

  test('moves a late start and an early end out to the word, and a long tail back in', () => {
    expect(refineSpeechEdges([{ startMs: 1090, endMs: 1930 }], levels, floor)).toEqual([
      { startMs: 1000, endMs: 2000 },
    ]);
    expect(refineSpeechEdges([{ startMs: 960, endMs: 2120 }], levels, floor)).toEqual([{ startMs: 1000, endMs: 2000 }]);
  });

  test('by default reaches an onset the VAD missed by 400 ms (Silero lags quiet onsets)', () => {
    expect(refineSpeechEdges([{ startMs: 1400, endMs: 1600 }], levels, floor)).toEqual([
      { startMs: 1000, endMs: 2000 },
    ]);
  });

  test('moves an edge by at most maxShiftMs', () => {
    expect(refineSpeechEdges([{ startMs: 1300, endMs: 1700 }], levels, floor, { maxShiftMs: 100 })).toEqual([
      { startMs: 1200, endMs: 1800 },
    ]);
  });

  test('a segment on noise alone disappears; frames the mask forbids are not speech', () => {
    expect(refineSpeechEdges([{ startMs: 200, endMs: 500 }], levels, floor)).toEqual([]);
    const allowed = new Uint8Array(levels.length).fill(1);
    allowed.fill(0, 100, 140); // the first 400 ms of the word belong to someone else
    expect(refineSpeechEdges([{ startMs: 1500, endMs: 1900 }], levels, floor, { maxShiftMs: 1000 }, allowed)).toEqual([
      { startMs: 1400, endMs: 2000 },
    ]);
  });
});

describe('refineSpeechEdges near local noise', () => {
  /** The word of word(), then 600 ms of room tone 30 dB under it that comes with the voice. */
  function wordThenRoomTone(): Float32Array {
    const x = word();
    const rand = seededRandom(9);
    for (let i = 32000; i < 41600; i++) x[i] = x[i]! + (rand() - 0.5) * 0.03;
    return x;
  }
  const levels = frameLevelsDb(wordThenRoomTone(), 16000);
  const floor = noiseFloorDb(levels);

  test("an end is held to the noise after it, not only to the recording's floor", () => {
    // The tone is > 20 dB over the recording's floor: held to that floor alone, the end runs
    // into it by the whole maxShiftMs.
    expect(levels[230]! - floor).toBeGreaterThan(20);
    expect(
      refineSpeechEdges([{ startMs: 1000, endMs: 2060 }], levels, floor, { localFloorMs: 0, maxShiftMs: 160 }),
    ).toEqual([{ startMs: 1000, endMs: 2220 }]);
    expect(refineSpeechEdges([{ startMs: 1000, endMs: 2060 }], levels, floor)).toEqual([
      { startMs: 1000, endMs: 2000 },
    ]);
  });

  test("the start, with quiet before it, still reaches the word's onset", () => {
    expect(refineSpeechEdges([{ startMs: 1090, endMs: 2060 }], levels, floor)).toEqual([
      { startMs: 1000, endMs: 2000 },
    ]);
  });
});

describe('frameLevelsDb', () => {
  test('measures above 80 Hz: a 30 Hz thump as loud as a voice reads 20 dB under it', () => {
    const tone = (hz: number): Float32Array =>
      Float32Array.from({ length: 16000 }, (_, i) => 0.1 * Math.sin((2 * Math.PI * hz * i) / 16000));
    const mean = (l: Float64Array): number => l.slice(20).reduce((a, b) => a + b, 0) / (l.length - 20);
    const voice = mean(frameLevelsDb(tone(200), 16000));
    expect(voice).toBeCloseTo(-23, 0); // 0.1² / 2 → −23 dB
    expect(voice - mean(frameLevelsDb(tone(30), 16000))).toBeGreaterThan(16);
    expect(mean(frameLevelsDb(tone(30), 16000, 10, undefined, 0))).toBeCloseTo(-23, 0);
  });
});

describe('FrameLevelMeter', () => {
  test('gives frameLevelsDb to the bit from blocks of any size, a short last frame and frames past the end included', () => {
    const rand = seededRandom(5);
    const signal = Float32Array.from({ length: 16000 * 3 + 77 }, () => 0.2 * (2 * rand() - 1));
    for (const [frameMs, frames] of [
      [10, undefined],
      [32, 94],
      [32, 100],
      [32, 50],
    ] as const) {
      const meter = new FrameLevelMeter(16000, frameMs, frames);
      for (let start = 0; start < signal.length;) {
        const size = 1 + Math.floor(rand() * 3000);
        meter.push(signal.subarray(start, start + size));
        start += size;
      }
      expect(meter.levels()).toEqual(frameLevelsDb(signal, 16000, frameMs, frames, 0));
    }
    expect(new FrameLevelMeter(16000, 10).levels()).toHaveLength(0);
  });
});

describe('refineSpeechEdges bridging', () => {
  /** Two 1 kHz "words" (2 ms fades): 1.00–1.50 s and 1.70–2.20 s, a 200 ms pause between. */
  function twoWords(): Float32Array {
    const rand = seededRandom(3);
    const x = Float32Array.from({ length: 48000 }, () => (rand() - 0.5) * 2e-3);
    for (const [a, b] of [
      [16000, 24000],
      [27200, 35200],
    ] as const) {
      for (let i = a; i < b; i++)
        x[i] = x[i]! + 0.3 * Math.min(1, (i - a) / 32, (b - i) / 32) * Math.sin((2 * Math.PI * 1000 * i) / 16000);
    }
    return x;
  }
  const levels = frameLevelsDb(twoWords(), 16000);
  const floor = noiseFloorDb(levels);
  const words = [
    { startMs: 1000, endMs: 1500 },
    { startMs: 1700, endMs: 2200 },
  ];

  test("one speaker's pause shorter than bridgeMs is speech; a longer one is not", () => {
    expect(refineSpeechEdges(words, levels, floor)).toEqual(words);
    expect(refineSpeechEdges(words, levels, floor, { bridgeMs: 250 })).toEqual([{ startMs: 1000, endMs: 2200 }]);
    expect(refineSpeechEdges(words, levels, floor, { bridgeMs: 150 })).toEqual(words);
  });
});

describe('refineSpeechEdges across short pauses', () => {
  /**
   * The word of word() (1.00–2.00 s, −13.5 dB), with `extra` tone bursts added: [start s,
   * end s, amplitude, Hz], 2 ms fades. A 200 Hz murmur 25 dB under the word stands for a soft syllable Silero
   * leaves out; a burst as loud as the word, for laughter or a knock.
   */
  function wordWith(extra: ReadonlyArray<readonly [number, number, number, number]>): Float64Array {
    const x = word();
    for (const [a, b, amp, hz] of extra) {
      const [from, to] = [Math.round(a * 16000), Math.round(b * 16000)];
      for (let i = from; i < to; i++)
        x[i] = x[i]! + amp * Math.min(1, (i - from) / 32, (to - i) / 32) * Math.sin((2 * Math.PI * hz * i) / 16000);
    }
    return frameLevelsDb(x, 16000);
  }
  const murmur = 0.3 * 10 ** (-25 / 20);
  const vadSaw = [{ startMs: 1090, endMs: 1930 }];

  test('a soft syllable 150 ms before the word is reached; 0 stops at the first quiet frame', () => {
    const levels = wordWith([[0.7, 0.85, murmur, 200]]);
    const floor = noiseFloorDb(levels);
    expect(refineSpeechEdges(vadSaw, levels, floor)).toEqual([{ startMs: 700, endMs: 2000 }]);
    expect(refineSpeechEdges(vadSaw, levels, floor, { edgePauseMs: 0 })).toEqual([{ startMs: 1000, endMs: 2000 }]);
  });

  test('an edge the VAD put in the pause next to a soft syllable reaches it with reachPastQuietEdge', () => {
    const levels = wordWith([
      [0.7, 0.85, murmur, 200],
      [2.15, 2.3, murmur, 200],
    ]);
    const floor = noiseFloorDb(levels);
    // Silero's segment starts in the pause after the first murmur and ends in the pause before
    // the second: by default each edge only moves inward, onto the word.
    const inPauses = [{ startMs: 900, endMs: 2080 }];
    expect(refineSpeechEdges(inPauses, levels, floor)).toEqual([{ startMs: 1000, endMs: 2000 }]);
    expect(refineSpeechEdges(inPauses, levels, floor, { reachPastQuietEdge: true })).toEqual([
      { startMs: 700, endMs: 2300 },
    ]);
    // An edge on speech already reaches outward either way.
    expect(refineSpeechEdges(vadSaw, levels, floor, { reachPastQuietEdge: true })).toEqual(
      refineSpeechEdges(vadSaw, levels, floor),
    );
  });

  test('a pause of 250 ms or more is where the speech ends', () => {
    const levels = wordWith([[2.3, 2.45, murmur, 200]]);
    expect(refineSpeechEdges(vadSaw, levels, noiseFloorDb(levels))).toEqual([{ startMs: 1000, endMs: 2000 }]);
    const closer = wordWith([[2.2, 2.35, murmur, 200]]);
    expect(refineSpeechEdges(vadSaw, closer, noiseFloorDb(closer))).toEqual([{ startMs: 1000, endMs: 2350 }]);
  });

  test('a burst as loud as the word after a pause is not taken: the VAD would have heard speech that loud', () => {
    const levels = wordWith([[2.15, 2.3, 0.3, 1000]]);
    const floor = noiseFloorDb(levels);
    expect(refineSpeechEdges(vadSaw, levels, floor)).toEqual([{ startMs: 1000, endMs: 2000 }]);
    expect(refineSpeechEdges(vadSaw, levels, floor, { rejectedLoudDb: 0 })).toEqual([{ startMs: 1000, endMs: 2300 }]);
  });
});
