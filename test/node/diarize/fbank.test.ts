import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { kaldiFbank } from '../../../src/analysis/speech/fbank.ts';
import { readWavPcm16 } from '../../../tools/diarization/audio.ts';
import { sharedPath } from '../../../tools/shared-data.ts';

const DIR = sharedPath('data', 'kaldi-fbank');

/** Parses Kaldi's text archive (one utterance) into rows of numbers. */
function readArkText(path: string): number[][] {
  const text = readFileSync(path, 'utf8');
  const body = text.slice(text.indexOf('[') + 1, text.lastIndexOf(']'));
  return body
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => line.split(/\s+/).map(Number));
}

describe('kaldiFbank', () => {
  test('matches compute-fbank-feats output (16000_001.fbank.conf) frame for frame', () => {
    const wav = readWavPcm16(`${DIR}/librispeech_2_trimmed.wav`);
    const reference = readArkText(`${DIR}/16000_001.fbank.ark.txt`);
    // The conf: 25/10 ms, dither 0, low 20 Hz, high -400 Hz, 23 bins, power, snip edges.
    const fb = kaldiFbank(wav.samples, { sampleFrequency: 16000, numMelBins: 23, lowFreq: 20, highFreq: -400 });
    expect(fb.frames).toBe(reference.length);
    expect(fb.dim).toBe(23);
    let maxErr = 0;
    for (let t = 0; t < fb.frames; t++) {
      for (let b = 0; b < fb.dim; b++) {
        maxErr = Math.max(maxErr, Math.abs(fb.data[t * fb.dim + b]! - reference[t]![b]!));
      }
    }
    expect(maxErr).toBeLessThan(1e-3);
  });

  test('a too-short signal gives no frames', () => {
    expect(kaldiFbank(new Float32Array(399)).frames).toBe(0);
  });
});
