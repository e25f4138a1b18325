/**
 * The review editor behind `reviewUrl`: it opens one job with the link's review token and
 * lets a person confirm the speaker-to-camera mapping, review and edit the cuts against the
 * synced cameras, remove or restore pauses, see and nudge each source's sound level, recut with
 * another preset, render, approve and download. Every edit is saved to the service at once (updateCuts), so nothing is lost on
 * reload. All user data is rendered as text (see dom.ts).
 *
 * This module mounts the editor, loads the job and picks the view; the parts live beside it:
 * session.ts (the shared state), mapping-panel.ts, review-view.ts, cut-list.ts, levels-panel.ts
 * and actions.ts.
 *
 * @module
 */
import type { MulticamClient } from '../../client/client.ts';
import { ApiError } from '../../contract/errors.ts';
import type { GetJobResponse, JobWarning } from '../../contract/types.ts';
import { jobIdOfReviewToken, reviewClient } from './api.ts';
import { el } from './dom.ts';
import { renderMapping } from './mapping-panel.ts';
import { cutIndexAt, pickCameraAt, stepMs } from './model.ts';
import { refreshEdit, renderReview } from './review-view.ts';
import { playhead, queueSave, videoSources, type EditorSession } from './session.ts';

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
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let renderedStatus = '';
  const status = el('p', { class: 'status', 'aria-live': 'polite' });
  const errorBox = el('p', { class: 'error', role: 'alert', hidden: true });
  // What went wrong without failing the job (a face model not loaded, a webhook not sent…).
  const warningBanner = el('ul', { class: 'warnings', role: 'status', 'aria-label': 'Warnings', hidden: true });
  const body = el('div', { class: 'editor-body' });
  root.replaceChildren(el('header', {}, el('h1', { class: 'job-title' }), status), errorBox, warningBanner, body);

  const s = createSession(root, body, reviewClient(options.baseUrl, token), tokenJobId, {
    status,
    errorBox,
    load: () => load(),
  });

  const onKey = (event: KeyboardEvent): void => onEditorKey(s, event);
  document.addEventListener('keydown', onKey);

  async function load(): Promise<void> {
    clearTimeout(pollTimer);
    let data: GetJobResponse;
    try {
      data = await s.api.getJob(s.jobId);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        dispose();
        showInvalidLink(root, error.body.error);
        return;
      }
      s.showError(error);
      pollTimer = setTimeout(() => void load(), 5000);
      return;
    }
    // Before the job's view, so the banner shows even when that view cannot be drawn.
    showWarnings(warningBanner, data.job.warnings ?? []);
    showJob(s, data, renderedStatus);
    renderedStatus = data.job.status;
    root.dataset['ready'] = '1';
    const background = ['created', 'uploading', 'syncing', 'diarizing', 'rendering'].includes(data.job.status);
    if (background && !s.abort.signal.aborted) pollTimer = setTimeout(() => void load(), options.pollMs ?? 1000);
  }

  function dispose(): void {
    s.abort.abort();
    clearTimeout(pollTimer);
    document.removeEventListener('keydown', onKey);
    s.player?.dispose();
    s.player = null;
    s.thumbnails?.dispose();
    s.thumbnails = null;
  }

  void load();
  return { dispose };
}

/** The job's warnings as a banner, one line each, in plain words; hidden when there are none. */
function showWarnings(banner: HTMLUListElement, warnings: readonly JobWarning[]): void {
  banner.replaceChildren(
    ...warnings.map((w) =>
      el('li', { 'data-code': w.code }, `${w.message.charAt(0).toUpperCase()}${w.message.slice(1)}.`),
    ),
  );
  banner.hidden = warnings.length === 0;
}

/** A new session of the editor, before the first load; `ui` holds the header's status and error lines. */
function createSession(
  root: HTMLElement,
  body: HTMLElement,
  api: MulticamClient,
  jobId: string,
  ui: { status: HTMLElement; errorBox: HTMLElement; load: () => Promise<void> },
): EditorSession {
  const s: EditorSession = {
    root,
    body,
    api,
    jobId,
    abort: new AbortController(),
    view: {
      cutList: el('ol', { class: 'cut-list' }),
      pauseList: el('ul', { class: 'pause-list' }),
      summary: el('p', { class: 'edit-summary' }),
      tiles: el('div', { class: 'cameras' }),
      clock: el('span', { class: 'clock', text: '0:00.0' }),
      actions: el('div', { class: 'actions' }),
    },
    state: null,
    cuts: [],
    removed: [],
    gains: {},
    selectedCut: -1,
    player: null,
    timeline: null,
    thumbnails: null,
    peaks: null,
    saving: Promise.resolve(),
    preset: 'balanced',
    silenceMode: 'tighten',
    lastPlayheadDraw: 0,
    showError: (error) => {
      ui.errorBox.hidden = false;
      ui.errorBox.textContent = describeError(error);
    },
    clearError: () => {
      ui.errorBox.hidden = true;
      ui.errorBox.textContent = '';
    },
    setStatus: (text) => {
      ui.status.textContent = text;
    },
    edit: (next) => {
      if (next.cuts) s.cuts = next.cuts;
      if (next.removed) s.removed = next.removed;
      refreshEdit(s);
      void save(s);
    },
    refreshEdit: () => refreshEdit(s),
    load: () => ui.load(),
  };
  return s;
}

/** Saves the edit now; saves run one after another so the last edit wins. */
function save(s: EditorSession): Promise<void> {
  return queueSave(s, { cuts: s.cuts.map((c) => ({ ...c })), removedRanges: s.removed.map((r) => ({ ...r })) });
}

/** Shows the loaded job: the view its status calls for (`renderedStatus`: the status already drawn). */
function showJob(s: EditorSession, data: GetJobResponse, renderedStatus: string): void {
  s.state = data;
  s.root.dataset['status'] = data.job.status;
  const title = s.root.querySelector('.job-title');
  if (title) title.textContent = data.job.title ?? 'Untitled job';
  document.title = `Review · ${data.job.title ?? data.job.id}`;
  const editing = ['ready', 'complete', 'approved'].includes(data.job.status);
  if (data.job.status === 'mapping') {
    if (renderedStatus !== 'mapping') renderMapping(s, data);
    s.setStatus('Confirm which speakers each camera shows.');
  } else if (editing) {
    s.cuts = data.job.cuts;
    s.removed = data.job.removed_ranges ?? [];
    s.gains = { ...(data.job.audio?.gains ?? {}) };
    if (!['ready', 'complete', 'approved'].includes(renderedStatus)) renderReview(s, data);
    else refreshEdit(s);
    s.setStatus(
      data.job.status === 'ready'
        ? 'Review the cuts, then render.'
        : data.job.status === 'complete'
          ? 'The render is ready: download it, edit more and render again, or approve it.'
          : 'Approved.',
    );
  } else {
    s.player?.dispose();
    s.player = null;
    s.thumbnails?.dispose();
    s.thumbnails = null;
    s.timeline = null;
    renderWaiting(s, data);
    s.setStatus(data.job.status);
  }
}

/** While a background stage runs, or after a failure: what is happening. */
function renderWaiting(s: EditorSession, data: GetJobResponse): void {
  const text: Record<string, string> = {
    created: 'The files are not uploaded yet.',
    uploading: 'The files are being uploaded.',
    syncing: 'The cameras are being synchronised.',
    diarizing: 'Finding who speaks when.',
    rendering: 'Rendering the edit…',
    failed: `Processing failed${data.job.failed_at_status ? ` at ${data.job.failed_at_status}` : ''}: ${data.job.error_message ?? 'no message'}`,
  };
  s.body.replaceChildren(el('p', { class: 'waiting', text: text[data.job.status] ?? data.job.status }));
}

/** The keys of the review view: space play/pause, arrows one frame (shift: 1 s), 1–9 camera from the playhead. */
function onEditorKey(s: EditorSession, event: KeyboardEvent): void {
  const { state, player } = s;
  if (!state || !player || !['ready', 'complete', 'approved'].includes(state.job.status)) return;
  const target = event.target as HTMLElement | null;
  if (target && (target.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName))) return;
  if (event.key === ' ') {
    event.preventDefault();
    player.toggle();
  } else if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
    event.preventDefault();
    const first = videoSources(s)[0];
    const step = stepMs(first?.frameRate, event.shiftKey);
    player.pause();
    player.seek(playhead(s) + (event.key === 'ArrowRight' ? step : -step));
  } else if (/^[1-9]$/.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
    const source = videoSources(s)[Number(event.key) - 1];
    if (!source || state.job.status === 'approved') return;
    event.preventDefault();
    const at = playhead(s);
    const next = pickCameraAt(s.cuts, at, source.id);
    s.selectedCut = cutIndexAt(next, at);
    s.edit({ cuts: next });
  }
}
