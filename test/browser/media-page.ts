/**
 * Shared by test/browser/media.test.ts and bench/sync: builds the media test page
 * (test/browser/pages/media.html) into its own folder with Vite's API, links the pinned
 * `wasm/` assets beside it, and makes small media files with Debian's ffmpeg.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FfmpegRunInfo, MediaEngine, MediaProbe } from '../../src/media/protocol.ts';
import { buildSite, requireFfmpegCore, ROOT } from '../support/build-site.ts';

export { ROOT };
/** Where the page is built; served as the site root. */
export const MEDIA_SITE = join(ROOT, '.cache/media-site');
/** Generated media files (kept between runs), linked into the site as /media/. */
export const MEDIA_FILES = join(ROOT, '.cache/media-files');
export const MEDIA_PAGE = '/test/browser/pages/media.html';

/** Builds the page (a small multi-entry build: page, media worker, ffmpeg.wasm's worker). */
export async function buildMediaPage(outDir = MEDIA_SITE, links: Record<string, string> = {}): Promise<void> {
  requireFfmpegCore();
  mkdirSync(MEDIA_FILES, { recursive: true });
  // `links`: extra folders to serve, e.g. a fixture directory for the benchmark.
  await buildSite({
    pages: { media: 'test/browser/pages/media.html' },
    outDir,
    links: { wasm: join(ROOT, 'wasm'), media: MEDIA_FILES, ...links },
  });
}

/** A generated test file and what it should give. */
export interface MediaCase {
  file: string;
  /** Expected container as mediabunny names it (null: mediabunny cannot read it). */
  container: string | null;
  hasVideo: boolean;
  durationMs: number;
}

const V = ['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=30'];
// Pink noise plus a 440 Hz tone: the tone gives a frequency to check, the noise a unique
// waveform so two decodes can be aligned sample by sample.
const A = ['-f', 'lavfi', '-i', 'anoisesrc=r=48000:a=0.05:c=pink:s=7', '-f', 'lavfi', '-i', 'sine=f=440:r=48000'];
const MIX_AV = [
  '-filter_complex',
  '[1:a][2:a]amix=inputs=2:normalize=0,aformat=channel_layouts=stereo[a]',
  '-map',
  '0:v',
  '-map',
  '[a]',
];
const MIX_A = [
  '-filter_complex',
  '[0:a][1:a]amix=inputs=2:normalize=0,aformat=channel_layouts=stereo[a]',
  '-map',
  '[a]',
];
const H264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

/** The formats a source may have (the spec's `ext` list), plus an AC-3 MKV WebCodecs cannot decode. */
export const MEDIA_CASES: Array<MediaCase & { args: string[] }> = [
  {
    file: 'h264-aac.mp4',
    container: 'MP4',
    hasVideo: true,
    durationMs: 5000,
    args: [...V, ...A, ...MIX_AV, ...H264, '-c:a', 'aac'],
  },
  {
    file: 'h264-aac.mov',
    container: 'QuickTime File Format',
    hasVideo: true,
    durationMs: 5000,
    args: [...V, ...A, ...MIX_AV, ...H264, '-c:a', 'aac'],
  },
  {
    file: 'vp8-opus.webm',
    container: 'WebM',
    hasVideo: true,
    durationMs: 5000,
    args: [...V, ...A, ...MIX_AV, '-c:v', 'libvpx', '-deadline', 'realtime', '-b:v', '200k', '-c:a', 'libopus'],
  },
  {
    file: 'vp9-opus.mkv',
    container: 'Matroska',
    hasVideo: true,
    durationMs: 5000,
    args: [
      ...V,
      ...A,
      ...MIX_AV,
      '-c:v',
      'libvpx-vp9',
      '-deadline',
      'realtime',
      '-cpu-used',
      '8',
      '-b:v',
      '200k',
      '-c:a',
      'libopus',
    ],
  },
  {
    file: 'pcm.wav',
    container: 'WAVE',
    hasVideo: false,
    durationMs: 5000,
    args: [...A, ...MIX_A, '-c:a', 'pcm_s16le', '-ar', '44100'],
  },
  {
    file: 'mp3.mp3',
    container: 'MP3',
    hasVideo: false,
    durationMs: 5000,
    args: [...A, ...MIX_A, '-c:a', 'libmp3lame', '-ar', '44100', '-b:a', '128k'],
  },
  {
    file: 'aac.m4a',
    container: 'MP4',
    hasVideo: false,
    durationMs: 5000,
    args: [...A, ...MIX_A, '-c:a', 'aac', '-ar', '44100'],
  },
  {
    file: 'adts.aac',
    container: 'ADTS',
    hasVideo: false,
    durationMs: 5000,
    args: [...A, ...MIX_A, '-c:a', 'aac', '-ar', '44100', '-f', 'adts'],
  },
  {
    file: 'h264-ac3.mkv',
    container: 'Matroska',
    hasVideo: true,
    durationMs: 5000,
    args: [...V, ...A, ...MIX_AV, ...H264, '-c:a', 'ac3'],
  },
];

/** Writes every case (5 s each) plus damaged and video-only files into `dir`; idempotent. */
export function makeMediaFiles(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const c of MEDIA_CASES) {
    const out = join(dir, c.file);
    if (existsSync(out)) continue;
    execFileSync('ffmpeg', ['-v', 'error', '-y', ...c.args, '-t', String(c.durationMs / 1000), out]);
  }
  const videoOnly = join(dir, 'video-only.mp4');
  if (!existsSync(videoOnly)) execFileSync('ffmpeg', ['-v', 'error', '-y', ...V, ...H264, '-t', '2', videoOnly]);
  // Long enough (2 min) that a decode can be cancelled halfway.
  const long = join(dir, 'long.mp3');
  if (!existsSync(long))
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      ...A,
      ...MIX_A,
      '-c:a',
      'libmp3lame',
      '-b:a',
      '64k',
      '-t',
      '120',
      long,
    ]);
  // Damaged: the first 40% of an MP4 whose index (moov) is at the end, and bytes that are no format at all.
  const mp4 = readFileSync(join(dir, 'h264-aac.mp4'));
  writeFileSync(join(dir, 'truncated.mp4'), mp4.subarray(0, Math.floor(mp4.length * 0.4)));
  const garbage = Buffer.alloc(64 * 1024);
  let s = 12345;
  for (let i = 0; i < garbage.length; i++) garbage[i] = (s = (s * 1103515245 + 12345) >>> 0) >>> 24;
  writeFileSync(join(dir, 'garbled.mp4'), garbage);
}

/** Decodes like the browser's ffmpeg.wasm path, natively: `ffmpeg -i X -ac 1 -ar R -f f32le -`. */
export function nativeDecode(file: string, rate = 16000): Float32Array {
  const buf = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-vn', '-ac', '1', '-ar', String(rate), '-f', 'f32le', '-'],
    { maxBuffer: 1 << 30 },
  );
  return new Float32Array(buf.buffer, buf.byteOffset, Math.floor(buf.byteLength / 4));
}

export function removeMediaSite(outDir = MEDIA_SITE): void {
  rmSync(outDir, { recursive: true, force: true });
}

/** A probe or decode that failed, as the test page reports it. */
export interface PageError {
  error: { name: string; message: string };
}

/** `window.mediaTest` of the test page (test/browser/pages/media.ts), as the Node side sees it. */
export interface MediaTestApi {
  probe(
    url: string,
    engine?: 'auto' | 'ffmpeg.wasm',
  ): Promise<(MediaProbe & { ffmpeg?: FfmpegRunInfo; ms: number }) | PageError>;
  decode(
    url: string,
    options?: {
      engine?: 'auto' | 'ffmpeg.wasm';
      sampleRate?: number;
      abortAfterMs?: number;
      headSec?: number;
      range?: { startMs: number; endMs: number };
      noCore?: boolean;
      toFile?: boolean;
    },
  ): Promise<
    | {
        engine: MediaEngine;
        ffmpeg: FfmpegRunInfo | null;
        sampleRate: number;
        length: number;
        transferred: boolean;
        /** Where the samples went, with toFile (null when they came back in memory). */
        inFile: { folder: string; name: string; length: number } | null;
        rms: number;
        dominantHz: number;
        progress: number[];
        head: number[];
        ms: number;
      }
    | PageError
  >;
  syncBench(
    urls: string[],
    sampleRate?: number,
  ): Promise<{
    mediaMs: number[];
    engines: MediaEngine[];
    probeMs: number;
    decodeMs: number;
    syncMs: number;
    aligned: Array<{ id: string; offsetMs: number; driftPpm: number; confidence: number }>;
  }>;
}

declare global {
  interface Window {
    mediaTest: MediaTestApi;
  }
}
