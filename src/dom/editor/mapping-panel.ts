/**
 * The mapping panel of the review editor: which speakers each camera shows, confirmed in
 * mapping (prefilled from the camera map's proposal) or corrected later (sent with the cuts).
 *
 * @module
 */
import { speakerName, withSpeakerNames } from '../../contract/speaker-names.ts';
import type { CameraMapCamera, GetJobResponse, Track, Turn } from '../../contract/types.ts';
import { cameraColour, el } from './dom.ts';
import { formatTime, speakerLanes } from './model.ts';
import { speakerNamesOf, videoSources, type EditorSession } from './session.ts';

/** A speaker as people read them: the name given, else the label (kept in sync by {@link showNames}). */
function nameTag(s: EditorSession, speaker: string): HTMLElement {
  return el('span', {
    class: 'speaker-name',
    'data-speaker-name': speaker,
    text: speakerName(speaker, speakerNamesOf(s)),
  });
}

/** Writes the names in force into every name tag under the editor, and redraws the review view. */
function showNames(s: EditorSession): void {
  const names = speakerNamesOf(s);
  for (const tag of s.root.querySelectorAll<HTMLElement>('[data-speaker-name]'))
    tag.textContent = speakerName(tag.dataset['speakerName']!, names);
  if (s.timeline) s.refreshEdit();
}

/**
 * Sends every name typed in `list` (a PUT replaces them all); on success the job's names are
 * the service's answer and every tag shows them; on failure the fields go back to the names in force.
 */
function saveNames(s: EditorSession, list: HTMLElement): void {
  const inputs = [...list.querySelectorAll<HTMLInputElement>('input.speaker-name-input')];
  const names = Object.fromEntries(inputs.map((i) => [i.dataset['speaker']!, i.value]));
  list.dataset['saving'] = 'true';
  s.api
    .nameSpeakers(s.jobId, { names })
    .then((answer) => {
      if (s.state) s.state.job.speaker_names = answer.speakerNames;
      s.clearError();
      showNames(s);
    })
    .catch((error: unknown) => {
      s.showError(error);
      for (const input of inputs) input.value = speakerNamesOf(s)[input.dataset['speaker']!] ?? '';
    })
    .finally(() => delete list.dataset['saving']);
}

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
        ' ',
        nameTag(s, speaker),
      ),
    );
    // A frame of the camera while a speaker it may show is talking (else a third in), to decide from.
    const url = data.sourceUrls[source.id];
    const atMs = frameTime(data.job.turns, ticked, source.offsetMs ?? 0, source.durationMs ?? 0);
    const frame = url
      ? el('video', {
          class: 'camera-frame',
          src: `${url}#t=${(atMs / 1000).toFixed(2)}`,
          muted: true,
          preload: 'metadata',
          playsinline: true,
        })
      : null;
    return el(
      'fieldset',
      { class: 'camera-mapping', 'data-source-id': source.id, style: `border-color:${cameraColour(i)}` },
      el('legend', {}, `${i + 1} · `, source.label),
      frame,
      proposal
        ? el('p', {
            class: 'proposal',
            text: `Proposed: ${proposal.kind}, confidence ${proposal.confidence}${proposal.reason ? ` — ${withSpeakerNames(proposal.reason, speakerNamesOf(s))}` : ''}${placesNote(proposal, (label) => speakerName(label, speakerNamesOf(s)))}${evidenceNote(proposal)}`,
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

/** The longest of `turns`, or null. */
function longestTurn(turns: readonly Turn[]): Turn | null {
  return turns.reduce<Turn | null>((b, t) => (!b || t.endMs - t.startMs > b.endMs - b.startMs ? t : b), null);
}

/** Source time (ms) of a frame to show: the middle of the longest turn of `speakers`, else a third into the file. */
function frameTime(turns: readonly Turn[], speakers: readonly string[], offsetMs: number, durationMs: number): number {
  const longest = longestTurn(turns.filter((t) => speakers.includes(t.speaker)));
  const ms = longest ? (longest.startMs + longest.endMs) / 2 - offsetMs : durationMs / 3;
  return Math.max(0, durationMs > 0 ? Math.min(ms, durationMs - 100) : ms);
}

/**
 * Who speaks: each detected speaker with their talk time and a button that plays a few seconds
 * of their longest turn (the programme sound, else the first camera's), so a person can tell
 * who is who before ticking cameras.
 */
function speakerList(s: EditorSession, data: GetJobResponse, speakers: readonly string[]): HTMLElement {
  const first = videoSources(s)[0];
  const audioUrl = data.audioUrl ?? (first ? data.sourceUrls[first.id] : undefined);
  const audioOffset = data.audioUrl ? 0 : (first?.offsetMs ?? 0);
  const audio = audioUrl ? el('audio', { src: audioUrl, preload: 'auto', class: 'speaker-audio' }) : null;
  let stop: ReturnType<typeof setTimeout> | undefined;
  const rows = speakers.map((speaker) => {
    const turns = data.job.turns.filter((t) => t.speaker === speaker);
    const talkMs = turns.reduce((sum, t) => sum + t.endMs - t.startMs, 0);
    const longest = longestTurn(turns);
    const play = el('button', { type: 'button', class: 'play-speaker', 'data-speaker': speaker, text: '▶ Listen' });
    play.disabled = !audio || !longest;
    play.addEventListener('click', () => {
      if (!audio || !longest) return;
      clearTimeout(stop);
      audio.currentTime = Math.max(0, (longest.startMs - audioOffset) / 1000);
      void audio.play().catch((error: unknown) => s.showError(error));
      const lengthMs = Math.min(5000, longest.endMs - longest.startMs);
      stop = setTimeout(() => audio.pause(), lengthMs);
    });
    const name = el('input', {
      type: 'text',
      class: 'speaker-name-input',
      'data-speaker': speaker,
      value: speakerNamesOf(s)[speaker] ?? '',
      placeholder: 'Name',
      maxlength: '60',
      'aria-label': `name of ${speaker}`,
    });
    return el(
      'li',
      { 'data-speaker': speaker },
      play,
      ' ',
      name,
      el('span', { class: 'muted', text: ` ${speaker} · ${Math.round(talkMs / 1000)} s of speech` }),
      longest ? el('span', { class: 'muted', text: ` (longest turn at ${formatTime(longest.startMs)})` }) : null,
    );
  });
  const list = el('ul', {}, ...rows);
  // A name is saved when a field is left or Enter is pressed (every name in one PUT).
  list.addEventListener('change', (event) => {
    if ((event.target as HTMLElement).classList.contains('speaker-name-input')) saveNames(s, list);
  });
  return el(
    'div',
    { class: 'who-speaks' },
    el('h3', { text: 'Who speaks' }),
    el('p', {
      class: 'muted',
      text: 'Listen to each speaker and give them a name: the editor and the exports use it.',
    }),
    list,
    audio,
  );
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
  const speakers = map?.speakers.length ? map.speakers : speakerLanes(data.job.turns);
  const proposed = map?.cameras.some((c) => c.speakers.length > 0) === true;
  s.body.replaceChildren(
    el('h2', { text: 'Which speakers does each camera show?' }),
    el('p', {
      text: proposed
        ? 'The proposal from the camera map is filled in; change it where it is wrong.'
        : 'multicam could not tell from the recording who is on which camera. Listen to each speaker, look at each camera, and tick who it shows.',
    }),
    speakerList(s, data, speakers),
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
    speakerList(
      s,
      data,
      data.job.camera_map?.speakers.length ? data.job.camera_map.speakers : speakerLanes(data.job.turns),
    ),
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

/** What a proposal rests on, in words: the faces seen and matched by their mouths, or the picture's motion. */
export function evidenceNote(proposal: Pick<CameraMapCamera, 'evidence' | 'faces' | 'speakers'>): string {
  if (proposal.evidence !== 'faces') return '';
  const n = proposal.faces ?? 0;
  const seen = `${n} ${n === 1 ? 'face' : 'faces'} seen`;
  // No answer: the faces were seen, but no mouth went with a voice clearly enough.
  if (proposal.speakers.length === 0) return ` · ${seen}, but no mouth moved with a voice clearly enough to say whose`;
  return ` · ${seen}, matched to the voices by their mouths`;
}

/** Where a two-shot's or wide's people sit, left to right, by name. */
function placesNote(proposal: Pick<CameraMapCamera, 'positions'>, name: (label: string) => string): string {
  const p = proposal.positions;
  if (!p) return '';
  const places = (['left', 'middle', 'right'] as const).flatMap((k) => (p[k] ? [`${k} ${name(p[k])}`] : []));
  return places.length ? ` · ${places.join(', ')}` : '';
}
