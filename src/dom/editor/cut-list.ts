/**
 * The cut list and the pause list of the review editor: each cut with its start (seek), end
 * (editable), camera (selectable) and reason; each pause with Remove or Restore.
 *
 * @module
 */
import { withSpeakerNames } from '../../contract/speaker-names.ts';
import type { JobSource } from '../../contract/types.ts';
import { cameraColour, el } from './dom.ts';
import { formatTime, listPauses, moveBoundary, removeRange, restoreRange, setCutCamera } from './model.ts';
import { cameraIds, speakerNamesOf, totalMs, type EditorSession } from './session.ts';

/** Redraws the cut list from the edit. */
export function renderCutList(s: EditorSession, sources: readonly JobSource[]): void {
  const { cuts } = s;
  const labelOf = (id: string): string => sources.find((src) => src.id === id)?.label ?? id;
  const names = speakerNamesOf(s);
  s.view.cutList.replaceChildren(
    ...cuts.map((cut, i) => {
      const camera = el(
        'select',
        {
          class: 'cut-camera',
          'aria-label': `camera of cut ${i + 1}`,
          onchange: (e) => s.edit({ cuts: setCutCamera(s.cuts, i, (e.target as HTMLSelectElement).value) }),
        },
        ...sources.map((src, k) => el('option', { value: src.id }, `${k + 1} · `, src.label)),
      );
      camera.value = cut.sourceId;
      const reason = withSpeakerNames(cut.reason ?? '', names);
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
                if (Number.isFinite(seconds)) s.edit({ cuts: moveBoundary(s.cuts, i, seconds * 1000) });
              },
            })
          : el('span', { class: 'cut-end-fixed', text: formatTime(cut.endMs) });
      return el(
        'li',
        {
          class: i === s.selectedCut ? 'cut selected' : 'cut',
          'data-index': i,
          'data-source-id': cut.sourceId,
          title: reason,
          style: `border-left-color:${cameraColour(cameraIds(s).indexOf(cut.sourceId))}`,
        },
        el(
          'button',
          {
            type: 'button',
            class: 'cut-seek',
            onclick: () => {
              s.selectedCut = i;
              s.player?.seek(cut.startMs);
            },
          },
          formatTime(cut.startMs),
        ),
        ' → ',
        end,
        ' ',
        camera,
        el('span', { class: 'cut-label', text: labelOf(cut.sourceId) }),
        el('span', { class: 'cut-reason', text: reason }),
      );
    }),
  );
}

/** Redraws the pause list: every pause between turns, removed or kept. */
export function renderPauseList(s: EditorSession): void {
  if (!s.state) return;
  s.view.pauseList.replaceChildren(
    ...listPauses(s.state.job.turns, s.removed, totalMs(s)).map((pause) =>
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
            s.edit({ removed: pause.removed ? restoreRange(s.removed, pause) : removeRange(s.removed, pause) }),
        }),
      ),
    ),
  );
}
