/**
 * The review editor behind `reviewUrl`: it opens one job with the link's review token and
 * lets a person confirm the speaker-to-camera mapping, review and edit the cuts against the
 * synced cameras, remove or restore pauses, recut with another preset, render, approve and
 * download. Every edit is saved to the service at once (updateCuts), so nothing is lost on
 * reload. All user data is rendered as text (see dom.ts).
 *
 * @module
 */
import { ApiError } from '../../contract/errors.ts';
import {
  PRESET_IDS,
  SILENCE_MODES,
  type Cut,
  type GetJobResponse,
  type JobSource,
  type PresetId,
  type SilenceMode,
  type TimeRange,
  type Track,
} from '../../contract/types.ts';
import type { ExportFormat } from '../../export/index.ts';
import { jobIdOfReviewToken, reviewClient } from './api.ts';
import { cameraColour, el } from './dom.ts';
import {
  cutIndexAt,
  editedDurationMs,
  formatTime,
  listPauses,
  moveBoundary,
  pickCameraAt,
  removeRange,
  restoreRange,
  setCutCamera,
  speakerLanes,
  stepMs,
  timelineEndMs,
} from './model.ts';
import { SyncedPlayer } from './player.ts';
import { Thumbnails } from './thumbnails.ts';
import { Timeline, type TimelineData } from './timeline.ts';

/** Options of {@link mountReviewEditor}. */
export interface ReviewEditorOptions {
  /** The API base URL (origin plus base path), e.g. `http://127.0.0.1:5173/api`. */
  baseUrl: string;
  /** The review token from the link's `token` query parameter (null when absent). */
  token: string | null;
  /** How often to refresh the job while a background stage runs; default 1000 ms. */
  pollMs?: number;
}

/** A mounted editor; `dispose()` stops playback, polling and listeners. */
export interface ReviewEditor {
  dispose(): void;
}

/** Peaks per second of the waveform. */
const PEAKS_PER_SECOND = 50;

/** Shows the page for a review link that is missing, expired or not valid. */
function showInvalidLink(root: HTMLElement, detail: string): void {
  root.replaceChildren(
    el(
      'section',
      { class: 'invalid-link', role: 'alert' },
      el('h1', { text: 'This review link has expired or is not valid' }),
      el('p', { text: 'Review links are valid for 72 hours after the job reached mapping or ready.' }),
      el('p', {
        text: 'Ask the person who sent it for a new link: whoever created the job can get a fresh one from the job (getJob with view=summary, or the next webhook).',
      }),
      el('p', { class: 'detail', text: detail }),
    ),
  );
}

/** The message a failed request shows: the Error body's message (naming the field) and its code. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError)
    return `${error.body.error}${error.code ? ` (${error.code})` : ''} [HTTP ${error.status}]`;
  return error instanceof Error ? error.message : String(error);
}

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

/**
 * Mounts the review editor into `root`.
 *
 * @example
 * mountReviewEditor(document.getElementById('app')!, { baseUrl: `${location.origin}/api`, token: new URLSearchParams(location.search).get('token') });
 */
export function mountReviewEditor(root: HTMLElement, options: ReviewEditorOptions): ReviewEditor {
  const token = options.token;
  const tokenJobId = token ? jobIdOfReviewToken(token) : null;
  if (!token || !tokenJobId) {
    showInvalidLink(root, token ? 'The link’s token is not in the expected form.' : 'The link has no token.');
    return { dispose() {} };
  }
  const jobId: string = tokenJobId;
  const api = reviewClient(options.baseUrl, token);
  const abort = new AbortController();
  let state: GetJobResponse | null = null;
  let cuts: Cut[] = [];
  let removed: TimeRange[] = [];
  let selectedCut = -1;
  let player: SyncedPlayer | null = null;
  let timeline: Timeline | null = null;
  let thumbnails: Thumbnails | null = null;
  let peaks: Float32Array | null = null;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let saving: Promise<void> = Promise.resolve();
  let renderedStatus = '';
  let preset: PresetId = 'balanced';
  let silenceMode: SilenceMode = 'tighten';

  const status = el('p', { class: 'status', 'aria-live': 'polite' });
  const errorBox = el('p', { class: 'error', role: 'alert', hidden: true });
  const body = el('div', { class: 'editor-body' });
  root.replaceChildren(el('header', {}, el('h1', { class: 'job-title' }), status), errorBox, body);

  const showError = (error: unknown): void => {
    errorBox.hidden = false;
    errorBox.textContent = describeError(error);
  };
  const clearError = (): void => {
    errorBox.hidden = true;
    errorBox.textContent = '';
  };
  const setStatus = (text: string): void => {
    status.textContent = text;
  };

  const videoSources = (): JobSource[] => (state ? state.job.sources.filter((s) => s.kind === 'video') : []);
  const cameraIds = (): string[] => videoSources().map((s) => s.id);
  const totalMs = (): number =>
    state ? Math.max(1000, timelineEndMs(state.job.sources, cuts, state.job.turns)) : 1000;
  const playhead = (): number => player?.timeMs ?? 0;

  /** Saves the edit now; saves run one after another so the last edit wins. */
  const save = (): Promise<void> => {
    const snapshot = { cuts: cuts.map((c) => ({ ...c })), removedRanges: removed.map((r) => ({ ...r })) };
    saving = saving.then(async () => {
      setStatus('Saving…');
      try {
        await api.updateCuts(jobId, snapshot);
        clearError();
        setStatus(`Saved at ${new Date().toLocaleTimeString()}`);
        root.dataset['saved'] = String(Number(root.dataset['saved'] ?? '0') + 1);
      } catch (error) {
        showError(error);
        setStatus('Not saved');
      }
    });
    return saving;
  };

  const edit = (next: { cuts?: Cut[]; removed?: TimeRange[] }): void => {
    if (next.cuts) cuts = next.cuts;
    if (next.removed) removed = next.removed;
    refreshEdit();
    void save();
  };

  // ------------------------------------------------------------------ mapping
  /**
   * The mapping form: a fieldset per camera with a checkbox per speaker, prefilled from
   * `prefill` (the camera map's proposal in mapping, the tracks in force later).
   */
  const mappingForm = (
    data: GetJobResponse,
    prefill: (sourceId: string) => string[],
    submitLabel: string,
    send: (tracks: Track[]) => Promise<unknown>,
  ): HTMLFormElement => {
    const map = data.job.camera_map;
    const speakers = map?.speakers.length ? map.speakers : speakerLanes(data.job.turns);
    const forms = videoSources().map((source, i) => {
      const proposal = map?.cameras.find((c) => c.sourceId === source.id);
      const ticked = prefill(source.id);
      const boxes = speakers.map((speaker) =>
        el(
          'label',
          { class: 'speaker' },
          el('input', {
            type: 'checkbox',
            name: `speakers-${source.id}`,
            value: speaker,
            checked: ticked.includes(speaker),
            'data-speaker': speaker,
          }),
          ` ${speaker}`,
        ),
      );
      return el(
        'fieldset',
        { class: 'camera-mapping', 'data-source-id': source.id, style: `border-color:${cameraColour(i)}` },
        el('legend', {}, `${i + 1} · `, source.label),
        proposal
          ? el('p', {
              class: 'proposal',
              text: `Proposed: ${proposal.kind}, confidence ${proposal.confidence}${proposal.reason ? ` — ${proposal.reason}` : ''}`,
            })
          : null,
        ...boxes,
      );
    });
    const submit = el('button', { type: 'submit', class: 'primary', text: submitLabel });
    const form = el('form', { class: 'mapping' }, ...forms, submit);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const tracks: Track[] = videoSources().map((source) => ({
        sourceId: source.id,
        speakers: [
          ...form.querySelectorAll<HTMLInputElement>(
            `fieldset[data-source-id="${CSS.escape(source.id)}"] input:checked`,
          ),
        ].map((b) => b.value),
      }));
      submit.disabled = true;
      send(tracks)
        .then(() => {
          clearError();
          return load();
        })
        .catch(showError)
        .finally(() => (submit.disabled = false));
    });
    return form;
  };

  // ------------------------------------------------------------------ mapping
  const renderMapping = (data: GetJobResponse): void => {
    const map = data.job.camera_map;
    const form = mappingForm(
      data,
      (id) => map?.cameras.find((c) => c.sourceId === id)?.speakers ?? [],
      'Confirm mapping',
      (tracks) => api.submitSpeakerMapping(jobId, { tracks }),
    );
    body.replaceChildren(
      el('h2', { text: 'Which speakers does each camera show?' }),
      el('p', {
        text: map
          ? 'The proposal from the camera map is filled in; change it where it is wrong.'
          : 'No camera map was computed: tick the speakers each camera shows.',
      }),
      form,
    );
  };

  /** In ready or complete: changing the mapping is a correction sent with the current cuts. */
  const mappingCorrection = (data: GetJobResponse): HTMLElement =>
    el(
      'details',
      { class: 'mapping-correction' },
      el('summary', { text: 'Speaker mapping' }),
      el('p', {
        text: 'Changing the mapping keeps your cuts as they are; recut to regenerate them from the new mapping.',
      }),
      mappingForm(
        data,
        (id) => data.job.tracks.find((t) => t.sourceId === id)?.speakers ?? [],
        'Save mapping',
        (tracks) => saving.then(() => api.submitSpeakerMapping(jobId, { tracks, cuts, removedRanges: removed })),
      ),
    );

  // ------------------------------------------------------------------ review (ready / complete / …)
  const timelineData = (at: number): TimelineData => ({
    totalMs: totalMs(),
    cuts,
    removed,
    turns: state?.job.turns ?? [],
    cameraIds: cameraIds(),
    peaks,
    peakStepMs: 1000 / PEAKS_PER_SECOND,
    playheadMs: at,
    selectedCut,
    thumbnail: (sourceId, refMs) => thumbnails?.get(sourceId, refMs),
  });
  const cutList = el('ol', { class: 'cut-list' });
  const pauseList = el('ul', { class: 'pause-list' });
  const summary = el('p', { class: 'edit-summary' });
  const tiles = el('div', { class: 'cameras' });
  const clock = el('span', { class: 'clock', text: '0:00.0' });
  const actions = el('div', { class: 'actions' });

  const refreshEdit = (): void => {
    if (!state) return;
    const sources = videoSources();
    const labelOf = (id: string): string => sources.find((s) => s.id === id)?.label ?? id;
    const at = playhead();
    const onAir = cuts[cutIndexAt(cuts, at)]?.sourceId ?? null;
    for (const tile of tiles.querySelectorAll<HTMLElement>('figure'))
      tile.toggleAttribute('data-on-air', tile.dataset['sourceId'] === onAir);
    player?.setOnAir(onAir);
    clock.textContent = formatTime(at);
    timeline?.draw(timelineData(at));
    // An approved job is final: the service refuses edits, so the controls are read-only.
    const controls = body.querySelector<HTMLFieldSetElement>('fieldset.edit-controls');
    if (controls) controls.disabled = state.job.status === 'approved';
    summary.textContent = `${cuts.length} cuts · ${removed.length} pauses removed · edited length ${formatTime(editedDurationMs(cuts, removed))}`;
    cutList.replaceChildren(
      ...cuts.map((cut, i) => {
        const camera = el(
          'select',
          {
            class: 'cut-camera',
            'aria-label': `camera of cut ${i + 1}`,
            onchange: (e) => edit({ cuts: setCutCamera(cuts, i, (e.target as HTMLSelectElement).value) }),
          },
          ...sources.map((s, k) => el('option', { value: s.id }, `${k + 1} · `, s.label)),
        );
        camera.value = cut.sourceId;
        const end =
          i + 1 < cuts.length
            ? el('input', {
                type: 'number',
                class: 'cut-end',
                step: '0.1',
                min: '0',
                value: (cut.endMs / 1000).toFixed(1),
                'aria-label': `end of cut ${i + 1} in seconds`,
                onchange: (e) => {
                  const seconds = Number((e.target as HTMLInputElement).value);
                  if (Number.isFinite(seconds)) edit({ cuts: moveBoundary(cuts, i, seconds * 1000) });
                },
              })
            : el('span', { class: 'cut-end-fixed', text: formatTime(cut.endMs) });
        return el(
          'li',
          {
            class: i === selectedCut ? 'cut selected' : 'cut',
            'data-index': i,
            'data-source-id': cut.sourceId,
            title: cut.reason ?? '',
            style: `border-left-color:${cameraColour(cameraIds().indexOf(cut.sourceId))}`,
          },
          el(
            'button',
            {
              type: 'button',
              class: 'cut-seek',
              onclick: () => {
                selectedCut = i;
                player?.seek(cut.startMs);
              },
            },
            formatTime(cut.startMs),
          ),
          ' → ',
          end,
          ' ',
          camera,
          el('span', { class: 'cut-label', text: labelOf(cut.sourceId) }),
          el('span', { class: 'cut-reason', text: cut.reason ?? '' }),
        );
      }),
    );
    pauseList.replaceChildren(
      ...listPauses(state.job.turns, removed, totalMs()).map((pause) =>
        el(
          'li',
          {
            class: pause.removed ? 'pause removed' : 'pause',
            'data-start-ms': pause.startMs,
            'data-end-ms': pause.endMs,
          },
          `${formatTime(pause.startMs)} – ${formatTime(pause.endMs)} (${((pause.endMs - pause.startMs) / 1000).toFixed(1)} s) `,
          el('button', {
            type: 'button',
            class: pause.removed ? 'restore' : 'remove',
            text: pause.removed ? 'Restore' : 'Remove',
            onclick: () =>
              edit({ removed: pause.removed ? restoreRange(removed, pause) : removeRange(removed, pause) }),
          }),
        ),
      ),
    );
    refreshActions();
  };

  const refreshActions = (): void => {
    if (!state) return;
    const { job } = state;
    const editable = job.status === 'ready' || job.status === 'complete';
    const presetSelect = el(
      'select',
      {
        class: 'preset',
        'aria-label': 'preset',
        onchange: (e) => (preset = (e.target as HTMLSelectElement).value as PresetId),
      },
      ...PRESET_IDS.map((p) => el('option', { value: p, text: p })),
    );
    presetSelect.value = preset;
    const silenceSelect = el(
      'select',
      {
        class: 'silence',
        'aria-label': 'silence mode',
        onchange: (e) => (silenceMode = (e.target as HTMLSelectElement).value as SilenceMode),
      },
      ...SILENCE_MODES.map((m) => el('option', { value: m, text: m })),
    );
    silenceSelect.value = silenceMode;
    const recut = el('button', {
      type: 'button',
      class: 'recut',
      text: 'Recut',
      disabled: !editable,
      onclick: () => {
        recut.disabled = true;
        api
          .recutJob(jobId, { presetId: preset, silence: { mode: silenceMode } })
          .then((r) => {
            cuts = r.cuts;
            removed = r.removedRanges;
            selectedCut = -1;
            clearError();
            setStatus(
              `Recut with ${r.presetId}: ${r.cuts.length} cuts, ${(r.savedMs / 1000).toFixed(1)} s of pauses removed`,
            );
            refreshEdit();
          })
          .catch(showError)
          .finally(() => (recut.disabled = false));
      },
    });
    const render = el('button', {
      type: 'button',
      class: 'render primary',
      text: job.status === 'complete' ? 'Render again' : 'Render',
      disabled: !editable,
      onclick: () => {
        render.disabled = true;
        saving.then(() => api.startRender(jobId)).then(() => load(), showError);
      },
    });
    const approve = el('button', {
      type: 'button',
      class: 'approve',
      text: 'Approve',
      disabled: job.status !== 'complete',
      onclick: () => {
        approve.disabled = true;
        api.approveJob(jobId).then(() => load(), showError);
      },
    });
    const download = job.output_url
      ? el('a', {
          class: 'download',
          href: job.output_url,
          download: `${job.title ?? job.id}.mp4`,
          text: 'Download the render',
        })
      : null;
    // Export for editing software: the cameras stay switchable in Final Cut, Resolve, Premiere and Avid.
    const exportSelect = el(
      'select',
      { class: 'export-format', 'aria-label': 'Export format' },
      el('option', { value: 'fcpxml', text: 'Final Cut Pro / Resolve (FCPXML)' }),
      el('option', { value: 'xmeml', text: 'Premiere Pro (XML)' }),
      el('option', { value: 'otio', text: 'OpenTimelineIO (.otio)' }),
      el('option', { value: 'edl', text: 'Avid / any (CMX 3600 EDL)' }),
    );
    const exportButton = el('button', {
      type: 'button',
      class: 'export',
      text: 'Export edit',
      disabled: job.cuts.length === 0,
      onclick: () => {
        exportButton.disabled = true;
        saving
          .then(() => api.exportEdit(jobId, exportSelect.value as ExportFormat))
          .then(({ body, contentType, filename }) => {
            // A plain link cannot carry the review token's Authorization header, hence a Blob.
            const url = URL.createObjectURL(new Blob([body], { type: contentType }));
            const link = el('a', { href: url, download: filename });
            link.click();
            setTimeout(() => URL.revokeObjectURL(url), 60_000);
          }, showError)
          .finally(() => {
            exportButton.disabled = false;
          });
      },
    });
    actions.replaceChildren(
      el('label', {}, 'Preset ', presetSelect),
      el('label', {}, ' Silence ', silenceSelect),
      recut,
      render,
      approve,
      ...(download ? [download] : []),
      el('span', { class: 'export-menu' }, exportSelect, exportButton),
    );
  };

  const renderReview = (data: GetJobResponse): void => {
    player?.dispose();
    const sources = videoSources();
    const tracks = sources.map((source, i) => {
      const video = el('video', { muted: true, playsinline: true, preload: 'auto', 'data-source-id': source.id });
      video.muted = true;
      const url = data.sourceUrls[source.id];
      if (url) video.src = url;
      return {
        source,
        video,
        tile: el(
          'figure',
          { class: 'camera', 'data-source-id': source.id, style: `--cam:${cameraColour(i)}` },
          video,
          el('figcaption', {}, el('kbd', { text: String(i + 1) }), ' ', source.label),
        ),
      };
    });
    tiles.replaceChildren(...tracks.map((t) => t.tile));
    const audio = data.audioUrl ? el('audio', { src: data.audioUrl, preload: 'auto' }) : null;
    player = new SyncedPlayer(
      tracks.map(({ source, video }) => ({ source, video })),
      audio,
      totalMs(),
      () => refreshPlayhead(),
    );
    thumbnails?.dispose();
    thumbnails = new Thumbnails(sources, data.sourceUrls, () => {
      root.dataset['thumbnails'] = String(thumbnails?.readyCount ?? 0);
      if (!player?.isPlaying) timeline?.draw(timelineData(playhead()));
    });
    timeline = new Timeline(timelineData(0), {
      seek: (ms) => {
        selectedCut = cutIndexAt(cuts, ms);
        player?.seek(ms);
        refreshEdit();
      },
      moveBoundary: (index, ms) => edit({ cuts: moveBoundary(cuts, index, ms) }),
    });
    const play = el('button', {
      type: 'button',
      class: 'play',
      text: 'Play / pause (space)',
      onclick: () => player?.toggle(),
    });
    body.replaceChildren(
      tiles,
      el(
        'div',
        { class: 'transport' },
        play,
        clock,
        el('button', { type: 'button', class: 'zoom-in', text: 'Zoom in', onclick: () => timeline?.zoom(2) }),
        el('button', { type: 'button', class: 'zoom-out', text: 'Zoom out', onclick: () => timeline?.zoom(0.5) }),
        el('span', {
          class: 'hint',
          text: 'Keys: space play/pause · ←/→ one frame (shift: 1 s) · 1–9 camera from the playhead',
        }),
      ),
      timeline.canvas,
      summary,
      actions,
      el(
        'fieldset',
        { class: 'edit-controls' },
        el(
          'div',
          { class: 'lists' },
          el('section', {}, el('h2', { text: 'Cuts' }), cutList),
          el('section', {}, el('h2', { text: 'Pauses' }), pauseList),
        ),
        mappingCorrection(data),
      ),
    );
    refreshEdit();
    player.seek(0);
    // The waveform: the programme audio, else the first camera's own sound at its offset.
    const first = sources[0];
    const waveUrl = data.audioUrl ?? (first ? data.sourceUrls[first.id] : undefined);
    if (waveUrl && !peaks) {
      decodePeaks(waveUrl, data.audioUrl ? 0 : (first?.offsetMs ?? 0), abort.signal)
        .then((p) => {
          peaks = p;
          root.dataset['waveform'] = p ? 'decoded' : 'none';
          refreshEdit();
        })
        .catch(() => (root.dataset['waveform'] = 'none'));
    }
  };

  let lastPlayheadDraw = 0;
  const refreshPlayhead = (): void => {
    // While playing, redraw the timeline at most 30 times a second; lists stay as they are.
    const now = performance.now();
    if (player?.isPlaying && now - lastPlayheadDraw < 33) return;
    lastPlayheadDraw = now;
    if (!state || !timeline) return;
    const at = playhead();
    clock.textContent = formatTime(at);
    root.dataset['playheadMs'] = String(Math.round(at));
    const onAir = cuts[cutIndexAt(cuts, at)]?.sourceId ?? null;
    for (const tile of tiles.querySelectorAll<HTMLElement>('figure'))
      tile.toggleAttribute('data-on-air', tile.dataset['sourceId'] === onAir);
    player?.setOnAir(onAir);
    timeline.draw(timelineData(at));
  };

  const renderWaiting = (data: GetJobResponse): void => {
    const text: Record<string, string> = {
      created: 'The files are not uploaded yet.',
      uploading: 'The files are being uploaded.',
      syncing: 'The cameras are being synchronised.',
      diarizing: 'Finding who speaks when.',
      rendering: 'Rendering the edit…',
      failed: `Processing failed${data.job.failed_at_status ? ` at ${data.job.failed_at_status}` : ''}: ${data.job.error_message ?? 'no message'}`,
    };
    body.replaceChildren(el('p', { class: 'waiting', text: text[data.job.status] ?? data.job.status }));
  };

  const onKey = (event: KeyboardEvent): void => {
    if (!state || !player || !['ready', 'complete', 'approved'].includes(state.job.status)) return;
    const target = event.target as HTMLElement | null;
    if (target && (target.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName))) return;
    if (event.key === ' ') {
      event.preventDefault();
      player.toggle();
    } else if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      event.preventDefault();
      const first = videoSources()[0];
      const step = stepMs(first?.frameRate, event.shiftKey);
      player.pause();
      player.seek(playhead() + (event.key === 'ArrowRight' ? step : -step));
    } else if (/^[1-9]$/.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
      const source = videoSources()[Number(event.key) - 1];
      if (!source || state.job.status === 'approved') return;
      event.preventDefault();
      const at = playhead();
      const next = pickCameraAt(cuts, at, source.id);
      selectedCut = cutIndexAt(next, at);
      edit({ cuts: next });
    }
  };
  document.addEventListener('keydown', onKey);

  async function load(): Promise<void> {
    clearTimeout(pollTimer);
    let data: GetJobResponse;
    try {
      data = await api.getJob(jobId);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        dispose();
        showInvalidLink(root, error.body.error);
        return;
      }
      showError(error);
      pollTimer = setTimeout(() => void load(), 5000);
      return;
    }
    state = data;
    root.dataset['status'] = data.job.status;
    const title = root.querySelector('.job-title');
    if (title) title.textContent = data.job.title ?? 'Untitled job';
    document.title = `Review · ${data.job.title ?? data.job.id}`;
    const editing = ['ready', 'complete', 'approved'].includes(data.job.status);
    if (data.job.status === 'mapping') {
      if (renderedStatus !== 'mapping') renderMapping(data);
      setStatus('Confirm which speakers each camera shows.');
    } else if (editing) {
      cuts = data.job.cuts;
      removed = data.job.removed_ranges ?? [];
      if (!['ready', 'complete', 'approved'].includes(renderedStatus)) renderReview(data);
      else refreshEdit();
      setStatus(
        data.job.status === 'ready'
          ? 'Review the cuts, then render.'
          : data.job.status === 'complete'
            ? 'The render is ready: download it, edit more and render again, or approve it.'
            : 'Approved.',
      );
    } else {
      player?.dispose();
      player = null;
      thumbnails?.dispose();
      thumbnails = null;
      timeline = null;
      renderWaiting(data);
      setStatus(data.job.status);
    }
    renderedStatus = data.job.status;
    root.dataset['ready'] = '1';
    const background = ['created', 'uploading', 'syncing', 'diarizing', 'rendering'].includes(data.job.status);
    if (background && !abort.signal.aborted) pollTimer = setTimeout(() => void load(), options.pollMs ?? 1000);
  }

  function dispose(): void {
    abort.abort();
    clearTimeout(pollTimer);
    document.removeEventListener('keydown', onKey);
    player?.dispose();
    player = null;
    thumbnails?.dispose();
    thumbnails = null;
  }

  void load();
  return { dispose };
}
