/**
 * The action bar of the review editor: preset and silence mode with Recut, Render, Approve,
 * Download, and the export for editing software.
 *
 * @module
 */
import { PRESET_IDS, SILENCE_MODES } from '../../contract/types.ts';
import type { ExportFormat } from '../../export/index.ts';
import { el } from './dom.ts';
import type { EditorSession } from './session.ts';
import { downloadUrl } from '../../client/download.ts';

/** Redraws the action bar for the job's status. */
export function renderActions(s: EditorSession): void {
  if (!s.state) return;
  const { job } = s.state;
  const editable = job.status === 'ready' || job.status === 'complete';
  const download = job.output_url
    ? el('a', {
        class: 'download',
        // Answered by the service worker with Content-Disposition (a `download` attribute would bypass it).
        href: downloadUrl(job.output_url, `${job.title ?? job.id}.mp4`),
        text: 'Download the render',
      })
    : null;
  s.view.actions.replaceChildren(
    ...recutControls(s, editable),
    renderButton(s, editable, job.status === 'complete'),
    approveButton(s, job.status === 'complete'),
    ...(download ? [download] : []),
    exportMenu(s, job.cuts.length === 0),
  );
}

/** Preset, silence mode and Recut: a new plan from the service replaces the edit. */
function recutControls(s: EditorSession, editable: boolean): HTMLElement[] {
  const presetSelect = optionSelect('preset', 'preset', PRESET_IDS, s.preset, (v) => (s.preset = v));
  const silenceSelect = optionSelect(
    'silence',
    'silence mode',
    SILENCE_MODES,
    s.silenceMode,
    (v) => (s.silenceMode = v),
  );
  const recut = el('button', {
    type: 'button',
    class: 'recut',
    text: 'Recut',
    disabled: !editable,
    onclick: () => {
      recut.disabled = true;
      s.api
        .recutJob(s.jobId, { presetId: s.preset, silence: { mode: s.silenceMode } })
        .then((r) => {
          s.cuts = r.cuts;
          s.removed = r.removedRanges;
          s.selectedCut = -1;
          s.clearError();
          s.setStatus(
            `Recut with ${r.presetId}: ${r.cuts.length} cuts, ${(r.savedMs / 1000).toFixed(1)} s of pauses removed`,
          );
          s.refreshEdit();
        })
        .catch((error: unknown) => s.showError(error))
        .finally(() => (recut.disabled = false));
    },
  });
  return [el('label', {}, 'Preset ', presetSelect), el('label', {}, ' Silence ', silenceSelect), recut];
}

/** A select of `values` showing `current`; `choose` gets the value picked. */
function optionSelect<T extends string>(
  className: string,
  label: string,
  values: readonly T[],
  current: T,
  choose: (value: T) => void,
): HTMLSelectElement {
  const select = el(
    'select',
    {
      class: className,
      'aria-label': label,
      onchange: (e) => choose((e.target as HTMLSelectElement).value as T),
    },
    ...values.map((v) => el('option', { value: v, text: v })),
  );
  select.value = current;
  return select;
}

/** Render (again): after the pending saves, the service renders the edit. */
function renderButton(s: EditorSession, editable: boolean, complete: boolean): HTMLButtonElement {
  const render = el('button', {
    type: 'button',
    class: 'render primary',
    text: complete ? 'Render again' : 'Render',
    disabled: !editable,
    onclick: () => {
      render.disabled = true;
      s.saving
        .then(() => s.api.startRender(s.jobId))
        .then(
          () => s.load(),
          (error: unknown) => s.showError(error),
        );
    },
  });
  return render;
}

/** Approve: only a complete job. */
function approveButton(s: EditorSession, complete: boolean): HTMLButtonElement {
  const approve = el('button', {
    type: 'button',
    class: 'approve',
    text: 'Approve',
    disabled: !complete,
    onclick: () => {
      approve.disabled = true;
      s.api.approveJob(s.jobId).then(
        () => s.load(),
        (error: unknown) => s.showError(error),
      );
    },
  });
  return approve;
}

/** Export for editing software: the cameras stay switchable in Final Cut, Resolve, Premiere and Avid. */
function exportMenu(s: EditorSession, noCuts: boolean): HTMLElement {
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
    disabled: noCuts,
    onclick: () => {
      exportButton.disabled = true;
      s.saving
        .then(() => s.api.exportEdit(s.jobId, exportSelect.value as ExportFormat))
        .then(
          ({ body, contentType, filename }) => {
            // A plain link cannot carry the review token's Authorization header, hence a Blob.
            const url = URL.createObjectURL(new Blob([body], { type: contentType }));
            const link = el('a', { href: url, download: filename });
            link.click();
            setTimeout(() => URL.revokeObjectURL(url), 60_000);
          },
          (error: unknown) => s.showError(error),
        )
        .finally(() => {
          exportButton.disabled = false;
        });
    },
  });
  return el('span', { class: 'export-menu' }, exportSelect, exportButton);
}
