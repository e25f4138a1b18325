/**
 * The loudness meter against native ffmpeg's `ebur128` filter on real speech (a LibriSpeech
 * utterance from the shared data): the same integrated loudness within 0.1 LU and the same true
 * peak within 0.2 dB, at the file's own 16 kHz mono and resampled to the render's 48 kHz stereo.
 * Both meters read the same float WAV.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LoudnessMeter } from '../../../src/analysis/audio/loudness.ts';
import { sharedPath } from '../../../tools/shared-data.ts';
import { requireSharedData } from '../../support/shared-data.ts';

const SPEECH = sharedPath('data', 'librispeech', '1688-142285-0000.flac');
const present = requireSharedData([SPEECH]);

/**
 * ffmpeg's ebur128 figures for a file: integrated loudness to 0.001 LU (the last `lavfi.r128.I`
 * of its metadata; the printed summary rounds to 0.1), loudness range, and the summary's true peak.
 */
function ffmpegEbur128(path: string): { integrated: number; lra: number; truePeak: number } {
  const res = spawnSync(
    'ffmpeg',
    [
      '-nostats',
      '-hide_banner',
      '-i',
      path,
      '-af',
      'ebur128=peak=true:metadata=1,ametadata=print:file=-',
      '-f',
      'null',
      '-',
    ],
    { maxBuffer: 2 ** 28 },
  );
  const text = res.stderr.toString();
  if (res.status !== 0) throw new Error(`ffmpeg ebur128 ${path}: ${text}`);
  const last = (pattern: RegExp, within: string): number => {
    const all = [...within.matchAll(pattern)];
    if (all.length === 0) throw new Error(`ffmpeg ebur128: nothing matches ${String(pattern)}`);
    return Number(all[all.length - 1]![1]);
  };
  const metadata = res.stdout.toString();
  const summary = text.slice(text.lastIndexOf('Summary:'));
  return {
    integrated: last(/lavfi\.r128\.I=(-?[\d.]+)/g, metadata),
    lra: last(/lavfi\.r128\.LRA=(-?[\d.]+)/g, metadata),
    truePeak: last(/Peak:\s+(-?[\d.]+)/g, summary),
  };
}

/** The file's first audio stream at `rate` Hz and `channels` channels as a float WAV in a temporary folder. */
function floatWav(path: string, rate: number, channels: number): string {
  const out = join(mkdtempSync(join(tmpdir(), 'loudness-')), `speech-${rate}-${channels}.wav`);
  const res = spawnSync('ffmpeg', [
    '-v',
    'error',
    '-i',
    path,
    '-ac',
    String(channels),
    '-ar',
    String(rate),
    '-c:a',
    'pcm_f32le',
    out,
  ]);
  if (res.status !== 0) throw new Error(`ffmpeg ${path}: ${res.stderr.toString()}`);
  return out;
}

/** A float WAV's samples, planar (ffmpeg reads it back bit for bit). */
function readPlanar(path: string, channels: number): Float32Array[] {
  const res = spawnSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 'f32le', '-'], { maxBuffer: 2 ** 30 });
  if (res.status !== 0) throw new Error(`ffmpeg decode ${path}: ${res.stderr.toString()}`);
  const bytes = new Uint8Array(res.stdout);
  const interleaved = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const frames = interleaved.length / channels;
  return Array.from({ length: channels }, (_, c) =>
    Float32Array.from({ length: frames }, (_, i) => interleaved[i * channels + c]!),
  );
}

describe.skipIf(!present)('against native ffmpeg ebur128 on LibriSpeech speech (skipped without ../shared)', () => {
  // The utterance as it is (16 kHz mono), and resampled to the render's 48 kHz stereo (both channels the same).
  test.each([
    [16_000, 1],
    [48_000, 2],
  ])('at %i Hz, %i channel(s): integrated within 0.1 LU, true peak within 0.2 dB', (rate, channels) => {
    const wav = floatWav(SPEECH, rate, channels);
    const reference = ffmpegEbur128(wav);
    const planes = readPlanar(wav, channels);
    const meter = new LoudnessMeter(rate, channels);
    for (let at = 0; at < planes[0]!.length; at += 4_096) meter.push(planes.map((p) => p.subarray(at, at + 4_096)));
    const ours = meter.summary();
    console.info(
      `loudness: ffmpeg cross-check ${rate} Hz × ${channels}: I ${ours.integratedLufs} vs ${reference.integrated} LUFS, ` +
        `LRA ${ours.lraLu} vs ${reference.lra} LU, true peak ${ours.truePeakDbtp} vs ${reference.truePeak} dBTP`,
    );
    expect(Math.abs(ours.integratedLufs! - reference.integrated)).toBeLessThanOrEqual(0.1);
    // The summary prints the peak to 0.1 dB: its rounding is inside the 0.2 dB.
    expect(Math.abs(ours.truePeakDbtp! - reference.truePeak)).toBeLessThanOrEqual(0.2);
  });
});
