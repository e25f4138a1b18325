/**
 * Synthetic audio for the sync tests: a "room" of speech-like sound (amplitude-modulated noise
 * in syllables and pauses) recorded by several simulated microphones, each with its own start
 * time, clock drift, gain, colouring and noise. Seeded, so every run is the same.
 */
import { resample } from '../../../src/analysis/signal/signal-resample.ts';
import { seededRandom } from '../../../src/analysis/signal/random.ts';
import { alignSources, type SourceAlignment } from '../../../src/analysis/sync/sync.ts';

/** The project's seeded generator (mulberry32), under the name these tests use. */
export const rng = seededRandom;

function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

/**
 * Speech-like sound: syllables of 80–300 ms of low-passed noise with a raised-cosine envelope,
 * in phrases separated by pauses of 0.2–1.5 s. `activity` < 1 leaves long silences (sparse).
 */
export function speechLike(seconds: number, rate: number, seed: number, activity = 1): Float32Array {
  const r = rng(seed);
  const n = Math.round(seconds * rate);
  const out = new Float32Array(n);
  let i = 0;
  let lp = 0;
  while (i < n) {
    if (r() > activity) {
      i += Math.round((2 + 8 * r()) * rate);
      continue;
    }
    const syllables = 2 + Math.floor(r() * 8);
    for (let s = 0; s < syllables && i < n; s++) {
      const len = Math.round((0.08 + 0.22 * r()) * rate);
      const amp = 0.05 + 0.25 * r();
      const alpha = 0.2 + 0.6 * r(); // a different "vowel" colour per syllable
      for (let k = 0; k < len && i + k < n; k++) {
        lp = lp + alpha * (gauss(r) - lp);
        out[i + k] = amp * lp * 0.5 * (1 - Math.cos((2 * Math.PI * k) / len));
      }
      i += len + Math.round(0.02 * r() * rate);
    }
    i += Math.round((0.2 + 1.3 * r()) * rate);
  }
  return out;
}

/** How one simulated microphone records the room. */
export interface MicSpec {
  /** Room time (s) at which this recording starts. */
  startSec: number;
  durationSec: number;
  driftPpm: number;
  gain: number;
  /** Additive noise RMS. */
  noise: number;
  seed: number;
}

/**
 * Records `room` (at `rate`) as a microphone would: starting at `startSec`, its clock running
 * `driftPpm` fast (resampled with the library's resampler), gain, one-pole colouring, noise.
 */
export function record(room: Float32Array, rate: number, mic: MicSpec): Float32Array {
  const start = Math.round(mic.startSec * rate);
  const need = Math.ceil(mic.durationSec * rate * 1.001) + 64;
  const piece = room.subarray(Math.max(0, start), Math.min(room.length, start + need));
  const drifted =
    mic.driftPpm === 0 ? piece.slice() : resample(piece, rate, rate * (1 + mic.driftPpm * 1e-6), { zeroCrossings: 16 });
  const out = new Float32Array(Math.round(mic.durationSec * rate));
  const r = rng(mic.seed);
  let prev = 0;
  for (let i = 0; i < out.length; i++) {
    const v = i < drifted.length ? drifted[i]! : 0;
    // A slightly different frequency response per microphone.
    const coloured = v + 0.4 * prev;
    prev = v;
    out[i] = mic.gain * coloured + mic.noise * gauss(r);
  }
  return out;
}

/** Offset (ms) of `mic` against `ref`, as {@link record} cut them (whole samples at `rate`). */
export function recordedOffsetMs(mic: MicSpec, ref: MicSpec, rate: number): number {
  return ((Math.round(mic.startSec * rate) - Math.round(ref.startSec * rate)) / rate) * 1000;
}

/**
 * Records `room` (at `rate`) with a reference microphone `ref` and a camera `cam`, and aligns
 * the two with `alignSources` (ids `ref` and `cam`, in that order; `origin: 'reference'`).
 * Throws what `alignSources` throws.
 */
export function alignPair(room: Float32Array, rate: number, ref: MicSpec, cam: MicSpec): SourceAlignment[] {
  return alignSources(
    [
      { id: 'ref', samples: record(room, rate, ref), sampleRate: rate },
      { id: 'cam', samples: record(room, rate, cam), sampleRate: rate },
    ],
    { origin: 'reference' },
  );
}

/**
 * The two microphones of one random 18 s pair (the "random pairs" sync test): a reference
 * starting at 5–10 s in the room with noise 0.003, and a camera starting at 0–10 s, drifting
 * up to ±100 ppm, gain 0.2–3.2, noise up to 0.01. Draws from `r` in that order.
 */
export function randomPairMics(r: () => number, refSeed: number, camSeed: number): { ref: MicSpec; cam: MicSpec } {
  const ref: MicSpec = { startSec: 5 + 5 * r(), durationSec: 18, driftPpm: 0, gain: 1, noise: 0.003, seed: refSeed };
  const cam: MicSpec = {
    startSec: 10 * r(),
    durationSec: 18,
    driftPpm: (r() * 2 - 1) * 100,
    gain: 0.2 + 3 * r(),
    noise: 0.01 * r(),
    seed: camSeed,
  };
  return { ref, cam };
}
