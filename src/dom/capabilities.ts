/**
 * What this browser must have before multicam starts, checked up front so that a browser which
 * lacks something says so at once (one error naming each missing piece and the browsers that
 * work), rather than a 500 from the service worker or a step that never ends.
 *
 * Two halves: {@link probeBrowserCapabilities} reads the browser into a plain record (DOM, async),
 * and {@link evaluateCapabilities} judges a record (pure: the unit tier feeds it made-up ones).
 *
 * @module
 */

/** What the pipeline uses, as found in this browser. Every field is true when present. */
export interface BrowserCapabilities {
  /** `isSecureContext`: https or localhost (service workers and storage need it). */
  secureContext: boolean;
  /** `navigator.serviceWorker`: it answers the REST contract. */
  serviceWorker: boolean;
  /** `indexedDB`: jobs, files, accounts and the webhook outbox. */
  indexedDB: boolean;
  /** `new Worker(url, { type: 'module' })`: the pipeline's workers are ES modules. */
  moduleWorker: boolean;
  /** `navigator.locks`: one engine per browser profile, however many tabs. */
  webLocks: boolean;
  /** WebCodecs `VideoDecoder`: every camera is decoded with it. */
  videoDecoder: boolean;
  /** WebCodecs `AudioDecoder`: compressed audio (AAC, Opus) is decoded with it. */
  audioDecoder: boolean;
  /**
   * Decoded audio can be read (`AudioData.copyTo`). False in WebKit on Linux (WebKitGTK, WPE):
   * WebKitGTK 2.50's `copyTo` kills the web process (`free(): invalid pointer`), even on an
   * `AudioData` the page made itself, so it cannot be probed by calling it; the engine is told by
   * its user agent ({@link audioDataCopyWorks}).
   */
  audioDataCopy: boolean;
  /** WebCodecs `VideoEncoder`. */
  videoEncoder: boolean;
  /** `VideoEncoder.isConfigSupported` says yes to H.264 at 720p30, the render's default codec. */
  h264Encode: boolean;
  /** `crossOriginIsolated`: SharedArrayBuffer and wasm threads (faster, not required). */
  crossOriginIsolated: boolean;
  /** `navigator.storage.getDirectory`: the origin private file system, for scratch audio (else memory). */
  opfs: boolean;
}

/** What the page is about to do, which decides what it needs. */
export interface CapabilityNeeds {
  /** The page runs the pipeline (`startMulticam({ engine: true })`): WebCodecs and workers too. */
  engine: boolean;
  /**
   * The app opted in to the optional ffmpeg core, whose libx264 encodes H.264 where the browser
   * cannot: then a missing H.264 encoder costs speed, not the render.
   */
  ffmpegCore: boolean;
}

/** The judgement on a browser: what stops multicam, and what only costs something. */
export interface CapabilityReport {
  /** Each missing piece that stops it, in words (empty: it can run). */
  missing: string[];
  /** Each missing piece that only slows or limits it, in words, with its fix where there is one. */
  degraded: string[];
}

/**
 * The browsers that have everything, for the error message: Chromium is the one every tier
 * runs in; Firefox ESR 153 runs the demo hands-off here; Safari 26 by its platform facts
 * (WebCodecs audio arrived in Safari 26). docs/browsers.md keeps the evidence.
 */
export const SUPPORTED_BROWSERS =
  'Chrome or Edge 94 or later (checked with Chromium 156), Firefox 130 or later (checked with Firefox ESR 153), Safari 26 or later';

/** A browser that lacks something the pipeline needs; `missing` lists each piece in words. */
export class BrowserSupportError extends Error {
  override readonly name = 'BrowserSupportError';
  readonly missing: readonly string[];
  constructor(missing: readonly string[]) {
    super(`multicam cannot run in this browser: it lacks ${missing.join('; ')}. It works in ${SUPPORTED_BROWSERS}.`);
    this.missing = missing;
  }
}

/**
 * Judges a capability record against what the page is about to do. Pure.
 *
 * @example
 * const report = evaluateCapabilities(await probeBrowserCapabilities(), { engine: true, ffmpegCore: false });
 * if (report.missing.length > 0) throw new BrowserSupportError(report.missing);
 */
export function evaluateCapabilities(caps: BrowserCapabilities, needs: CapabilityNeeds): CapabilityReport {
  const missing: string[] = [];
  const degraded: string[] = [];
  if (!caps.secureContext) missing.push('a secure context (the page must be served over https, or from localhost)');
  if (!caps.serviceWorker) missing.push('service workers (navigator.serviceWorker; private windows may turn them off)');
  if (!caps.indexedDB) missing.push('IndexedDB (private windows may turn it off)');
  if (needs.engine) {
    if (!caps.moduleWorker) missing.push("module workers (new Worker(url, { type: 'module' }))");
    if (!caps.webLocks) missing.push('the Web Locks API (navigator.locks)');
    if (!caps.videoDecoder) missing.push('WebCodecs VideoDecoder');
    if (!caps.audioDecoder) missing.push('WebCodecs AudioDecoder');
    else if (!caps.audioDataCopy)
      missing.push(
        'a WebCodecs AudioData.copyTo that works (WebKitGTK and WPE on Linux crash the page when decoded audio is read)',
      );
    const h264 = caps.videoEncoder && caps.h264Encode;
    if (!h264 && !needs.ffmpegCore)
      missing.push(
        caps.videoEncoder
          ? 'an H.264 encoder in WebCodecs (VideoEncoder.isConfigSupported refused avc1 at 1280×720)'
          : 'WebCodecs VideoEncoder',
      );
    if (!h264 && needs.ffmpegCore)
      degraded.push(
        'multicam: this browser has no WebCodecs H.264 encoder, so renders use the ffmpeg core’s libx264 (several times slower)',
      );
    if (!caps.crossOriginIsolated)
      degraded.push(
        'multicam: this page is not cross-origin isolated, so SharedArrayBuffer is off and the optional ffmpeg core runs single-threaded: serve it with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp (the multicam/vite plugin does on its dev and preview servers)',
      );
    if (!caps.opfs)
      degraded.push(
        'multicam: this browser has no origin private file system (navigator.storage.getDirectory), so scratch audio is held in memory',
      );
  }
  return { missing, degraded };
}

/** Whether `new Worker(url, { type: 'module' })` is understood (the options' `type` is read). */
function probeModuleWorker(): boolean {
  if (typeof Worker === 'undefined' || typeof URL.createObjectURL !== 'function') return false;
  let typeRead = false;
  const options = {
    get type(): WorkerType {
      typeRead = true;
      return 'module';
    },
  };
  const url = URL.createObjectURL(new Blob([''], { type: 'text/javascript' }));
  try {
    new Worker(url, options).terminate();
  } catch {
    // A refused script still shows whether the option was read.
  } finally {
    URL.revokeObjectURL(url);
  }
  return typeRead;
}

/**
 * Starts the browser's media framework through a media element before anything uses WebCodecs.
 * WebKitGTK 2.50 (GStreamer) crashes its web process when WebCodecs is the first thing in the
 * process to touch GStreamer ("gst_register_core_elements: code should not be reached": its
 * WebCodecs encoder element is registered before GStreamer is initialised); asking a `<video>`
 * what it can play initialises GStreamer first, and costs nothing elsewhere (docs/browsers.md).
 */
export function startMediaFramework(): void {
  if (typeof document === 'undefined') return;
  document.createElement('video').canPlayType('video/mp4; codecs="avc1.42001f"');
}

/**
 * Whether reading decoded audio (`AudioData.copyTo`) is safe here: false for WebKit on Linux
 * (WebKitGTK, WPE; GStreamer behind WebCodecs), whose `copyTo` crashes the web process, so the
 * call itself cannot be the probe. Safari (WebKit on Apple systems) and Chromium-based browsers
 * on Linux (their user agents say `Chrome`) are not affected. Pure over the user-agent string.
 *
 * @example
 * audioDataCopyWorks('Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15'); // false
 */
export function audioDataCopyWorks(userAgent: string): boolean {
  const webKit = /AppleWebKit\//.test(userAgent) && !/Chrome\/|Chromium\/|Android/.test(userAgent);
  return !(webKit && /Linux|X11/.test(userAgent));
}

/** Whether WebCodecs encodes H.264 at 720p30 here (the render's default output codec). */
async function probeH264Encode(): Promise<boolean> {
  if (typeof VideoEncoder === 'undefined') return false;
  startMediaFramework();
  try {
    const { supported } = await VideoEncoder.isConfigSupported({
      codec: 'avc1.42001f',
      width: 1280,
      height: 720,
      bitrate: 2_000_000,
      framerate: 30,
    });
    return supported === true;
  } catch {
    return false;
  }
}

/**
 * Reads what this browser has. It starts nothing that lasts: one empty module worker is created
 * and terminated at once to see whether `type: 'module'` is understood.
 */
export async function probeBrowserCapabilities(): Promise<BrowserCapabilities> {
  const nav = navigator as Partial<Navigator>;
  return {
    secureContext: globalThis.isSecureContext === true,
    serviceWorker: nav.serviceWorker !== undefined,
    indexedDB: typeof indexedDB !== 'undefined',
    moduleWorker: probeModuleWorker(),
    webLocks: nav.locks !== undefined,
    videoDecoder: typeof VideoDecoder !== 'undefined',
    audioDecoder: typeof AudioDecoder !== 'undefined',
    audioDataCopy: audioDataCopyWorks(nav.userAgent ?? ''),
    videoEncoder: typeof VideoEncoder !== 'undefined',
    h264Encode: await probeH264Encode(),
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    opfs: typeof nav.storage?.getDirectory === 'function',
  };
}
