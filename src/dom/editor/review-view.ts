/**
 * The review view of the editor (ready, complete, approved): the camera tiles with the synced
 * player, the transport, the timeline with its waveform and thumbnails, the edit summary, the
 * action bar, the cut and pause lists, the sound levels and the mapping correction; and how it is redrawn when
 * the edit or the playhead moves.
 *
 * @module
 */
import type { GetJobResponse, JobSource } from '../../contract/types.ts';
import { renderActions } from './actions.ts';
import { renderCutList, renderPauseList } from './cut-list.ts';
import { cameraColour, el } from './dom.ts';
import { levelsPanel, refreshLevels } from './levels-panel.ts';
import { mappingCorrection } from './mapping-panel.ts';
import { cutIndexAt, editedDurationMs, formatTime, moveBoundary } from './model.ts';
import { SyncedPlayer } from './player.ts';
import { PEAKS_PER_SECOND, playhead, timelineData, totalMs, videoSources, type EditorSession } from './session.ts';
import { Thumbnails } from './thumbnails.ts';
import { Timeline } from './timeline.ts';

/** Decodes the programme audio into peaks (reference time), or null when it cannot be decoded. */
async function decodePeaks(url: string, offsetMs: number, signal: AbortSignal): Promise<Float32Array | null> {
  const response = await fetch(url, { signal });
  if (!response.ok) return null;
  const bytes = await response.arrayBuffer();
  // An offline context at a low rate: decodeAudioData resamples to it, which keeps memory small.
  const context = new OfflineAudioContext(1, 1, 8000);
  const buffer = await context.decodeAudioData(bytes);
  const data = buffer.getChannelData(0);
  const perPeak = Math.max(1, Math.round(buffer.sampleRate / PEAKS_PER_SECOND));
  const lead = Math.max(0, Math.round((offsetMs / 1000) * PEAKS_PER_SECOND));
  const peaks = new Float32Array(lead + Math.ceil(data.length / perPeak));
  let max = 1e-6;
  for (let i = 0; i < data.length; i++) {
    const v = Math.abs(data[i]!);
    const k = lead + Math.floor(i / perPeak);
    if (v > peaks[k]!) peaks[k] = v;
    if (v > max) max = v;
  }
  for (let k = 0; k < peaks.length; k++) peaks[k] = peaks[k]! / max;
  return peaks;
}

/** Marks the camera on air at `at` on the tiles and the player. */
function showOnAir(s: EditorSession, at: number): void {
  const onAir = s.cuts[cutIndexAt(s.cuts, at)]?.sourceId ?? null;
  for (const tile of s.view.tiles.querySelectorAll<HTMLElement>('figure'))
    tile.toggleAttribute('data-on-air', tile.dataset['sourceId'] === onAir);
  s.player?.setOnAir(onAir);
}

/** Redraws the review view from the edit: on-air camera, clock, timeline, summary, lists and actions. */
export function refreshEdit(s: EditorSession): void {
  if (!s.state) return;
  const sources = videoSources(s);
  const at = playhead(s);
  showOnAir(s, at);
  s.view.clock.textContent = formatTime(at);
  s.timeline?.draw(timelineData(s, at));
  // An approved job is final: the service refuses edits, so the controls are read-only.
  const controls = s.body.querySelector<HTMLFieldSetElement>('fieldset.edit-controls');
  if (controls) controls.disabled = s.state.job.status === 'approved';
  s.view.summary.textContent = `${s.cuts.length} cuts · ${s.removed.length} pauses removed · edited length ${formatTime(editedDurationMs(s.cuts, s.removed))}`;
  renderCutList(s, sources);
  renderPauseList(s);
  refreshLevels(s);
  renderActions(s);
}

/** Follows the playhead: clock, on-air camera and timeline (at most 30 times a second while playing). */
export function refreshPlayhead(s: EditorSession): void {
  // While playing, redraw the timeline at most 30 times a second; lists stay as they are.
  const now = performance.now();
  if (s.player?.isPlaying && now - s.lastPlayheadDraw < 33) return;
  s.lastPlayheadDraw = now;
  if (!s.state || !s.timeline) return;
  const at = playhead(s);
  s.view.clock.textContent = formatTime(at);
  s.root.dataset['playheadMs'] = String(Math.round(at));
  showOnAir(s, at);
  s.timeline.draw(timelineData(s, at));
}

/** How often (ms) the review view asks whether a pending proxy is built. */
const PROXY_POLL_MS = 2000;

/** The cameras a person asked to see at full size (the original), per session. */
const fullSize = new WeakMap<EditorSession, Set<string>>();
/** The job as last loaded for the tiles (fresh signed URLs), per session. */
const tileData = new WeakMap<EditorSession, GetJobResponse>();

/**
 * What a camera's tile plays: its proxy once built, unless a person asked for full size or the
 * job has no programme audio (a proxy has no sound, and the camera on air is then what is heard);
 * else the original.
 */
export function tileMedia(
  source: JobSource,
  data: GetJobResponse,
  full: boolean,
): { url: string | undefined; media: 'proxy' | 'original' } {
  const proxy = data.job.sources.find((x) => x.id === source.id)?.proxy;
  if (!full && proxy?.status === 'ready' && proxy.url && data.audioUrl) return { url: proxy.url, media: 'proxy' };
  return { url: data.sourceUrls[source.id], media: 'original' };
}

/** The line under a camera's tile about its proxy: nothing once it plays, else where it stands or why there is none. */
function proxyNote(source: JobSource | undefined): string {
  const proxy = source?.proxy;
  if (!proxy || proxy.status === 'ready') return '';
  if (proxy.status === 'pending') return 'proxy being built: playing the original';
  const why = proxy.reason ?? 'no reason given';
  return proxy.status === 'unavailable'
    ? `this browser cannot show a proxy of ${source.label}: ${why}`
    : `the proxy of ${source.label} failed (${why}): playing the original`;
}

/** A camera tile per video source, each with its muted video (its proxy when built) and a full-size switch. */
function cameraTiles(
  s: EditorSession,
  data: GetJobResponse,
): Array<{ source: ReturnType<typeof videoSources>[number]; video: HTMLVideoElement; tile: HTMLElement }> {
  const full = fullSize.get(s) ?? new Set<string>();
  fullSize.set(s, full);
  return videoSources(s).map((source, i) => {
    const video = el('video', { muted: true, playsinline: true, preload: 'auto', 'data-source-id': source.id });
    video.muted = true;
    const { url, media } = tileMedia(source, data, full.has(source.id));
    video.dataset['media'] = media;
    if (url) video.src = url;
    const toggle = el('button', {
      type: 'button',
      class: 'full-size',
      text: 'Full size',
      title: 'Play the original file in this tile instead of its light proxy',
      hidden: media !== 'proxy',
      onclick: () => {
        if (full.has(source.id)) full.delete(source.id);
        else full.add(source.id);
        const latest = tileData.get(s);
        if (latest) updateTileMedia(s, latest);
      },
    });
    const note = el('small', { class: 'proxy-note', text: proxyNote(source) });
    return {
      source,
      video,
      tile: el(
        'figure',
        {
          class: 'camera',
          'data-source-id': source.id,
          'data-proxy': source.proxy?.status ?? 'none',
          style: `--cam:${cameraColour(i)}`,
        },
        video,
        el('figcaption', {}, el('kbd', { text: String(i + 1) }), ' ', source.label),
        el('div', { class: 'tile-proxy' }, toggle, note),
      ),
    };
  });
}

/**
 * Brings the tiles in step with the job as loaded now: a camera whose proxy was just built
 * switches to it at the playhead (or back to the original for a full-size look); each tile's
 * note says where its proxy stands.
 */
export function updateTileMedia(s: EditorSession, data: GetJobResponse): void {
  tileData.set(s, data);
  const full = fullSize.get(s) ?? new Set<string>();
  for (const tile of s.view.tiles.querySelectorAll<HTMLElement>('figure.camera')) {
    const id = tile.dataset['sourceId'];
    const source = data.job.sources.find((x) => x.id === id);
    const video = tile.querySelector('video');
    if (!source || !video) continue;
    tile.dataset['proxy'] = source.proxy?.status ?? 'none';
    const { url, media } = tileMedia(source, data, full.has(source.id));
    if (url && video.dataset['media'] !== media) s.player?.setMedia(source.id, url, media);
    const toggle = tile.querySelector<HTMLButtonElement>('button.full-size');
    if (toggle) {
      toggle.hidden = source.proxy?.status !== 'ready' || !data.audioUrl;
      toggle.textContent = full.has(source.id) ? 'Proxy' : 'Full size';
    }
    const note = tile.querySelector('.proxy-note');
    if (note) note.textContent = proxyNote(source);
  }
}

/** Asks for the job every few seconds while a camera's proxy is pending, and switches each tile as its proxy is built. */
function followProxies(s: EditorSession, data: GetJobResponse): void {
  const player = s.player;
  const pending = (d: GetJobResponse): boolean =>
    d.job.sources.some((x) => x.kind === 'video' && x.proxy?.status === 'pending');
  const tick = async (): Promise<void> => {
    if (s.abort.signal.aborted || s.player !== player) return;
    const next = await s.api.getJob(s.jobId).catch(() => null);
    if (s.abort.signal.aborted || s.player !== player) return;
    if (next) updateTileMedia(s, next);
    if (!next || pending(next)) setTimeout(() => void tick(), PROXY_POLL_MS);
  };
  if (pending(data)) setTimeout(() => void tick(), PROXY_POLL_MS);
}

/** Draws the review view for a ready, complete or approved job, with a new player, thumbnails and timeline. */
export function renderReview(s: EditorSession, data: GetJobResponse): void {
  s.player?.dispose();
  const sources = videoSources(s);
  const tracks = cameraTiles(s, data);
  s.view.tiles.replaceChildren(...tracks.map((t) => t.tile));
  const audio = data.audioUrl ? el('audio', { src: data.audioUrl, preload: 'auto' }) : null;
  s.player = new SyncedPlayer(
    tracks.map(({ source, video }) => ({ source, video })),
    audio,
    totalMs(s),
    () => refreshPlayhead(s),
  );
  s.thumbnails?.dispose();
  s.thumbnails = new Thumbnails(sources, data.sourceUrls, () => {
    s.root.dataset['thumbnails'] = String(s.thumbnails?.readyCount ?? 0);
    if (!s.player?.isPlaying) s.timeline?.draw(timelineData(s, playhead(s)));
  });
  const timeline = new Timeline(timelineData(s, 0), {
    seek: (ms) => {
      s.selectedCut = cutIndexAt(s.cuts, ms);
      s.player?.seek(ms);
      refreshEdit(s);
    },
    moveBoundary: (index, ms) => s.edit({ cuts: moveBoundary(s.cuts, index, ms) }),
  });
  s.timeline = timeline;
  const play = el('button', {
    type: 'button',
    class: 'play',
    text: 'Play / pause (space)',
    onclick: () => s.player?.toggle(),
  });
  s.body.replaceChildren(
    s.view.tiles,
    el(
      'div',
      { class: 'transport' },
      play,
      s.view.clock,
      el('button', { type: 'button', class: 'zoom-in', text: 'Zoom in', onclick: () => s.timeline?.zoom(2) }),
      el('button', { type: 'button', class: 'zoom-out', text: 'Zoom out', onclick: () => s.timeline?.zoom(0.5) }),
      el('span', {
        class: 'hint',
        text: 'Keys: space play/pause · ←/→ one frame (shift: 1 s) · 1–9 camera from the playhead',
      }),
    ),
    timeline.canvas,
    s.view.summary,
    s.view.actions,
    el(
      'fieldset',
      { class: 'edit-controls' },
      el(
        'div',
        { class: 'lists' },
        el('section', {}, el('h2', { text: 'Cuts' }), s.view.cutList),
        el('section', {}, el('h2', { text: 'Pauses' }), s.view.pauseList),
      ),
      levelsPanel(s, data),
      mappingCorrection(s, data),
    ),
  );
  refreshEdit(s);
  s.player.seek(0);
  tileData.set(s, data);
  followProxies(s, data);
  loadWaveform(s, data);
}

/** The waveform: the programme audio, else the first camera's own sound at its offset (once). */
function loadWaveform(s: EditorSession, data: GetJobResponse): void {
  const first = videoSources(s)[0];
  const waveUrl = data.audioUrl ?? (first ? data.sourceUrls[first.id] : undefined);
  if (waveUrl && !s.peaks) {
    decodePeaks(waveUrl, data.audioUrl ? 0 : (first?.offsetMs ?? 0), s.abort.signal)
      .then((p) => {
        s.peaks = p;
        s.root.dataset['waveform'] = p ? 'decoded' : 'none';
        refreshEdit(s);
      })
      .catch(() => (s.root.dataset['waveform'] = 'none'));
  }
}
