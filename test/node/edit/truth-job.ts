/**
 * A job as the engine would hold it after perfect sync, speaker detection and camera mapping
 * of a generated fixture: its sources on the reference timeline, the expected camera map and
 * the tracks that map implies. Shared by the fixture edit tests.
 */
import type {
  CameraMap,
  JobSource,
  PresetId,
  ResolvedSilenceSettings,
  TimeRange,
  Track,
} from '../../../src/contract/types.ts';
import { planEdit, type PlannedEdit } from '../../../src/analysis/edit/edit.ts';
import type { Truth } from '../../support/fixtures.ts';

/** The sources, tracks and camera map of `truth` (source ids are the fixture's file names). */
export function jobOfTruth(truth: Truth): { sources: JobSource[]; tracks: Track[]; cameraMap: CameraMap } {
  const sources: JobSource[] = truth.sources.map((s) => ({
    id: s.file,
    label: s.label,
    kind: s.kind,
    ext: s.file.split('.').pop() ?? '',
    offsetMs: s.offsetMs,
    // The reference span it covers (the file's own length differs by its drift).
    durationMs: s.endRefMs - s.offsetMs,
  }));
  const cameras = truth.expectedCameraMap.cameras.map((c) => ({
    sourceId: c.file,
    kind: c.kind,
    confidence: c.speakers.length > 0 ? ('high' as const) : ('none' as const),
    speakers: c.speakers,
  }));
  const cameraMap: CameraMap = {
    version: 1,
    speakers: truth.expectedCameraMap.speakers,
    unassignedSpeakers: [],
    droppedSpeakers: [],
    cameras,
  };
  return { sources, tracks: cameras.map((c) => ({ sourceId: c.sourceId, speakers: c.speakers })), cameraMap };
}

/**
 * `planEdit` of `job` (the {@link jobOfTruth} of `truth`) with its true turns, `presetId`, the
 * resolved `silence` settings and the `quietRanges` an energy analysis found (omitted: none, so
 * silence removal removes nothing).
 */
export function planOfTruth(
  truth: Truth,
  job: ReturnType<typeof jobOfTruth>,
  presetId: PresetId,
  silence: ResolvedSilenceSettings,
  quietRanges?: TimeRange[],
): PlannedEdit {
  return planEdit({
    turns: truth.turns,
    tracks: job.tracks,
    sources: job.sources,
    cameraMap: job.cameraMap,
    presetId,
    silence,
    ...(quietRanges ? { quietRanges } : {}),
  });
}
