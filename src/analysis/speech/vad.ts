/**
 * Voice-activity post-processing: from per-frame speech probabilities (Silero VAD, one per
 * 32 ms) to speech segments, with hysteresis, minimum durations and padding, the way
 * silero-vad's `get_speech_timestamps` does it.
 *
 * @module
 */

/** Duration of one Silero frame at 16 kHz: 512 samples. */
export const VAD_FRAME_MS = 32;

/** A stretch of speech in ms. */
export interface SpeechSegment {
  startMs: number;
  endMs: number;
}

/** Options of {@link speechSegments}. */
export interface SpeechSegmentOptions {
  /** ms per probability. Default {@link VAD_FRAME_MS}. */
  frameMs?: number;
  /** Speech starts above this. Default 0.5. */
  threshold?: number;
  /** Speech ends below this (hysteresis). Default threshold − 0.15. */
  negThreshold?: number;
  /** Shorter segments are dropped. Default 250. */
  minSpeechMs?: number;
  /** Shorter pauses do not split a segment. Default 300. */
  minSilenceMs?: number;
  /** Added on both sides of every segment (clamped to the signal). Default 30. */
  padMs?: number;
}

/**
 * Speech segments from per-frame speech probabilities.
 *
 * @example
 * speechSegments(probs, { minSilenceMs: 500 }); // [{ startMs: 320, endMs: 2240 }, …]
 */
export function speechSegments(probs: ArrayLike<number>, options: SpeechSegmentOptions = {}): SpeechSegment[] {
  const frameMs = options.frameMs ?? VAD_FRAME_MS;
  const threshold = options.threshold ?? 0.5;
  const negThreshold = options.negThreshold ?? Math.max(0.01, threshold - 0.15);
  const minSpeech = options.minSpeechMs ?? 250;
  const minSilence = options.minSilenceMs ?? 300;
  const pad = options.padMs ?? 30;
  const totalMs = probs.length * frameMs;
  const raw: SpeechSegment[] = [];
  let inSpeech = false;
  let start = 0;
  let silenceStart = -1;
  for (let i = 0; i < probs.length; i++) {
    const p = probs[i]!;
    if (!inSpeech) {
      if (p >= threshold) {
        inSpeech = true;
        start = i;
        silenceStart = -1;
      }
      continue;
    }
    if (p >= threshold) silenceStart = -1;
    else if (p < negThreshold) {
      if (silenceStart < 0) silenceStart = i;
      if ((i + 1 - silenceStart) * frameMs >= minSilence) {
        raw.push({ startMs: start * frameMs, endMs: silenceStart * frameMs });
        inSpeech = false;
      }
    }
  }
  if (inSpeech)
    raw.push({ startMs: start * frameMs, endMs: (silenceStart >= 0 ? silenceStart : probs.length) * frameMs });
  const kept = raw.filter((s) => s.endMs - s.startMs >= minSpeech);
  const out: SpeechSegment[] = [];
  for (const s of kept) {
    const padded = { startMs: Math.max(0, s.startMs - pad), endMs: Math.min(totalMs, s.endMs + pad) };
    const last = out[out.length - 1];
    if (last && padded.startMs <= last.endMs) last.endMs = Math.max(last.endMs, padded.endMs);
    else out.push(padded);
  }
  return out;
}

/** Total duration of segments in ms. */
export function speechDurationMs(segments: readonly SpeechSegment[]): number {
  return segments.reduce((s, g) => s + g.endMs - g.startMs, 0);
}

/**
 * Resamples per-frame probabilities to another frame rate (e.g. 32 ms VAD frames onto the
 * 10 ms feature frames), nearest frame by time.
 */
export function resampleFrameValues(
  values: ArrayLike<number>,
  fromMs: number,
  toMs: number,
  count: number,
): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const k = Math.min(values.length - 1, Math.floor(((i + 0.5) * toMs) / fromMs));
    out[i] = k >= 0 ? values[k]! : 0;
  }
  return out;
}
