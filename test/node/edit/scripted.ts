/**
 * A scripted three-person conversation (close-ups and a wide) with synthetic audio, and the
 * quiet ranges the energy analysis finds in it.
 */
import type { JobSource, TimeRange, Track, Turn } from '../../../src/contract/types.ts';
import { envelopeDb, findQuietRanges } from '../../../src/analysis/speech/energy.ts';
import { prng } from './conversation.ts';

export const S0 = 'SPEAKER_00';
export const S1 = 'SPEAKER_01';
export const S2 = 'SPEAKER_02';
export const END_MS = 165_000;
const turn = (speaker: string, a: number, b: number): Turn => ({ speaker, startMs: a * 1000, endMs: b * 1000 });

export const turns: Turn[] = [
  turn(S0, 1, 12),
  // pause 12–14.5 (quiet)
  turn(S1, 14.5, 30),
  turn(S0, 20, 20.6), // backchannel "mm-hmm"
  // pause 30–34 with laughter 31–32.2
  turn(S2, 34, 46),
  turn(S0, 46, 55), // crosstalk S0 + S1
  turn(S1, 46.5, 54),
  // pause 55–56 (short: untouched)
  turn(S2, 56, 57.2), // quick exchange
  turn(S0, 57.2, 58.4),
  turn(S2, 58.4, 59.5),
  turn(S0, 59.5, 60.8),
  // pause 60.8–63
  turn(S2, 63, 110), // monologue
  turn(S1, 80, 80.5), // backchannel
  // pause 110–111.8
  turn(S1, 111.8, 125),
  turn(S0, 125.3, 140),
  // pause 140–146
  turn(S2, 146, 160),
];
export const laughs: TimeRange[] = [{ startMs: 31_000, endMs: 32_200 }];
export const OVERLAP: TimeRange = { startMs: 46_500, endMs: 54_000 };

export const sources: JobSource[] = [
  { id: 'cam-0', label: 'Anna', kind: 'video', ext: 'mp4', durationMs: END_MS },
  { id: 'cam-1', label: 'Ben', kind: 'video', ext: 'mp4', durationMs: END_MS },
  { id: 'cam-2', label: 'Cleo', kind: 'video', ext: 'mp4', durationMs: END_MS },
  { id: 'cam-wide', label: 'Wide', kind: 'video', ext: 'mp4', durationMs: END_MS },
  { id: 'mic', label: 'Mixer', kind: 'audio', ext: 'wav', durationMs: END_MS },
];
export const tracks: Track[] = [
  { sourceId: 'cam-0', speakers: [S0] },
  { sourceId: 'cam-1', speakers: [S1] },
  { sourceId: 'cam-2', speakers: [S2] },
  { sourceId: 'cam-wide', speakers: [S0, S1, S2] },
];
export const closeupOf = new Map([
  [S0, 'cam-0'],
  [S1, 'cam-1'],
  [S2, 'cam-2'],
]);

/** 8 kHz mono: room tone at −60 dBFS, syllable-modulated noise for speech, louder bursts for laughter. */
export function synthAudio(): Float32Array {
  const rate = 8000;
  const rand = prng(7);
  const out = new Float32Array((END_MS / 1000) * rate);
  const noise = (): number => rand() * 2 - 1;
  for (let i = 0; i < out.length; i++) {
    const ms = (i / rate) * 1000;
    let v = 0.001 * noise() * Math.SQRT2; // −60 dBFS RMS
    if (turns.some((t) => t.startMs <= ms && ms < t.endMs))
      v += 0.1 * (0.5 + 0.5 * Math.abs(Math.sin((2 * Math.PI * 4 * ms) / 1000))) * noise();
    if (laughs.some((l) => l.startMs <= ms && ms < l.endMs)) v += 0.2 * noise();
    out[i] = v;
  }
  return out;
}

export const quietRanges = findQuietRanges(envelopeDb(synthAudio(), 8000));
