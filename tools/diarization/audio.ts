/**
 * Node-side audio loading for the diarization evaluation, benchmark and tests: 16-bit PCM
 * WAV parsed directly, anything else (FLAC) decoded by Debian's ffmpeg to mono 16 kHz.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Mono samples in [-1, 1] at `sampleRate`. */
export interface MonoAudio {
  samples: Float32Array;
  sampleRate: number;
}

/** Parses a PCM16 WAV (any channel count; channels are averaged to mono). */
export function readWavPcm16(path: string): MonoAudio {
  const buf = readFileSync(path);
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${path}: not a RIFF/WAVE file`);
  }
  let pos = 12;
  let channels = 0;
  let sampleRate = 0;
  let bits = 0;
  while (pos + 8 <= buf.length) {
    const id = buf.toString('ascii', pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(body + 2);
      sampleRate = buf.readUInt32LE(body + 4);
      bits = buf.readUInt16LE(body + 14);
    } else if (id === 'data') {
      if (bits !== 16) throw new Error(`${path}: ${bits}-bit WAV; only 16-bit PCM is read directly`);
      const end = Math.min(buf.length, body + size);
      const frames = Math.floor((end - body) / (2 * channels));
      const samples = new Float32Array(frames);
      for (let i = 0; i < frames; i++) {
        let s = 0;
        for (let c = 0; c < channels; c++) s += buf.readInt16LE(body + 2 * (i * channels + c));
        samples[i] = s / channels / 32768;
      }
      return { samples, sampleRate };
    }
    pos = body + size + (size & 1);
  }
  throw new Error(`${path}: no data chunk`);
}

/** Decodes any file ffmpeg reads to mono Float32 at `sampleRate` (default 16000). */
export function decodeWithFfmpeg(path: string, sampleRate = 16000): MonoAudio {
  const out = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', path, '-ac', '1', '-ar', String(sampleRate), '-f', 'f32le', '-'],
    { maxBuffer: 1 << 30 },
  );
  const samples = new Float32Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength));
  return { samples, sampleRate };
}

/** Loads a 16 kHz mono signal: WAV PCM16 at 16 kHz directly, anything else through ffmpeg. */
export function loadMono16k(path: string): MonoAudio {
  if (path.endsWith('.wav')) {
    const wav = readWavPcm16(path);
    if (wav.sampleRate === 16000) return wav;
  }
  return decodeWithFfmpeg(path, 16000);
}
