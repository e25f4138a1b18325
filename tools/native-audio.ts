/**
 * The native baseline the long-footage benchmark and evaluation time analysis against: Debian's
 * ffmpeg decoding the audio of each file to 16 kHz mono float (what the analysis reads), output
 * discarded.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';

/** Seconds native ffmpeg takes to decode the audio of every file in `paths` to 16 kHz mono. */
export function nativeAudioSeconds(paths: readonly string[]): number {
  const t0 = performance.now();
  for (const path of paths)
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-i',
      path,
      '-vn',
      '-ac',
      '1',
      '-ar',
      '16000',
      '-f',
      'f32le',
      '-y',
      '/dev/null',
    ]);
  return (performance.now() - t0) / 1000;
}
