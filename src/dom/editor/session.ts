/**
 * The review editor's session: the job as last loaded, the edit in progress, the player,
 * timeline and thumbnails of the review view, and what every part of the editor calls back
 * (errors, status, edits, reloads). The parts (mapping-panel.ts, cut-list.ts, actions.ts,
 * review-view.ts) read and write it; editor.ts creates it.
 *
 * @module
 */
import type { MulticamClient } from '../../client/client.ts';
import type { SpeakerNames } from '../../contract/speaker-names.ts';
import type {
  Cut,
  GetJobResponse,
  JobSource,
  PresetId,
  SilenceMode,
  SourceGain,
  TimeRange,
  UpdateCutsRequest,
} from '../../contract/types.ts';
import { timelineEndMs } from './model.ts';
import type { SyncedPlayer } from './player.ts';
import type { Thumbnails } from './thumbnails.ts';
import type { Timeline, TimelineData } from './timeline.ts';

/** Peaks per second of the waveform. */
export const PEAKS_PER_SECOND = 50;

/** The elements of the review view that stay in place while the edit changes. */
export interface ReviewElements {
  cutList: HTMLOListElement;
  pauseList: HTMLUListElement;
  summary: HTMLParagraphElement;
  tiles: HTMLDivElement;
  clock: HTMLSpanElement;
  actions: HTMLDivElement;
}

/** One mounted editor's state and callbacks. */
export interface EditorSession {
  readonly root: HTMLElement;
  /** Where the current view (mapping, review, waiting) is drawn. */
  readonly body: HTMLElement;
  readonly api: MulticamClient;
  readonly jobId: string;
  readonly abort: AbortController;
  readonly view: ReviewElements;
  /** The job as last loaded. */
  state: GetJobResponse | null;
  cuts: Cut[];
  removed: TimeRange[];
  /** The gains set per source (the Job's `audio.gains`), as edited. */
  gains: Record<string, SourceGain>;
  selectedCut: number;
  player: SyncedPlayer | null;
  timeline: Timeline | null;
  thumbnails: Thumbnails | null;
  peaks: Float32Array | null;
  /** The last save; saves run one after another so the last edit wins. */
  saving: Promise<void>;
  preset: PresetId;
  silenceMode: SilenceMode;
  /** When the playing timeline was last drawn (performance.now()). */
  lastPlayheadDraw: number;
  showError(error: unknown): void;
  clearError(): void;
  setStatus(text: string): void;
  /** Applies an edit, redraws and saves it. */
  edit(next: { cuts?: Cut[]; removed?: TimeRange[] }): void;
  /** Redraws the review view from the edit. */
  refreshEdit(): void;
  /** Loads the job again and shows the view its status calls for. */
  load(): Promise<void>;
}

/** The job's video sources (the cameras), in job order. */
export function videoSources(s: EditorSession): JobSource[] {
  return s.state ? s.state.job.sources.filter((src) => src.kind === 'video') : [];
}

/** The names people gave the speakers (label → name). */
export function speakerNamesOf(s: EditorSession): SpeakerNames {
  return s.state?.job.speaker_names ?? {};
}

/** The cameras' source ids, in job order. */
export function cameraIds(s: EditorSession): string[] {
  return videoSources(s).map((src) => src.id);
}

/** Length of the timeline, ms (at least 1 s). */
export function totalMs(s: EditorSession): number {
  return s.state ? Math.max(1000, timelineEndMs(s.state.job.sources, s.cuts, s.state.job.turns)) : 1000;
}

/** The player's position, ms. */
export function playhead(s: EditorSession): number {
  return s.player?.timeMs ?? 0;
}

/** What the timeline draws with the playhead at `at`. */
export function timelineData(s: EditorSession, at: number): TimelineData {
  return {
    totalMs: totalMs(s),
    cuts: s.cuts,
    removed: s.removed,
    turns: s.state?.job.turns ?? [],
    names: speakerNamesOf(s),
    cameraIds: cameraIds(s),
    peaks: s.peaks,
    peakStepMs: 1000 / PEAKS_PER_SECOND,
    playheadMs: at,
    selectedCut: s.selectedCut,
    thumbnail: (sourceId, refMs) => s.thumbnails?.get(sourceId, refMs),
  };
}

/**
 * Saves `request` through updateCuts after any save already under way (saves go out in the order
 * made), saying so in the status line; the root's `data-saved` counts the saves that landed.
 */
export function queueSave(s: EditorSession, request: UpdateCutsRequest): Promise<void> {
  s.saving = s.saving.then(async () => {
    s.setStatus('Saving…');
    try {
      await s.api.updateCuts(s.jobId, request);
      s.clearError();
      s.setStatus(`Saved at ${new Date().toLocaleTimeString()}`);
      s.root.dataset['saved'] = String(Number(s.root.dataset['saved'] ?? '0') + 1);
    } catch (error) {
      s.showError(error);
      s.setStatus('Not saved');
    }
  });
  return s.saving;
}
