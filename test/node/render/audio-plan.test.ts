/**
 * The render's audio plan (src/render/audio-plan.ts): AAC from the browser where it has an
 * encoder, from the optional ffmpeg core where the app opted in, else Opus with a note.
 */
import { describe, expect, test } from 'vitest';
import { NO_AAC_ENCODER, OPUS_IN_MP4_NOTE, planAudio } from '../../../src/render/audio-plan.ts';

describe('planAudio', () => {
  test('an MP4 takes the browser AAC encoder first, even with the ffmpeg core enabled', () => {
    for (const ffmpegCore of [false, true])
      expect(planAudio({ container: 'mp4', requested: undefined, webCodecsAac: true, ffmpegCore })).toEqual({
        codec: 'aac',
        encoder: 'webcodecs',
        note: null,
      });
  });

  test('without a browser AAC encoder the opted-in ffmpeg core makes the AAC', () => {
    for (const requested of [undefined, 'aac'] as const)
      expect(planAudio({ container: 'mp4', requested, webCodecsAac: false, ffmpegCore: true })).toEqual({
        codec: 'aac',
        encoder: 'ffmpeg.wasm',
        note: null,
      });
  });

  test('with neither, a default MP4 carries Opus and says why; an explicit aac is refused', () => {
    expect(planAudio({ container: 'mp4', requested: undefined, webCodecsAac: false, ffmpegCore: false })).toEqual({
      codec: 'opus',
      encoder: 'webcodecs',
      note: OPUS_IN_MP4_NOTE,
    });
    expect(planAudio({ container: 'mp4', requested: 'aac', webCodecsAac: false, ffmpegCore: false })).toBe(
      NO_AAC_ENCODER,
    );
  });

  test('opus asked for, or a WebM, is Opus with no note', () => {
    for (const webCodecsAac of [false, true]) {
      expect(planAudio({ container: 'mp4', requested: 'opus', webCodecsAac, ffmpegCore: true })).toEqual({
        codec: 'opus',
        encoder: 'webcodecs',
        note: null,
      });
      expect(planAudio({ container: 'webm', requested: undefined, webCodecsAac, ffmpegCore: true })).toMatchObject({
        codec: 'opus',
        note: null,
      });
    }
    expect(planAudio({ container: 'webm', requested: 'aac', webCodecsAac: true, ffmpegCore: true })).toContain(
      'webm output takes opus',
    );
  });
});
