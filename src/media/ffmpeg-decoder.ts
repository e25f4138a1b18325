/**
 * The ffmpeg.wasm fallback: for containers or codecs mediabunny/WebCodecs cannot read. The core
 * is optional (GPL-2.0-or-later; the app opts in by naming where it is served) and loaded only
 * when first needed, from the app's own origin (`<wasmBase>ffmpeg-core/` or, when cross-origin
 * isolated, the threaded `<wasmBase>ffmpeg-core-mt/`).
 * Inputs are mounted with WORKERFS, which reads the Blob in place: the file is never copied
 * into wasm memory; only the decoded output is.
 *
 * @module
 */
import { FFFSType, FFmpeg } from '@ffmpeg/ffmpeg';
import { MediaAbortError, NoAudioTrackError, UnreadableMediaError } from './errors.ts';
import { nearestFrameRate } from './frame-rate.ts';
import type { DecodedAudio, FfmpegRunInfo, MediaProbe, MediaProgress, StreamInfo, VideoInfo } from './protocol.ts';
import { taggedTimecode } from './timecode.ts';

/** Where the pinned ffmpeg cores are served, and whether to use the threaded one. */
export interface FfmpegOptions {
  /** URL of the folder holding `ffmpeg-core/` and `ffmpeg-core-mt/` (the optional core), e.g. `https://host/wasm/`. */
  wasmBase: string;
  /** `auto`: the threaded core when `crossOriginIsolated`. */
  threads?: 'auto' | 'single';
}

/** One lazily loaded ffmpeg.wasm instance (its own worker) shared by every call of this media worker. */
export class FfmpegRunner {
  private ffmpeg: FFmpeg | null = null;
  private loading: Promise<FFmpeg> | null = null;
  private core: FfmpegRunInfo['core'] = 'ffmpeg-core';
  private seq = 0;
  private restartAfterRun = false;
  /** Calls run one at a time: the ffmpeg worker executes one command at a time anyway. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly options: FfmpegOptions;

  constructor(options: FfmpegOptions) {
    this.options = options;
  }

  /** Terminates the ffmpeg worker (it is reloaded on next use). */
  dispose(): void {
    this.ffmpeg?.terminate();
    this.ffmpeg = null;
    this.loading = null;
  }

  private load(): Promise<FFmpeg> {
    if (this.ffmpeg) return Promise.resolve(this.ffmpeg);
    this.loading ??= (async () => {
      const mt = (this.options.threads ?? 'auto') === 'auto' && globalThis.crossOriginIsolated === true;
      this.core = mt ? 'ffmpeg-core-mt' : 'ffmpeg-core';
      const base = new URL(`${this.core}/`, new URL(this.options.wasmBase, globalThis.location.href)).href;
      const ff = new FFmpeg();
      await ff.load({
        coreURL: `${base}ffmpeg-core.js`,
        wasmURL: `${base}ffmpeg-core.wasm`,
        ...(mt ? { workerURL: `${base}ffmpeg-core.worker.js` } : {}),
      });
      this.ffmpeg = ff;
      return ff;
    })().catch((e: unknown) => {
      this.loading = null;
      throw e;
    });
    return this.loading;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Mounts `blob` read-only with WORKERFS, runs `fn` with its path and a log collector, and
   * always unmounts. An abort terminates the ffmpeg worker: a running command cannot be stopped
   * any other way.
   */
  private withInput<T>(
    blob: Blob,
    label: string,
    signal: AbortSignal,
    fn: (ff: FFmpeg, path: string, log: string[], info: FfmpegRunInfo) => Promise<T>,
  ): Promise<T> {
    return this.serial(async () => {
      signal.throwIfAborted();
      // Listen before loading: an abort while the core loads must stop it too.
      const onAbort = () => this.dispose();
      signal.addEventListener('abort', onAbort, { once: true });
      const log: string[] = [];
      const onLog = ({ message }: { message: string }) => {
        if (log.length < 400) log.push(message);
      };
      let ff: FFmpeg;
      try {
        ff = await this.load();
        if (signal.aborted) throw new MediaAbortError(`${label}: cancelled`);
      } catch (e) {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) throw new MediaAbortError(`${label}: cancelled`);
        throw e;
      }
      const dir = `/mnt/in${++this.seq}`;
      const name = 'source' + extensionOf(blob);
      const path = `${dir}/${name}`;
      ff.on('log', onLog);
      let mounted = false;
      try {
        await ff.createDir('/mnt').catch(() => undefined);
        await ff.createDir(dir);
        await ff.mount(FFFSType.WORKERFS, { blobs: [{ name, data: blob }] }, dir);
        mounted = true;
        const info: FfmpegRunInfo = { core: this.core, filesystem: 'WORKERFS', inputPath: path, inputLog: null };
        const result = await fn(ff, path, log, info);
        return result;
      } catch (e) {
        if (signal.aborted) throw new MediaAbortError(`${label}: cancelled`);
        throw e;
      } finally {
        signal.removeEventListener('abort', onAbort);
        if (this.ffmpeg === ff) {
          ff.off('log', onLog);
          if (mounted) await ff.unmount(dir).catch(() => undefined);
          await ff.deleteDir(dir).catch(() => undefined);
        }
        if (this.restartAfterRun) {
          this.restartAfterRun = false;
          this.dispose();
        }
      }
    });
  }

  /** Probes with ffprobe. Throws {@link UnreadableMediaError} naming `label` when ffprobe cannot read it. */
  probe(blob: Blob, label: string, signal: AbortSignal): Promise<MediaProbe & { ffmpeg: FfmpegRunInfo }> {
    return this.withInput(blob, label, signal, async (ff, path, log, info) => {
      const out = `/probe${this.seq}.json`;
      await ff.ffprobe(['-v', 'error', '-show_format', '-show_streams', '-of', 'json', path, '-o', out]);
      let json: FfprobeJson | null;
      try {
        const text = await ff.readFile(out, 'utf8');
        json = JSON.parse(typeof text === 'string' ? text : new TextDecoder().decode(text)) as FfprobeJson;
      } catch {
        json = null;
      } finally {
        await ff.deleteFile(out).catch(() => undefined);
      }
      // ffmpeg.wasm's ffprobe returns -1 even after writing a complete report: trust the report.
      if (!json?.format || !json.streams?.length) {
        this.restartAfterRun = true;
        throw new UnreadableMediaError(`${label}: ffmpeg.wasm cannot read the file (${lastLines(log)})`);
      }
      info.inputLog = `ffprobe read ${path}`;
      return { ...fromFfprobe(json), ffmpeg: info };
    });
  }

  /** Decodes the first audio stream to mono f32 at `sampleRate`, like `ffmpeg -i X -ac 1 -ar R -f f32le`. */
  decodeAudio(
    blob: Blob,
    sampleRate: number,
    label: string,
    signal: AbortSignal,
    onProgress?: (p: MediaProgress) => void,
  ): Promise<DecodedAudio> {
    return this.withInput(blob, label, signal, async (ff, path, log, info) => {
      const out = `/audio${this.seq}.f32`;
      const onProg = ({ progress, time }: { progress: number; time: number }) => {
        onProgress?.({ fraction: Math.max(0, Math.min(1, progress)), mediaMs: time / 1000 });
      };
      ff.on('progress', onProg);
      let code: number;
      try {
        code = await ff.exec([
          '-nostdin',
          '-i',
          path,
          '-vn',
          '-ac',
          '1',
          '-ar',
          String(sampleRate),
          '-f',
          'f32le',
          '-y',
          out,
        ]);
      } finally {
        if (this.ffmpeg === ff) ff.off('progress', onProg);
      }
      info.inputLog = log.find((l) => l.includes('Input #0')) ?? null;
      const hasAudio = log.some((l) => /Stream #0:\d+.*: Audio:/.test(l));
      if (code !== 0) {
        await ff.deleteFile(out).catch(() => undefined);
        // A failed run can leave the wasm module aborted (its log then goes quiet); start afresh next time.
        this.restartAfterRun = true;
        if (info.inputLog && !hasAudio) throw new NoAudioTrackError(`${label}: the file has no audio track`);
        throw new UnreadableMediaError(`${label}: ffmpeg.wasm cannot decode the audio (${lastLines(log)})`);
      }
      const data = await ff.readFile(out);
      await ff.deleteFile(out).catch(() => undefined);
      if (typeof data === 'string')
        throw new UnreadableMediaError(`${label}: ffmpeg.wasm returned text instead of audio`);
      const samples =
        data.byteOffset === 0 &&
        data.byteLength % 4 === 0 &&
        data.buffer instanceof ArrayBuffer &&
        data.buffer.byteLength === data.byteLength
          ? new Float32Array(data.buffer)
          : new Float32Array(data.slice(0, data.byteLength - (data.byteLength % 4)).buffer);
      onProgress?.({ fraction: 1, mediaMs: (samples.length / sampleRate) * 1000 });
      return { engine: 'ffmpeg.wasm', samples, sampleRate, ffmpeg: info };
    });
  }
}

function extensionOf(blob: Blob): string {
  const name = 'name' in blob && typeof blob.name === 'string' ? blob.name : '';
  const m = /\.[a-z0-9]{1,5}$/i.exec(name);
  return m ? m[0].toLowerCase() : '';
}

function lastLines(log: string[]): string {
  const tail = log.slice(-3).join(' | ').trim();
  return tail.length > 0 ? tail.slice(0, 300) : 'no output';
}

/** What the probe reads of ffprobe's JSON report. */
export interface FfprobeJson {
  format?: { format_name?: string; duration?: string; tags?: Record<string, string> };
  streams?: Array<{
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    avg_frame_rate?: string;
    r_frame_rate?: string;
    sample_rate?: string;
    channels?: number;
    duration?: string;
    tags?: Record<string, string>;
  }>;
}

/** ffprobe's `timecode` tag: on the video stream, a tmcd data stream, or the container (Matroska's `TIMECODE`). */
function ffprobeTimecodeTag(j: FfprobeJson): string | undefined {
  const tagOf = (tags: Record<string, string> | undefined): string | undefined =>
    Object.entries(tags ?? {}).find(([k]) => k.toLowerCase() === 'timecode')?.[1];
  const streams = j.streams ?? [];
  return (
    tagOf(streams.find((s) => s.codec_type === 'video')?.tags) ??
    streams.map((s) => tagOf(s.tags)).find((t) => t !== undefined) ??
    tagOf(j.format?.tags)
  );
}

function rate(s: string | undefined): number | null {
  if (!s) return null;
  const [n, d] = s.split('/').map(Number);
  if (n === undefined || !Number.isFinite(n)) return null;
  const r = d === undefined ? n : d === 0 ? NaN : n / d;
  return Number.isFinite(r) && r > 0 ? r : null;
}

/** ffprobe's rates (`30000/1001`) as the exact fraction; the two differ on variable-rate files. */
function ffprobeRate(
  average: string | undefined,
  real: string | undefined,
): Pick<VideoInfo, 'frameRate' | 'frameRateExact' | 'variableFrameRate'> {
  const fps = rate(average) ?? rate(real);
  if (fps === null) return { frameRate: null, frameRateExact: null, variableFrameRate: false };
  const exact = nearestFrameRate(fps, 0.0002);
  const r = rate(real);
  return {
    frameRate: exact.num / exact.den,
    frameRateExact: exact,
    variableFrameRate: r !== null && Math.abs(r - fps) / fps > 0.01,
  };
}

/** A probe from ffprobe's JSON report (`-show_format -show_streams -of json`). */
export function fromFfprobe(j: FfprobeJson): MediaProbe {
  const streams: StreamInfo[] = (j.streams ?? []).map((s) => ({
    type: s.codec_type === 'video' ? 'video' : s.codec_type === 'audio' ? 'audio' : 'other',
    codec: s.codec_name ?? null,
  }));
  const v = j.streams?.find((s) => s.codec_type === 'video');
  const a = j.streams?.find((s) => s.codec_type === 'audio');
  const video: VideoInfo | null = v
    ? {
        codec: v.codec_name ?? null,
        width: v.width ?? 0,
        height: v.height ?? 0,
        ...ffprobeRate(v.avg_frame_rate, v.r_frame_rate),
        rotation: 0,
      }
    : null;
  const durationSec = Number(j.format?.duration ?? a?.duration ?? v?.duration ?? NaN);
  const tag = ffprobeTimecodeTag(j);
  const timecode = tag === undefined ? null : taggedTimecode(tag, video?.frameRateExact ?? null);
  return {
    ...(timecode ? { timecode } : {}),
    engine: 'ffmpeg.wasm',
    container: j.format?.format_name ?? 'unknown',
    mimeType: null,
    durationMs: Number.isFinite(durationSec) ? durationSec * 1000 : 0,
    video,
    audio: a
      ? { codec: a.codec_name ?? null, sampleRate: Number(a.sample_rate ?? 0), channels: a.channels ?? 0 }
      : null,
    streams,
  };
}
