/**
 * Timeline thumbnails: frames grabbed from the cameras' own media with one hidden `<video>`
 * per camera (so the playing tiles are never seeked for them), one seek at a time, scaled
 * down to an ImageBitmap and cached by camera and time.
 *
 * @module
 */
import type { JobSource } from '../../contract/types.ts';
import { sourceTimeMs } from './model.ts';

/** Thumbnail size in CSS pixels (16:9). */
export const THUMB_W = 64;
export const THUMB_H = 36;
/** Requests closer than this (ms) share a thumbnail. */
const BUCKET_MS = 250;
/** A seek that does not finish in this long is given up (the thumbnail stays empty). */
const SEEK_TIMEOUT_MS = 4000;

function once(target: EventTarget, type: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      target.removeEventListener(type, onEvent);
      target.removeEventListener('error', onError);
      resolve(ok);
    };
    const onEvent = (): void => done(true);
    const onError = (): void => done(false);
    target.addEventListener(type, onEvent);
    target.addEventListener('error', onError);
  });
}

/** Grabs and caches thumbnails; `onReady` is called whenever a new one is available. */
export class Thumbnails {
  private readonly sources: Map<string, JobSource>;
  private readonly urls: Record<string, string>;
  private readonly onReady: () => void;
  private readonly cache = new Map<string, ImageBitmap | null>();
  private readonly videos = new Map<string, HTMLVideoElement>();
  private queue: Array<{ key: string; sourceId: string; refMs: number }> = [];
  private busy = false;
  private disposed = false;

  constructor(sources: readonly JobSource[], urls: Record<string, string>, onReady: () => void) {
    this.sources = new Map(sources.map((s) => [s.id, s]));
    this.urls = urls;
    this.onReady = onReady;
  }

  /** How many thumbnails are ready. */
  get readyCount(): number {
    let n = 0;
    for (const v of this.cache.values()) if (v) n++;
    return n;
  }

  /** The thumbnail of camera `sourceId` at reference time `refMs`, or undefined (then it is queued). */
  get(sourceId: string, refMs: number): ImageBitmap | undefined {
    const bucket = Math.round(refMs / BUCKET_MS) * BUCKET_MS;
    const key = `${sourceId}@${bucket}`;
    if (!this.cache.has(key)) {
      this.cache.set(key, null);
      this.queue.push({ key, sourceId, refMs: bucket });
      void this.pump();
    }
    return this.cache.get(key) ?? undefined;
  }

  private video(sourceId: string): HTMLVideoElement | null {
    let video = this.videos.get(sourceId);
    const url = this.urls[sourceId];
    if (!video && url) {
      video = document.createElement('video');
      video.muted = true;
      video.preload = 'auto';
      video.src = url;
      this.videos.set(sourceId, video);
    }
    return video ?? null;
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0 && !this.disposed) {
        const item = this.queue.shift()!;
        const source = this.sources.get(item.sourceId);
        const video = this.video(item.sourceId);
        if (!source || !video) continue;
        if (video.readyState < 1 && !(await once(video, 'loadedmetadata', SEEK_TIMEOUT_MS))) continue;
        const t = sourceTimeMs(source, item.refMs) / 1000;
        if (t < 0 || t >= video.duration) continue;
        const seeked = once(video, 'seeked', SEEK_TIMEOUT_MS);
        video.currentTime = t;
        if (!(await seeked) || this.disposed) continue;
        const bitmap = await createImageBitmap(video, {
          resizeWidth: THUMB_W * 2,
          resizeHeight: THUMB_H * 2,
          resizeQuality: 'medium',
        }).catch(() => null);
        if (bitmap) {
          this.cache.set(item.key, bitmap);
          this.onReady();
        }
      }
    } finally {
      this.busy = false;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.queue = [];
    for (const bitmap of this.cache.values()) bitmap?.close();
    this.cache.clear();
    for (const video of this.videos.values()) {
      video.removeAttribute('src');
      video.load();
    }
    this.videos.clear();
  }
}
