/**
 * The render's audio plan (src/render/audio-plan.ts): an MP4 is AAC everywhere, from the
 * browser's encoder where it has one, else from the bundled WebAssembly encoder; Opus only when
 * asked for, or in a WebM.
 */
import { describe, expect, test } from 'vitest';
import { planAudio } from '../../../src/render/audio-plan.ts';

describe('planAudio', () => {
  test("an MP4 takes the browser's AAC encoder where it has one", () => {
    for (const requested of [undefined, 'aac'] as const)
      expect(planAudio({ container: 'mp4', requested, webCodecsAac: true })).toEqual({
        codec: 'aac',
        encoder: 'webcodecs',
      });
  });

  test('without a browser AAC encoder (Linux Chromium, Firefox) the WebAssembly encoder makes the AAC', () => {
    for (const requested of [undefined, 'aac'] as const)
      expect(planAudio({ container: 'mp4', requested, webCodecsAac: false })).toEqual({
        codec: 'aac',
        encoder: 'aac-wasm',
      });
  });

  test('opus asked for, or a WebM, is Opus from WebCodecs', () => {
    for (const webCodecsAac of [false, true]) {
      expect(planAudio({ container: 'mp4', requested: 'opus', webCodecsAac })).toEqual({
        codec: 'opus',
        encoder: 'webcodecs',
      });
      expect(planAudio({ container: 'webm', requested: undefined, webCodecsAac })).toEqual({
        codec: 'opus',
        encoder: 'webcodecs',
      });
    }
    expect(planAudio({ container: 'webm', requested: 'aac', webCodecsAac: true })).toContain('webm output takes opus');
  });
});
