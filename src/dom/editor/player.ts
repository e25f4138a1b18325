/**
 * Synced playback of every camera: one master clock in reference time drives the `<video>`
 * elements, each seeked to its own source time (sync offset and drift applied), so all tiles
 * show the same reference moment. Videos are muted; the programme sound is the job's audio
 * (audioUrl) when there is one, else the camera on air. A tile plays its camera's proxy once
 * it is built (docs/proxies.md), the original until then or when a person asks for full size:
 * {@link SyncedPlayer.setMedia} swaps the file and puts it back at the playhead.
 *
 * @module
 */
import type { JobSource } from '../../contract/types.ts';
import { referenceTimeMs, sourceTimeMs } from './model.ts';

/** How far (s) a playing video may drift from the master clock before it is seeked back. */
const RESYNC_S = 0.25;

/** One camera tile's video and the source it plays. */
export interface PlayerTrack {
  source: JobSource;
  video: HTMLVideoElement;
}

/** The master clock over the tracks. */
export class SyncedPlayer {
  private readonly tracks: PlayerTrack[];
  private readonly audio: HTMLMediaElement | null;
  private readonly onTick: (ms: number) => void;
  private playing = false;
  private startedAt = 0;
  private startedMs = 0;
  private positionMs = 0;
  private frame = 0;
  private disposed = false;
  readonly endMs: number;

  /** `audio`: the programme sound in reference time (audioUrl), or null. `onTick`: called with the playhead on every frame while playing. */
  constructor(tracks: PlayerTrack[], audio: HTMLMediaElement | null, endMs: number, onTick: (ms: number) => void) {
    this.tracks = tracks;
    this.audio = audio;
    this.endMs = endMs;
    this.onTick = onTick;
  }

  get isPlaying(): boolean {
    return this.playing;
  }

  /** The playhead in reference ms. */
  get timeMs(): number {
    return this.playing ? Math.min(this.endMs, this.startedMs + (performance.now() - this.startedAt)) : this.positionMs;
  }

  /** Moves the playhead; every video is seeked to its own time for it. */
  seek(ms: number): void {
    this.positionMs = Math.min(Math.max(0, ms), this.endMs);
    this.startedMs = this.positionMs;
    this.startedAt = performance.now();
    for (const track of this.tracks) this.place(track, this.positionMs, true);
    if (this.audio) this.audio.currentTime = this.positionMs / 1000;
    this.onTick(this.positionMs);
  }

  play(): void {
    if (this.playing || this.disposed) return;
    if (this.positionMs >= this.endMs) this.positionMs = 0;
    this.playing = true;
    this.startedMs = this.positionMs;
    this.startedAt = performance.now();
    for (const track of this.tracks) this.place(track, this.positionMs, true);
    if (this.audio) {
      this.audio.currentTime = this.positionMs / 1000;
      void this.audio.play().catch(() => undefined);
    }
    const tick = (): void => {
      if (!this.playing) return;
      const now = this.timeMs;
      for (const track of this.tracks) this.place(track, now, false);
      this.onTick(now);
      if (now >= this.endMs) this.pause();
      else this.frame = requestAnimationFrame(tick);
    };
    this.frame = requestAnimationFrame(tick);
  }

  pause(): void {
    if (!this.playing) return;
    this.positionMs = this.timeMs;
    this.playing = false;
    cancelAnimationFrame(this.frame);
    for (const track of this.tracks) track.video.pause();
    this.audio?.pause();
    this.onTick(this.positionMs);
  }

  toggle(): void {
    if (this.playing) this.pause();
    else this.play();
  }

  /**
   * Plays `url` in the tile of `sourceId` (its proxy, or the original for a full-size look): the
   * new file is put at the playhead as soon as its metadata is known. `media` names what it is
   * (the tile's `data-media`, which tests and the tile's button read).
   */
  setMedia(sourceId: string, url: string, media: 'proxy' | 'original'): void {
    const track = this.tracks.find((t) => t.source.id === sourceId);
    if (!track || this.disposed) return;
    const { video } = track;
    video.dataset['media'] = media;
    video.addEventListener(
      'loadedmetadata',
      () => {
        if (!this.disposed) this.place(track, this.timeMs, true);
      },
      { once: true },
    );
    video.src = url;
  }

  /** Sets which tile's sound is heard when there is no programme audio. */
  setOnAir(sourceId: string | null): void {
    if (this.audio) return;
    for (const track of this.tracks) track.video.muted = track.source.id !== sourceId;
  }

  /** The reference time a video currently shows (for tests and the tiles' captions). */
  static shownReferenceMs(track: PlayerTrack): number {
    return referenceTimeMs(track.source, track.video.currentTime * 1000);
  }

  private place(track: PlayerTrack, refMs: number, force: boolean): void {
    const { video, source } = track;
    const targetS = sourceTimeMs(source, refMs) / 1000;
    const duration = Number.isFinite(video.duration) ? video.duration : Infinity;
    const recording = targetS >= 0 && targetS < duration;
    track.video.closest('figure')?.toggleAttribute('data-off-air', !recording);
    if (!recording) {
      video.pause();
      return;
    }
    if (force || Math.abs(video.currentTime - targetS) > RESYNC_S) video.currentTime = targetS;
    if (this.playing && video.paused) void video.play().catch(() => undefined);
    if (!this.playing && !video.paused) video.pause();
  }

  dispose(): void {
    this.disposed = true;
    this.pause();
    for (const track of this.tracks) {
      track.video.removeAttribute('src');
      track.video.load();
    }
  }
}
