import { describe, expect, test } from 'vitest';
import { sniffMedia } from '../../../src/contract/media-sniff.ts';

const bytes = (...parts: Array<string | number[]>): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? Array.from(p, (c) => c.charCodeAt(0)) : p)));

describe('sniffMedia', () => {
  test.each([
    ['MP4 ftyp', bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0]), 'iso-bmff'],
    ['MOV wide', bytes([0, 0, 0, 8], 'wide', [0, 0, 0, 0]), 'iso-bmff'],
    ['MOV moov first', bytes([0, 0, 1, 0], 'moov'), 'iso-bmff'],
    ['mdat first', bytes([0, 0, 1, 0], 'mdat'), 'iso-bmff'],
    ['free first', bytes([0, 0, 0, 8], 'free'), 'iso-bmff'],
    ['WebM/Matroska', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86]), 'matroska'],
    ['WAV', bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt '), 'wav'],
    ['RF64 WAV', bytes('RF64', [0xff, 0xff, 0xff, 0xff], 'WAVEds64'), 'wav'],
    ['MP3 ID3', bytes('ID3', [4, 0, 0]), 'mp3'],
    ['MP3 frame', bytes([0xff, 0xfb, 0x90, 0x64]), 'mp3'],
    ['AAC ADTS FFF1', bytes([0xff, 0xf1, 0x50, 0x80]), 'aac'],
    ['AAC ADTS FFF9', bytes([0xff, 0xf9, 0x50, 0x80]), 'aac'],
    ['FLAC', bytes('fLaC', [0, 0, 0, 0x22]), 'flac'],
    ['Ogg', bytes('OggS', [0, 2]), 'ogg'],
    ['AIFF', bytes('FORM', [0, 0, 0, 0], 'AIFF'), 'aiff'],
  ])('%s is media', (_name, head, container) => {
    expect(sniffMedia(head)).toEqual({ kind: 'media', container });
  });

  test('an empty file is empty', () => {
    expect(sniffMedia(new Uint8Array(0))).toEqual({ kind: 'empty' });
  });

  test('a web page is not media, and says how it starts', () => {
    const sniff = sniffMedia(bytes('<!DOCTYPE html>\n<html><script>alert(1)</script>'));
    expect(sniff).toEqual({ kind: 'not-media', start: '<!DOCTYPE html> <html><s …' });
  });

  test('binary junk is not media, shown as hex', () => {
    const sniff = sniffMedia(bytes([0x50, 0x4b, 3, 4, 0x14, 0, 0, 0, 8, 0, 0, 0, 0x21, 0]));
    expect(sniff).toEqual({ kind: 'not-media', start: '50 4b 03 04 14 00 00 00 08 00 00 00 …' });
  });

  test.each([
    ['plain text', bytes('some bytes some bytes')],
    ['RIFF but not WAVE', bytes('RIFF', [0, 0, 0, 0], 'CDXA')],
    ['ftyp too late', bytes([0, 0, 0, 0, 0], 'ftyp')],
    ['a lone FF', bytes([0xff])],
    ['FF then not a sync', bytes([0xff, 0x10, 0, 0])],
    ['half an EBML id', bytes([0x1a, 0x45])],
  ])('%s is not media', (_name, head) => {
    expect(sniffMedia(head).kind).toBe('not-media');
  });
});
