/**
 * The job's progress as a podcaster reads it: one row per step in plain words, each with a bar,
 * the time it took or has taken so far, and an estimate where there is a fraction to go by
 * (the upload's bytes, every running stage's `stageProgress`), taken from the measured rate of
 * that fraction ({@link RemainingEstimator}), never from the elapsed time. The contract's own
 * words (statuses, next-action types) stay in the developer panel.
 *
 * @module
 */
import type { JobStatus, JobSummary } from '../src/contract/types.ts';
import { RemainingEstimator, remainingText } from './estimate.ts';

/** The steps of a job, in order: the statuses that belong to each. */
const STEPS: ReadonlyArray<{ key: string; label: string; statuses: readonly JobStatus[]; optional?: true }> = [
  { key: 'upload', label: 'Add the files', statuses: ['created', 'uploading'] },
  { key: 'syncing', label: 'Line up the cameras and mics', statuses: ['syncing'] },
  { key: 'diarizing', label: 'Find who speaks when', statuses: ['diarizing'] },
  { key: 'mapping', label: 'Work out who is on which camera', statuses: ['mapping'] },
  { key: 'ready', label: 'Your review', statuses: ['ready'], optional: true },
  { key: 'rendering', label: 'Render the edit', statuses: ['rendering'] },
  { key: 'done', label: 'Done', statuses: ['complete', 'approved'] },
];

const seconds = (ms: number): string => {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
};

/** Follows one job's steps: when each began and ended, and the fraction of the running one. */
export class StepTracker {
  private readonly began = new Map<string, number>();
  private readonly ended = new Map<string, number>();
  private current = '';
  private fraction: number | null = null;
  /** The running step's time left, from the rate its fraction moves at. */
  private estimator = new RemainingEstimator();

  constructor(private readonly list: HTMLOListElement) {
    list.replaceChildren(
      ...STEPS.map((s) => {
        const li = document.createElement('li');
        li.dataset['step'] = s.key;
        li.className = 'waiting';
        const name = document.createElement('span');
        name.className = 'name';
        name.textContent = s.label;
        const bar = document.createElement('progress');
        bar.max = 1;
        bar.value = 0;
        const time = document.createElement('span');
        time.className = 'time';
        li.append(name, bar, time);
        return li;
      }),
    );
    this.enter('upload', Date.now());
  }

  /** The upload's bytes so far. */
  upload(sent: number, total: number): void {
    const now = Date.now();
    if (this.current === 'upload') this.setFraction(now, total > 0 ? sent / total : null);
    this.draw(now);
  }

  /**
   * A new summary of the job. `asked`: the service has asked a person to map the cameras (its
   * `mapping` event came), so the camera map is done and the job waits for them: the review step.
   */
  update(summary: JobSummary, asked = false): void {
    const now = Date.now();
    const step =
      summary.status === 'mapping' && asked ? 'ready' : STEPS.find((s) => s.statuses.includes(summary.status))?.key;
    if (step && step !== this.current) this.enter(step, now);
    // Every stage that runs reports its fraction (stageProgress); the upload's comes from its bytes.
    if (step !== 'upload') this.setFraction(now, summary.stageProgress ?? null);
    this.draw(now, summary.status === 'failed');
  }

  private enter(step: string, now: number): void {
    const index = STEPS.findIndex((s) => s.key === step);
    // Every earlier step is over (a skipped one, like the review with review off, shows no time).
    for (const s of STEPS.slice(0, index))
      if (this.began.has(s.key) && !this.ended.has(s.key)) this.ended.set(s.key, now);
    this.began.set(step, now);
    this.current = step;
    this.fraction = null;
    this.estimator = new RemainingEstimator();
  }

  private setFraction(now: number, fraction: number | null): void {
    this.fraction = fraction;
    if (fraction !== null) this.estimator.sample(now, fraction);
  }

  private draw(now: number, failed = false): void {
    const index = STEPS.findIndex((s) => s.key === this.current);
    STEPS.forEach((s, i) => {
      const li = this.list.querySelector<HTMLLIElement>(`li[data-step="${s.key}"]`)!;
      const bar = li.querySelector('progress')!;
      const time = li.querySelector<HTMLSpanElement>('.time')!;
      const began = this.began.get(s.key);
      const ended = this.ended.get(s.key);
      if (i < index || (s.key === 'done' && i === index)) {
        // A step the page never saw running (it took less than one poll) still happened; only the
        // review can be skipped (review off renders at once).
        li.className = began === undefined && s.optional ? 'skipped' : 'done';
        bar.value = 1;
        time.textContent = began === undefined || ended === undefined ? '' : `took ${seconds(ended - began)}`;
      } else if (i === index) {
        li.className = failed ? 'failed' : 'active';
        const elapsed = now - (began ?? now);
        if (this.fraction !== null && this.fraction > 0) {
          bar.value = this.fraction;
          time.textContent = `${seconds(elapsed)}, ${remainingText(this.estimator.remaining(now))}`;
        } else {
          bar.removeAttribute('value'); // indeterminate: this step reports no fraction
          time.textContent = seconds(elapsed);
        }
        if (s.key === 'ready') {
          bar.value = 0;
          time.textContent = 'waiting for you';
        }
      } else {
        li.className = 'waiting';
        bar.value = 0;
        time.textContent = '';
      }
    });
  }
}

/** What is happening and what to do, in plain words. */
export function plainStatus(summary: JobSummary, mapping: { asked: boolean; proposal: boolean }): string {
  switch (summary.status) {
    case 'created':
    case 'uploading':
      return 'Adding your files…';
    case 'syncing':
      return 'Lining up the cameras and mics by their sound…';
    case 'diarizing':
      return 'Finding who speaks when…';
    case 'mapping':
      if (!mapping.asked) return 'Working out who is on which camera…';
      return mapping.proposal
        ? 'multicam proposes who is on which camera: accept it, or check it in the review editor.'
        : 'The recording does not show clearly who is on which camera: say it in the review editor.';
    case 'ready':
      return 'The edit is ready for your review: open the review editor, or render it now.';
    case 'rendering':
      return 'Rendering the edit…';
    case 'complete':
    case 'approved':
      return 'Done: watch the edit below, or download it.';
    case 'failed':
      return `Something went wrong while ${summary.failedAtStatus === 'rendering' ? 'rendering' : 'working on the files'}: ${summary.error ?? 'no message'}. Check the files named, then start again.`;
    default:
      return summary.status;
  }
}
