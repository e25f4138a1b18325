/**
 * RTTM reading (NIST speaker-turn format, as pyannote ships its sample's truth).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Turn } from '../../src/contract/types.ts';

/** `SPEAKER <file> <chan> <start s> <dur s> <NA> <NA> <speaker> …` lines → turns in ms. */
export function readRttm(path: string): Turn[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[0] === 'SPEAKER' && f.length >= 8)
    .map((f) => {
      const start = Number(f[3]) * 1000;
      return { speaker: f[7]!, startMs: start, endMs: start + Number(f[4]) * 1000 };
    });
}
