/**
 * How a finished job's edit treats the people of a fixture: the share of single-speaker time
 * (kept by silence removal) that shows the speaker's own close-up, measured against the
 * fixture's truth. The job's timeline is put on the truth's through one video source's sync
 * offset (drift over a podcast of minutes is a few ms). Used where a whole job ran in the
 * browser (the demo, hands-off).
 */
import type { Job } from '../../src/contract/types.ts';
import type { Truth } from '../../tools/fixtures/truth.ts';
import { closeupShare } from '../node/edit/measure.ts';

/**
 * @param fileOf the fixture file a job source was uploaded from (by the source's label)
 * @returns the share (0…1) and, per close-up, the speakers the job put on it
 */
export function ownCloseupShare(
  truth: Truth,
  job: Pick<Job, 'sources' | 'cuts' | 'removed_ranges' | 'tracks'>,
  fileOf: (label: string) => string | undefined,
): { share: number; closeups: Record<string, string[]> } {
  const sourceOfFile = new Map(job.sources.map((s) => [fileOf(s.label), s]));
  const anchor = job.sources.find((s) => s.kind === 'video' && fileOf(s.label) !== undefined);
  const anchorTruth = truth.sources.find((t) => t.file === (anchor ? fileOf(anchor.label) : undefined));
  if (!anchor || !anchorTruth) throw new Error('ownCloseupShare: no video source of the job is a fixture file');
  const shift = anchorTruth.offsetMs - (anchor.offsetMs ?? 0);
  const moved = <T extends { startMs: number; endMs: number }>(r: T): T => ({
    ...r,
    startMs: r.startMs + shift,
    endMs: r.endMs + shift,
  });
  const closeupOf = new Map<string, string>();
  const closeups: Record<string, string[]> = {};
  for (const c of truth.expectedCameraMap.cameras) {
    if (c.kind !== 'closeup') continue;
    const source = sourceOfFile.get(c.file);
    if (!source) continue;
    closeupOf.set(c.speakers[0]!, source.id);
    closeups[c.file] = job.tracks.find((t) => t.sourceId === source.id)?.speakers ?? [];
  }
  const share = closeupShare(truth.turns, job.cuts.map(moved), (job.removed_ranges ?? []).map(moved), closeupOf);
  return { share, closeups };
}
