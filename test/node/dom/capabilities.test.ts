/**
 * The up-front browser check (src/dom/capabilities.ts): which missing pieces stop multicam,
 * which only cost something, and the one error that names them with the browsers that work.
 * The records are test doubles (`fakeCapabilities`), not a browser's.
 */
import { describe, expect, test } from 'vitest';
import {
  BrowserSupportError,
  evaluateCapabilities,
  audioDataCopyWorks,
  SUPPORTED_BROWSERS,
  type BrowserCapabilities,
} from '../../../src/dom/capabilities.ts';

/** Test double: a capability record with everything present, then the given overrides. */
function fakeCapabilities(overrides: Partial<BrowserCapabilities> = {}): BrowserCapabilities {
  return {
    secureContext: true,
    serviceWorker: true,
    indexedDB: true,
    moduleWorker: true,
    webLocks: true,
    videoDecoder: true,
    audioDecoder: true,
    audioDataCopy: true,
    videoEncoder: true,
    h264Encode: true,
    crossOriginIsolated: true,
    opfs: true,
    ...overrides,
  };
}

const ENGINE = { engine: true, ffmpegCore: false };

describe('evaluateCapabilities', () => {
  test('a browser with everything (Chromium, Firefox 130+, Safari 26 as they ship) can run, with no warning', () => {
    expect(evaluateCapabilities(fakeCapabilities(), ENGINE)).toEqual({ missing: [], degraded: [] });
  });

  test('each piece the engine needs is named when missing', () => {
    const cases: Array<[keyof BrowserCapabilities, string]> = [
      ['secureContext', 'secure context'],
      ['serviceWorker', 'service workers'],
      ['indexedDB', 'IndexedDB'],
      ['moduleWorker', 'module workers'],
      ['webLocks', 'Web Locks'],
      ['videoDecoder', 'VideoDecoder'],
      ['audioDecoder', 'AudioDecoder'],
      ['audioDataCopy', 'AudioData.copyTo'],
      ['videoEncoder', 'VideoEncoder'],
      ['h264Encode', 'H.264 encoder'],
    ];
    for (const [field, words] of cases) {
      const { missing } = evaluateCapabilities(fakeCapabilities({ [field]: false }), ENGINE);
      expect(missing, field).toHaveLength(1);
      expect(missing[0], field).toContain(words);
    }
  });

  test('a page that only calls the API needs no WebCodecs or workers', () => {
    const noMedia = fakeCapabilities({
      moduleWorker: false,
      webLocks: false,
      videoDecoder: false,
      audioDecoder: false,
      audioDataCopy: false,
      videoEncoder: false,
      h264Encode: false,
      crossOriginIsolated: false,
      opfs: false,
    });
    expect(evaluateCapabilities(noMedia, { engine: false, ffmpegCore: false })).toEqual({ missing: [], degraded: [] });
    expect(
      evaluateCapabilities(fakeCapabilities({ serviceWorker: false }), { engine: false, ffmpegCore: false }).missing,
    ).toHaveLength(1);
  });

  test('no H.264 encoder is only slower where the app opted in to the ffmpeg core (libx264)', () => {
    const report = evaluateCapabilities(fakeCapabilities({ h264Encode: false }), { engine: true, ffmpegCore: true });
    expect(report.missing).toEqual([]);
    expect(report.degraded).toHaveLength(1);
    expect(report.degraded[0]).toContain('libx264');
  });

  test('no cross-origin isolation or private file system is a warning with its fix, not a refusal', () => {
    const report = evaluateCapabilities(fakeCapabilities({ crossOriginIsolated: false, opfs: false }), ENGINE);
    expect(report.missing).toEqual([]);
    expect(report.degraded).toHaveLength(2);
    expect(report.degraded[0]).toContain('Cross-Origin-Embedder-Policy');
    expect(report.degraded[1]).toContain('private file system');
  });

  test('a browser with no WebCodecs at all (say Safari 15) gets every missing piece in one list', () => {
    const old = fakeCapabilities({ videoDecoder: false, audioDecoder: false, videoEncoder: false, h264Encode: false });
    expect(evaluateCapabilities(old, ENGINE).missing).toEqual([
      'WebCodecs VideoDecoder',
      'WebCodecs AudioDecoder',
      'WebCodecs VideoEncoder',
    ]);
  });
});

describe('BrowserSupportError', () => {
  test('one message naming each missing piece and the browsers that work; a stable name', () => {
    const error = new BrowserSupportError(['WebCodecs AudioDecoder', 'the Web Locks API (navigator.locks)']);
    expect(error.name).toBe('BrowserSupportError');
    expect(error.missing).toEqual(['WebCodecs AudioDecoder', 'the Web Locks API (navigator.locks)']);
    expect(error.message).toBe(
      `multicam cannot run in this browser: it lacks WebCodecs AudioDecoder; the Web Locks API (navigator.locks). It works in ${SUPPORTED_BROWSERS}.`,
    );
    for (const browser of ['Chrome', 'Firefox', 'Safari 26']) expect(error.message).toContain(browser);
  });
});

describe('audioDataCopyWorks', () => {
  test('WebKit on Linux (WebKitGTK, WPE), whose AudioData.copyTo crashes the page, is told apart from Safari and Chromium', () => {
    // MiniBrowser of Debian's WebKitGTK 2.50.6, read over WebDriver (docs/browsers.md).
    const webKitGtk =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/60.5 Safari/605.1.15';
    expect(audioDataCopyWorks(webKitGtk)).toBe(false);
    const works = [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Safari/605.1.15',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 26_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36',
      'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0',
    ];
    for (const ua of works) expect(audioDataCopyWorks(ua), ua).toBe(true);
    // And the page refuses at start with the reason, naming the browsers that work.
    const error = new BrowserSupportError(
      evaluateCapabilities(fakeCapabilities({ audioDataCopy: false }), ENGINE).missing,
    );
    expect(error.message).toContain('AudioData.copyTo');
    expect(error.message).toContain(SUPPORTED_BROWSERS);
  });
});
