/**
 * The review editor's sound levels: per source in the render's mix (the mics, else the cameras'
 * own sound), how loud it was recorded, the levelling the mastering set for its speakers and
 * how loud it sits in the render (from the last render's `output_format.levels`; before any
 * render, the recorded loudness and planned levelling speaker detection measured, the Job's
 * `audio.levels`), and a gain a person can nudge (−12 to +12 dB in 0.5 dB steps) or mute. A
 * change is saved at once (updateCuts `audio.gains`) and the next render applies it before the master gain and the limiter, so the
 * render still meets its loudness target.
 *
 * @module
 */
import {
  SOURCE_GAIN_RANGE,
  type GetJobResponse,
  type JobSource,
  type OutputSourceLevels,
  type RecordedSourceLevels,
  type SourceGain,
} from '../../contract/types.ts';
import { el } from './dom.ts';
import { queueSave, speakerNamesOf, type EditorSession } from './session.ts';

/** The slider's step, dB. */
export const GAIN_STEP_DB = 0.5;

/** `+1.5 dB`, `−6.0 dB`, `0.0 dB` (a real minus sign). */
export function formatDb(db: number): string {
  const text = Math.abs(db).toFixed(1);
  return `${db > 0 ? '+' : db < 0 && text !== '0.0' ? '−' : ''}${text} dB`;
}

/** `−23.4 LUFS` (`unit` LUFS or dBTP), or `—` where nothing was measured. */
export function formatLufs(lufs: number | null | undefined, unit = 'LUFS'): string {
  return lufs === null || lufs === undefined ? '—' : `${lufs < 0 ? '−' : ''}${Math.abs(lufs).toFixed(1)} ${unit}`;
}

/**
 * The sources whose sound the render mixes, in job order: those the last render measured, else
 * the audio sources, else the cameras (as the render picks them).
 */
export function mixSources(job: GetJobResponse['job']): JobSource[] {
  const measured = job.output_format?.levels?.sources.map((s) => s.source_id) ?? [];
  if (measured.length > 0) return job.sources.filter((s) => measured.includes(s.id));
  const audio = job.sources.filter((s) => s.kind === 'audio');
  return audio.length > 0 ? audio : job.sources.filter((s) => s.kind === 'video');
}

/**
 * What a row says before any render: how loud the source was recorded and the levelling the
 * render will plan for its speakers (the Job's `audio.levels`, measured by speaker detection);
 * with mastering off, no levelling.
 */
function recordedText(s: EditorSession, recorded: RecordedSourceLevels, levelling: boolean): HTMLElement {
  const names = speakerNamesOf(s);
  return el(
    'p',
    { class: 'level-measured level-recorded' },
    el('span', { class: 'level-before', text: `Recorded ${formatLufs(recorded.integrated_lufs)}` }),
    ...recorded.speakers.map((k) =>
      el(
        'span',
        { class: 'level-speaker', 'data-speaker': k.speaker },
        ` · ${names[k.speaker] ?? k.speaker}: speech ${formatLufs(k.speech_lufs)}${levelling ? `, planned levelling ${formatDb(k.gain_db)}` : ''}`,
      ),
    ),
    el('span', { class: 'level-after', text: ' · in the render: measured when the edit renders' }),
  );
}

/** What a row says the source measured: the last render's levels, else the recorded ones, else that it is measured at the render. */
function measuredText(
  s: EditorSession,
  levels: OutputSourceLevels | undefined,
  recorded: RecordedSourceLevels | undefined,
  levelling: boolean,
): HTMLElement {
  if (!levels && recorded) return recordedText(s, recorded, levelling);
  if (!levels) return el('p', { class: 'level-measured', text: 'Measured when the edit renders.' });
  const names = speakerNamesOf(s);
  return el(
    'p',
    { class: 'level-measured' },
    el('span', { class: 'level-before', text: `Recorded ${formatLufs(levels.integrated_lufs_before)}` }),
    ' · ',
    el('span', { class: 'level-after', text: `in the render ${formatLufs(levels.integrated_lufs_after)}` }),
    ...levels.speakers.map((k) =>
      el(
        'span',
        { class: 'level-speaker', 'data-speaker': k.speaker },
        ` · ${names[k.speaker] ?? k.speaker}: speech ${formatLufs(k.speech_lufs_before)}, levelling ${formatDb(k.gain_db)}`,
      ),
    ),
  );
}

/** Saves the gains after the pending saves (the last change wins), as the edit's saves do. */
function saveGains(s: EditorSession): Promise<void> {
  return queueSave(s, { audio: { gains: { ...s.gains } } });
}

/** One source's row: label, what it measured, the gain slider with its value, and mute. */
function sourceRow(
  s: EditorSession,
  source: JobSource,
  levels: OutputSourceLevels | undefined,
  recorded: RecordedSourceLevels | undefined,
  levelling: boolean,
): HTMLElement {
  const [min, max] = SOURCE_GAIN_RANGE;
  const current: SourceGain = s.gains[source.id] ?? 0;
  const muted = current === 'mute';
  const value = el('output', { class: 'gain-value', text: muted ? 'muted' : formatDb(current) });
  const slider = el('input', {
    type: 'range',
    class: 'source-gain',
    min,
    max,
    step: GAIN_STEP_DB,
    'data-source-id': source.id,
    'aria-label': `Gain of ${source.label}, dB`,
    disabled: muted,
  });
  slider.value = String(muted ? 0 : current);
  const mute = el('input', { type: 'checkbox', class: 'source-mute', 'data-source-id': source.id, checked: muted });
  const apply = (): void => {
    const db = Number(slider.value);
    const gain: SourceGain = mute.checked ? 'mute' : db;
    slider.disabled = mute.checked;
    value.textContent = mute.checked ? 'muted' : formatDb(db);
    if (gain === 0) delete s.gains[source.id];
    else s.gains[source.id] = gain;
    void saveGains(s);
  };
  // `input` follows a drag on screen; `change` (release, each arrow key) saves.
  slider.addEventListener('input', () => (value.textContent = formatDb(Number(slider.value))));
  slider.addEventListener('change', apply);
  mute.addEventListener('change', apply);
  return el(
    'li',
    { class: 'level-row', 'data-source-id': source.id },
    el('span', { class: 'level-label', text: source.label }),
    measuredText(s, levels, recorded, levelling),
    el(
      'span',
      { class: 'level-gain' },
      el('label', {}, 'Gain ', slider),
      ' ',
      value,
      ' ',
      el('label', { class: 'mute' }, mute, ' Mute'),
    ),
  );
}

/** The levels section of the review view (inside the edit controls, so an approved job shows it read-only). */
export function levelsPanel(s: EditorSession, data: GetJobResponse): HTMLElement {
  const section = el('section', { class: 'levels' });
  drawLevels(s, section, data);
  return section;
}

/** Redraws the levels section when the job's levels or saved gains changed (not while a person drags). */
export function refreshLevels(s: EditorSession): void {
  const section = s.body.querySelector<HTMLElement>('section.levels');
  if (section && s.state) drawLevels(s, section, s.state);
}

function drawLevels(s: EditorSession, section: HTMLElement, data: GetJobResponse): void {
  const { job } = data;
  const key = JSON.stringify([
    job.output_format?.levels ?? null,
    job.audio?.gains ?? {},
    job.output_format?.loudness,
    job.audio?.levels ?? null,
  ]);
  if (section.dataset['key'] === key) return;
  section.dataset['key'] = key;
  const audio = job.audio ?? { loudness: -16, truePeak: -1, gains: {} };
  const loudness = job.output_format?.loudness;
  const byId = new Map((job.output_format?.levels?.sources ?? []).map((l) => [l.source_id, l]));
  // Before a render: what speaker detection measured of each source.
  const recordedById = new Map((job.audio?.levels?.sources ?? []).map((l) => [l.source_id, l]));
  const levelling = audio.loudness !== 'off';
  section.replaceChildren(
    el('h2', { text: 'Sound levels' }),
    el('p', {
      class: 'levels-target',
      text:
        audio.loudness === 'off'
          ? 'Mastering is off: the sources are mixed as recorded; the gains below still apply.'
          : `Each voice is levelled and the mix brought to ${formatLufs(audio.loudness)}, peaks under ${formatLufs(audio.truePeak, 'dBTP')}. A gain moves a source above or below the others; the next render applies it.`,
    }),
    ...(loudness
      ? [
          el('p', {
            class: 'levels-render',
            text: `The last render measures ${formatLufs(loudness.integrated_lufs)}, true peak ${formatLufs(loudness.true_peak_dbtp, 'dBTP')}.`,
          }),
        ]
      : []),
    el(
      'ul',
      { class: 'level-rows' },
      ...mixSources(job).map((src) => sourceRow(s, src, byId.get(src.id), recordedById.get(src.id), levelling)),
    ),
  );
}
