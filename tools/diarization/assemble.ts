/**
 * Deterministic conversations assembled from the LibriSpeech voices in
 * /work/shared/data/librispeech: 2–4 speakers taking turns, pauses, a few overlaps, with
 * the truth turns (refined to where the reader actually speaks) and one clean track per
 * speaker for the per-mic mode.
 *
 * @module
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../../src/analysis/signal/random.ts';
import { fft } from '../../src/analysis/signal/signal-fft.ts';
import type { Turn } from '../../src/contract/types.ts';
import { energySpeechRanges, noiseFloorDb } from '../fixtures/speech.ts';
import { decodeWithFfmpeg } from './audio.ts';
import { sharedPath } from '../shared-data.ts';

export const LIBRISPEECH_DIR = sharedPath('data', 'librispeech');

/** An assembled conversation at 16 kHz. */
export interface Conversation {
  name: string;
  /** The single-mix signal: every track summed. */
  mix: Float32Array;
  /** One clean track per speaker (same length as the mix). */
  tracks: Float32Array[];
  /** Reference turns in ms, speaker = LibriSpeech reader id. */
  truth: Turn[];
  speakerIds: string[];
}

/** Options of {@link assembleConversation}. */
export interface AssembleOptions {
  speakers: number;
  /** Target length in seconds. */
  seconds: number;
  seed: number;
  /** Probability that a turn starts before the previous one ends. Default 0.12. */
  overlapRate?: number;
}

const cache = new Map<string, Float32Array>();
function utterance(path: string): Float32Array {
  let s = cache.get(path);
  if (!s) {
    s = decodeWithFfmpeg(path).samples;
    cache.set(path, s);
  }
  return s;
}

const floors = new WeakMap<Float32Array, number>();
function floorOf(recording: Float32Array): number {
  let f = floors.get(recording);
  if (f === undefined) {
    f = noiseFloorDb(recording);
    floors.set(recording, f);
  }
  return f;
}

/** Reader ids present, sorted, with their files. */
export function librispeechReaders(dir = LIBRISPEECH_DIR): Map<string, string[]> {
  const readers = new Map<string, string[]>();
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.flac'))
    .sort()) {
    const id = f.split('-')[0]!;
    readers.set(id, [...(readers.get(id) ?? []), join(dir, f)]);
  }
  return readers;
}

/** Builds one conversation; the same options always give the same samples and truth. */
export function assembleConversation(options: AssembleOptions): Conversation {
  const rand = seededRandom(options.seed);
  const readers = [...librispeechReaders().entries()];
  // Pick the speakers by seeded shuffle.
  const order = readers
    .map((_, i) => i)
    .sort((a, b) => seededRandom(options.seed * 7919 + a)() - seededRandom(options.seed * 7919 + b)());
  const chosen = order.slice(0, options.speakers).map((i) => readers[i]!);
  const total = Math.round(options.seconds * 16000);
  const tracks = chosen.map(() => new Float32Array(total + 16000 * 30));
  const truth: Turn[] = [];
  const fileCursor = chosen.map(() => 0);
  const sampleCursor = chosen.map(() => 0);
  let t = Math.round(0.5 * 16000);
  let prev = -1;
  let prevEnd = t;
  while (t < total) {
    // Next speaker: anyone but the previous one, most often the "other" in a pair.
    let k = Math.floor(rand() * options.speakers);
    if (k === prev) k = (k + 1) % options.speakers;
    const [id, files] = chosen[k]!;
    let src = utterance(files[fileCursor[k]! % files.length]!);
    if (sampleCursor[k]! >= src.length - 16000) {
      fileCursor[k]!++;
      sampleCursor[k] = 0;
      src = utterance(files[fileCursor[k]! % files.length]!);
    }
    const want = Math.round((1.5 + rand() * 6.5) * 16000);
    const from = sampleCursor[k]!;
    const to = Math.min(src.length, from + want);
    sampleCursor[k] = to;
    const speech = energySpeechRanges(src, from, to, floorOf(src));
    if (speech.length === 0) continue;
    const first = speech[0]![0];
    const last = speech[speech.length - 1]![1];
    // Place the audible part after a pause, or overlapping the previous turn's end.
    const overlap = prev >= 0 && rand() < (options.overlapRate ?? 0.12);
    const start = overlap
      ? Math.max(0, prevEnd - Math.round((0.4 + rand() * 0.8) * 16000))
      : prevEnd + Math.round((0.15 + rand() * 1.2) * 16000);
    if (start + (last - first) > tracks[k]!.length) break;
    tracks[k]!.set(src.subarray(first, last), start);
    for (const [a, b] of speech) {
      truth.push({
        speaker: id,
        startMs: ((start + a - first) / 16000) * 1000,
        endMs: ((start + b - first) / 16000) * 1000,
      });
    }
    prevEnd = Math.max(prevEnd, start + (last - first));
    t = prevEnd;
    prev = k;
  }
  const length = Math.min(tracks[0]!.length, prevEnd + 8000);
  const cut = tracks.map((tr) => tr.slice(0, length));
  const mix = new Float32Array(length);
  for (const tr of cut) for (let i = 0; i < length; i++) mix[i] = mix[i]! + tr[i]!;
  truth.sort((a, b) => a.startMs - b.startMs);
  return {
    name: `libri-${options.speakers}spk-${options.seconds}s-seed${options.seed}`,
    mix,
    tracks: cut,
    truth,
    speakerIds: chosen.map(([id]) => id),
  };
}

/**
 * Per-mic channels from clean tracks: each mic hears its own speaker plus every other at
 * `bleedGain` (0.15 ≈ −16 dB) and faint noise, as lapel mics around one table do.
 */
export function withBleed(tracks: readonly Float32Array[], bleedGain = 0.15, seed = 1): Float32Array[] {
  const rand = seededRandom(seed);
  return tracks.map((own, k) => {
    const out = new Float32Array(own.length);
    for (let i = 0; i < own.length; i++) {
      let v = own[i]!;
      for (let j = 0; j < tracks.length; j++) if (j !== k) v += bleedGain * tracks[j]![i]!;
      out[i] = v + (rand() - 0.5) * 2e-3;
    }
    return out;
  });
}

/** Options of {@link roomImpulse} and {@link withRoomBleed}. */
export interface RoomOptions {
  /** Reverberation time (60 dB decay) of the tail, s. Default 0.4: a furnished living room. */
  rt60Sec?: number;
  /** Energy of the direct path over the tail's, dB. Default 0: a voice a metre or two from the mic. */
  drrDb?: number;
}

/**
 * How a voice reaches a mic across the room: a direct path 2–6 ms late, then a tail of
 * exponentially decaying noise (from 1 ms after it, as long as the RT60 and at least
 * 0.4 s) whose energy is `drrDb` under the direct path's. Unit energy in all.
 */
export function roomImpulse(rand: () => number, options: RoomOptions = {}): Float64Array {
  const rt60 = options.rt60Sec ?? 0.4;
  const tailEnergy = 10 ** (-(options.drrDb ?? 0) / 10);
  const h = new Float64Array(Math.round(Math.max(0.4, rt60) * 16000));
  const delay = Math.round((2 + 4 * rand()) * 16);
  let e = 0;
  for (let i = delay + 16; i < h.length; i++) {
    h[i] = Math.exp((-6.9 * (i - delay)) / (rt60 * 16000)) * (2 * rand() - 1);
    e += h[i]! * h[i]!;
  }
  const scale = Math.sqrt(tailEnergy / e);
  for (let i = delay + 16; i < h.length; i++) h[i]! *= scale;
  h[delay] = 1;
  const norm = 1 / Math.sqrt(1 + tailEnergy);
  return h.map((v) => v * norm);
}

/** `x` convolved with `h` (overlap-add, FFT blocks), cut to `x`'s length. */
function convolve(x: Float32Array, h: Float64Array): Float32Array {
  const block = 8192;
  let size = 1;
  while (size < block + h.length) size *= 2;
  const hr = new Float64Array(size);
  const hi = new Float64Array(size);
  hr.set(h);
  fft(hr, hi);
  const y = new Float32Array(x.length);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  for (let from = 0; from < x.length; from += block) {
    re.fill(0);
    im.fill(0);
    re.set(x.subarray(from, Math.min(x.length, from + block)));
    fft(re, im);
    for (let k = 0; k < size; k++) {
      const r = re[k]! * hr[k]! - im[k]! * hi[k]!;
      im[k] = re[k]! * hi[k]! + im[k]! * hr[k]!;
      re[k] = r;
    }
    fft(re, im, true);
    for (let i = 0; i < size && from + i < y.length; i++) y[from + i]! += re[i]! / size;
  }
  return y;
}

/**
 * Per-mic channels as a room makes them: each mic hears its own speaker dry and every other
 * at `bleedGain` through its own {@link roomImpulse} (a delay and a reverberant tail), plus
 * the same faint noise as {@link withBleed}. The bleed is no longer a copy of the neighbour's
 * signal, which a level rule does not need but a test of coherence between mics would.
 */
export function withRoomBleed(
  tracks: readonly Float32Array[],
  bleedGain = 0.15,
  seed = 1,
  options: RoomOptions = {},
): Float32Array[] {
  const rand = seededRandom(seed);
  return tracks.map((own, k) => {
    const out = Float32Array.from(own);
    for (let j = 0; j < tracks.length; j++) {
      if (j === k) continue;
      const heard = convolve(tracks[j]!, roomImpulse(rand, options));
      for (let i = 0; i < out.length; i++) out[i]! += bleedGain * heard[i]!;
    }
    for (let i = 0; i < out.length; i++) out[i]! += (rand() - 0.5) * 2e-3;
    return out;
  });
}
