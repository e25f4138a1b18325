/**
 * Issue 52: a source the browser cannot decode fails the job at once, by its name and codec in
 * plain words, with the fix (the opted-in ffmpeg core for sound; converting the file for
 * pictures). The decision is pure over the probe; the capability check is a test double here,
 * and a real ProRes + AC-3 file made by Debian's ffmpeg is probed through mediabunny with it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  audioDecodable,
  codecInWords,
  undecodableSourceMessage,
  videoDecodable,
  type DecodeCheck,
  type DecoderCapability,
} from '../../../src/media/decodability.ts';
import { probeWithMediabunny } from '../../../src/media/mediabunny-decoder.ts';

/** A capability double: refuses the codec strings it is given, records every config asked about. */
function capabilityDouble(refuse: RegExp): DecoderCapability & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    video: (config) => {
      asked.push(config.codec);
      return Promise.resolve(!refuse.test(config.codec));
    },
    audio: (config) => {
      asked.push(config.codec);
      return Promise.resolve(!refuse.test(config.codec));
    },
  };
}

const camera = (over: Partial<DecodeCheck>): DecodeCheck => ({
  name: '"Cam B"',
  kind: 'video',
  engine: 'mediabunny',
  container: 'MP4',
  video: { codec: 'avc', decodable: true },
  audio: { codec: 'aac', decodable: true },
  ffmpegCore: false,
  ...over,
});

describe('codecInWords', () => {
  test('names codecs as people know them, from mediabunny, ffprobe or the container', () => {
    expect(codecInWords('video', { codec: 'hevc' })).toBe('HEVC (H.265) video');
    expect(codecInWords('video', { codec: null, codecId: 'apch' })).toBe('ProRes video');
    expect(codecInWords('video', { codec: 'prores' })).toBe('ProRes video');
    expect(codecInWords('audio', { codec: 'ac3' })).toBe('AC-3 (Dolby Digital) audio');
    expect(codecInWords('audio', { codec: null, codecId: 'A_EAC3' })).toBe('E-AC-3 (Dolby Digital Plus) audio');
    expect(codecInWords('video', { codec: null, codecId: 'xyz1' })).toBe('video in the codec "xyz1"');
    expect(codecInWords('audio', { codec: null })).toBe('audio in a codec the file does not name');
  });
});

describe('undecodableSourceMessage', () => {
  test('a source the browser decodes whole passes', () => {
    expect(undecodableSourceMessage(camera({}))).toBeNull();
  });

  test('HEVC pictures the browser cannot decode fail by name, codec and fix, with or without the ffmpeg core', () => {
    for (const ffmpegCore of [false, true]) {
      const message = undecodableSourceMessage(
        camera({ ffmpegCore, video: { codec: 'hevc', codecId: 'hvc1', decodable: false } }),
      );
      expect(message).toMatch(/^source "Cam B" is HEVC \(H\.265\) video, which this browser cannot decode/);
      expect(message).toContain('camera map');
      expect(message).toContain('convert it to H.264');
      expect(message).toContain('a browser that decodes HEVC');
    }
  });

  test('ProRes pictures fail too; a ProRes file added as a mic is used for its sound', () => {
    const prores = { codec: 'prores', codecId: 'apcn', decodable: false };
    expect(undecodableSourceMessage(camera({ video: prores }))).toMatch(
      /^source "Cam B" is ProRes video, which this browser cannot decode.*add the file as a mic/,
    );
    expect(undecodableSourceMessage(camera({ kind: 'audio', video: prores }))).toBeNull();
  });

  test('a camera only the ffmpeg core could open fails: its pictures cannot be read for the map', () => {
    const message = undecodableSourceMessage(
      camera({
        engine: 'ffmpeg.wasm',
        container: 'avi',
        video: { codec: 'mpeg4' },
        audio: { codec: 'mp3' },
        ffmpegCore: true,
      }),
    );
    expect(message).toMatch(
      /^source "Cam B" is in a container this browser cannot open for its pictures \(avi, MPEG-4 Part 2 video\)/,
    );
    // A mic only the core could open is fine: the core decodes its sound.
    expect(
      undecodableSourceMessage(
        camera({ kind: 'audio', engine: 'ffmpeg.wasm', video: null, audio: { codec: 'ac3' }, ffmpegCore: true }),
      ),
    ).toBeNull();
  });

  test('AC-3 sound fails without the ffmpeg core, saying how each host turns it on; with it, it is decoded', () => {
    const ac3 = { codec: 'ac3', codecId: 'A_AC3', decodable: false };
    const message = undecodableSourceMessage(camera({ name: '"Recorder"', kind: 'audio', video: null, audio: ac3 }));
    expect(message).toMatch(
      /^source "Recorder" has AC-3 \(Dolby Digital\) audio, which this browser cannot decode: turn on the optional ffmpeg decoder/,
    );
    expect(message).toContain("assets: { ffmpegWasmBase: '/wasm/' }");
    expect(message).toContain('multicam init <publicDir> --ffmpeg');
    expect(message).toContain('the demo and `multicam edit` have it on');
    expect(message).toContain('convert its sound');
    expect(undecodableSourceMessage(camera({ audio: ac3, ffmpegCore: true }))).toBeNull();
  });
});

describe('the capability check', () => {
  test('asks about the decoder config; PCM needs no decoder; no config or a throwing check is undecodable', async () => {
    const double = capabilityDouble(/^hev1|^ac-3/);
    const track = <C>(config: C | null) => ({ getDecoderConfig: () => Promise.resolve(config) });
    expect(await videoDecodable(track({ codec: 'hev1.1.6.L30.90' }), double)).toBe(false);
    expect(await videoDecodable(track({ codec: 'avc1.64001f' }), double)).toBe(true);
    expect(await videoDecodable(track<VideoDecoderConfig>(null), double)).toBe(false);
    expect(await audioDecodable(track({ codec: 'ac-3', sampleRate: 48000, numberOfChannels: 2 }), double)).toBe(false);
    expect(await audioDecodable(track({ codec: 'pcm-s24', sampleRate: 44100, numberOfChannels: 2 }), double)).toBe(
      true,
    );
    expect(double.asked).toEqual(['hev1.1.6.L30.90', 'avc1.64001f', 'ac-3']);
    const broken = { getDecoderConfig: () => Promise.reject(new Error('bad box')) };
    expect(await videoDecodable(broken, double)).toBe(false);
  });

  describe('through mediabunny on a real file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'decodability-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    test('a ProRes + AC-3 MOV probes with both streams undecodable where the browser refuses them', async () => {
      const file = join(dir, 'prores-ac3.mov');
      execFileSync('ffmpeg', [
        ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x90:rate=25'],
        ...['-f', 'lavfi', '-i', 'sine=f=440:sample_rate=48000', '-t', '1'],
        ...['-c:v', 'prores_ks', '-profile:v', '0', '-c:a', 'ac3', file],
      ]);
      const double = capabilityDouble(/^apc|^ac-3/);
      const probe = await probeWithMediabunny(new Blob([readFileSync(file)]), new AbortController().signal, double);
      expect(probe.video).toMatchObject({ codec: 'prores', codecId: 'apco', decodable: false });
      expect(probe.audio).toMatchObject({ codec: 'ac3', decodable: false });
      expect(double.asked).toEqual(['apco', 'ac-3']);
      const message = undecodableSourceMessage({
        name: '"Studio cam"',
        kind: 'video',
        engine: probe.engine,
        container: probe.container,
        video: probe.video,
        audio: probe.audio,
        ffmpegCore: true,
      });
      expect(message).toMatch(/^source "Studio cam" is ProRes video, which this browser cannot decode/);
    });
  });
});
