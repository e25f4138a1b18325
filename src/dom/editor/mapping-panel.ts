/**
 * The mapping panel of the review editor: which speakers each camera shows, confirmed in
 * mapping (prefilled from the camera map's proposal) or corrected later (sent with the cuts).
 *
 * @module
 */
import type { GetJobResponse, Track } from '../../contract/types.ts';
import { cameraColour, el } from './dom.ts';
import { speakerLanes } from './model.ts';
import { videoSources, type EditorSession } from './session.ts';

/**
 * The mapping form: a fieldset per camera with a checkbox per speaker, prefilled from
 * `prefill` (the camera map's proposal in mapping, the tracks in force later).
 */
function mappingForm(
  s: EditorSession,
  data: GetJobResponse,
  prefill: (sourceId: string) => string[],
  submitLabel: string,
  send: (tracks: Track[]) => Promise<unknown>,
): HTMLFormElement {
  const map = data.job.camera_map;
  const speakers = map?.speakers.length ? map.speakers : speakerLanes(data.job.turns);
  const forms = videoSources(s).map((source, i) => {
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
    const tracks: Track[] = videoSources(s).map((source) => ({
      sourceId: source.id,
      speakers: [
        ...form.querySelectorAll<HTMLInputElement>(`fieldset[data-source-id="${CSS.escape(source.id)}"] input:checked`),
      ].map((b) => b.value),
    }));
    submit.disabled = true;
    send(tracks)
      .then(() => {
        s.clearError();
        return s.load();
      })
      .catch((error: unknown) => s.showError(error))
      .finally(() => (submit.disabled = false));
  });
  return form;
}

/** In mapping: the form to confirm the camera map's proposal, as the whole view. */
export function renderMapping(s: EditorSession, data: GetJobResponse): void {
  const map = data.job.camera_map;
  const form = mappingForm(
    s,
    data,
    (id) => map?.cameras.find((c) => c.sourceId === id)?.speakers ?? [],
    'Confirm mapping',
    (tracks) => s.api.submitSpeakerMapping(s.jobId, { tracks }),
  );
  s.body.replaceChildren(
    el('h2', { text: 'Which speakers does each camera show?' }),
    el('p', {
      text: map
        ? 'The proposal from the camera map is filled in; change it where it is wrong.'
        : 'No camera map was computed: tick the speakers each camera shows.',
    }),
    form,
  );
}

/** In ready or complete: changing the mapping is a correction sent with the current cuts. */
export function mappingCorrection(s: EditorSession, data: GetJobResponse): HTMLElement {
  return el(
    'details',
    { class: 'mapping-correction' },
    el('summary', { text: 'Speaker mapping' }),
    el('p', {
      text: 'Changing the mapping keeps your cuts as they are; recut to regenerate them from the new mapping.',
    }),
    mappingForm(
      s,
      data,
      (id) => data.job.tracks.find((t) => t.sourceId === id)?.speakers ?? [],
      'Save mapping',
      (tracks) =>
        s.saving.then(() => s.api.submitSpeakerMapping(s.jobId, { tracks, cuts: s.cuts, removedRanges: s.removed })),
    ),
  );
}
