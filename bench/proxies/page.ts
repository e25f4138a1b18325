/**
 * The proxies bench page: builds each camera's proxy with the media worker (the engine's own
 * `buildProxy`), then plays four tiles through the review editor's `SyncedPlayer` from either
 * the originals or the proxies: frames dropped while playing, and the time from a seek (a click on
 * the timeline) to every tile presenting the new moment. Driven by bench/proxies/run.ts.
 *
 * @module
 */
import { createMediaClient } from '../../src/media/client.ts';
import { AppendWithHeadPatches } from '../../src/media/proxy-plan.ts';
import { SyncedPlayer, type PlayerTrack } from '../../src/dom/editor/player.ts';

/** One proxy built. */
export interface BenchBuild {
  name: string;
  buildMs: number;
  durationS: number;
  bytes: number;
  width: number;
  height: number;
  codec: string;
  /** The proxy's bytes, base64 (the runner serves them from the same server as the originals). */
  base64: string;
}

/** Playback of four tiles for a while. */
export interface BenchPlayback {
  seconds: number;
  dropped: number;
  total: number;
  perTile: Array<{ dropped: number; total: number }>;
}

/** One seek: ms until every tile presented a frame of the new moment (`seeked` where frames are not reported). */
export interface BenchSeek {
  targetS: number;
  ms: number;
  how: 'frame' | 'seeked';
}

function base64Of(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

let player: SyncedPlayer | null = null;
let videos: HTMLVideoElement[] = [];

const api = {
  /** Decodes every frame of `/fixture/<name>` with WebCodecs (mediabunny's sink), nothing else: the build's floor. */
  async decodeOnly(name: string): Promise<{ ms: number; frames: number }> {
    const { ALL_FORMATS, BlobSource, Input, VideoSampleSink } = await import('mediabunny');
    const blob = await (await fetch(`/fixture/${name}`)).blob();
    const input = new Input({ source: new BlobSource(blob), formats: ALL_FORMATS });
    const track = await input.getPrimaryVideoTrack();
    if (!track) throw new Error(`${name}: no video`);
    const t0 = performance.now();
    let frames = 0;
    for await (const sample of new VideoSampleSink(track).samples()) {
      frames++;
      sample.close();
    }
    input.dispose();
    return { ms: performance.now() - t0, frames };
  },

  /** Builds the proxies of `/fixture/<name>` one after another, as the engine does. */
  async build(names: string[]): Promise<BenchBuild[]> {
    const media = createMediaClient();
    const out: BenchBuild[] = [];
    try {
      for (const name of names) {
        const blob = await (await fetch(`/fixture/${name}`)).blob();
        const parts: Uint8Array[] = [];
        const t0 = performance.now();
        let durationS = 0;
        const built = await media.buildProxy(blob, {
          label: name,
          sink: {
            append: async (data) => {
              parts.push(data.slice());
            },
          },
          onProgress: (p) => (durationS = Math.max(durationS, p.mediaMs / 1000)),
        });
        const buildMs = performance.now() - t0;
        if (built.outcome !== 'built') throw new Error(`${name}: ${built.reason}`);
        const whole = new Uint8Array(built.size);
        let at = 0;
        for (const part of parts) {
          whole.set(part, at);
          at += part.byteLength;
        }
        const head = AppendWithHeadPatches.apply(whole.subarray(0, 65536), built.headPatches);
        whole.set(head, 0);
        out.push({
          name,
          buildMs,
          durationS,
          bytes: built.size,
          width: built.width,
          height: built.height,
          codec: built.codec,
          base64: base64Of(whole),
        });
      }
    } finally {
      await media.dispose();
    }
    return out;
  },

  /** Four tiles of `urls` under the editor's player; resolves once every tile shows a frame. */
  async load(urls: string[]): Promise<number> {
    player?.dispose();
    const tiles = document.getElementById('tiles')!;
    tiles.replaceChildren();
    videos = urls.map((url, i) => {
      const video = document.createElement('video');
      video.muted = true;
      video.playsInline = true;
      video.preload = 'auto';
      video.src = url;
      const figure = document.createElement('figure');
      figure.style.margin = '0';
      figure.append(video);
      tiles.append(figure);
      video.dataset['i'] = String(i);
      return video;
    });
    const tracks: PlayerTrack[] = videos.map((video, i) => ({
      source: { id: `cam${i + 1}`, label: `Cam ${i + 1}`, kind: 'video', ext: 'mp4', offsetMs: 0, driftPpm: 0 },
      video,
    }));
    await Promise.all(
      videos.map(
        (v) =>
          new Promise<void>((resolve, reject) => {
            if (v.readyState >= 2) resolve();
            v.addEventListener('loadeddata', () => resolve(), { once: true });
            v.addEventListener('error', () => reject(new Error(`${v.src}: ${v.error?.message ?? 'error'}`)), {
              once: true,
            });
          }),
      ),
    );
    const endMs = Math.min(...videos.map((v) => v.duration * 1000));
    player = new SyncedPlayer(tracks, null, endMs, () => undefined);
    player.seek(0);
    return endMs;
  },

  /** Plays from `fromS` for `seconds` and counts the frames the tiles dropped meanwhile. */
  async play(fromS: number, seconds: number): Promise<BenchPlayback> {
    if (!player) throw new Error('load first');
    player.seek(fromS * 1000);
    await Promise.all(
      videos.map((v) =>
        v.seeking ? new Promise((r) => v.addEventListener('seeked', r, { once: true })) : Promise.resolve(),
      ),
    );
    const before = videos.map((v) => v.getVideoPlaybackQuality());
    player.play();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    player.pause();
    const perTile = videos.map((v, i) => {
      const q = v.getVideoPlaybackQuality();
      return {
        dropped: q.droppedVideoFrames - before[i]!.droppedVideoFrames,
        total: q.totalVideoFrames - before[i]!.totalVideoFrames,
      };
    });
    return {
      seconds,
      dropped: perTile.reduce((a, t) => a + t.dropped, 0),
      total: perTile.reduce((a, t) => a + t.total, 0),
      perTile,
    };
  },

  /** For each target: a click on the timeline (`player.seek`), then the ms until every tile presented it. */
  async seeks(targetsS: number[]): Promise<BenchSeek[]> {
    if (!player) throw new Error('load first');
    const out: BenchSeek[] = [];
    for (const targetS of targetsS) {
      const t0 = performance.now();
      const shown = videos.map(
        (v) =>
          new Promise<{ how: 'frame' | 'seeked'; at: number }>((resolve) => {
            let seekedAt: number | null = null;
            // A paused video presents the seeked frame once; where no frame is reported within 2 s of
            // `seeked` (a page not composited), `seeked` stands for it.
            v.requestVideoFrameCallback(() => resolve({ how: 'frame', at: performance.now() }));
            v.addEventListener(
              'seeked',
              () => {
                seekedAt = performance.now();
                setTimeout(() => resolve({ how: 'seeked', at: seekedAt! }), 2000);
              },
              { once: true },
            );
          }),
      );
      player.seek(targetS * 1000);
      const done = await Promise.all(shown);
      const ms = Math.max(...done.map((d) => d.at)) - t0;
      out.push({ targetS, ms, how: done.every((d) => d.how === 'frame') ? 'frame' : 'seeked' });
      await new Promise((r) => setTimeout(r, 100));
    }
    return out;
  },
};

(window as unknown as { proxyBench: typeof api }).proxyBench = api;
document.body.dataset['ready'] = '1';
