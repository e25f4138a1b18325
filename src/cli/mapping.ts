/**
 * Which mapping `multicam edit` submits, and when it must ask instead: the `--map` options
 * when given, else the service's camera map where it names speakers, else nothing — the CLI
 * never renders a guess (issue 35). It then prints the speakers it heard, with their talk
 * time and an example turn, and the option to run again with.
 *
 * @module
 */
import { proposalTracks } from '../analysis/camera/automap.ts';
import type { AutoMapMode, Job, Track } from '../contract/types.ts';

/** One `--map VIDEO=S1,S2`: the video by its position among the videos (0-based), and its speakers. */
export interface MapOption {
  video: number;
  speakers: string[];
}

/** The mapping to submit and where it came from, or the message that asks for one. */
export type MappingChoice = { tracks: Track[]; from: 'option' | 'cameraMap' } | { ask: string };

const clock = (ms: number): string => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/** Speakers the job heard, most talk first, with talk time and their longest turn. */
function heard(job: Pick<Job, 'turns'>): Array<{ speaker: string; talkMs: number; example: string }> {
  const by = new Map<string, { talkMs: number; longest: [number, number] }>();
  for (const t of job.turns) {
    const s = by.get(t.speaker) ?? { talkMs: 0, longest: [t.startMs, t.endMs] };
    s.talkMs += t.endMs - t.startMs;
    if (t.endMs - t.startMs > s.longest[1] - s.longest[0]) s.longest = [t.startMs, t.endMs];
    by.set(t.speaker, s);
  }
  return [...by]
    .map(([speaker, s]) => ({ speaker, talkMs: s.talkMs, example: `${clock(s.longest[0])}–${clock(s.longest[1])}` }))
    .sort((a, b) => b.talkMs - a.talkMs || a.speaker.localeCompare(b.speaker));
}

/**
 * The mapping for a job waiting in `mapping`. `videoNames` are the videos as given on the
 * command line (their order is the job's order of video sources).
 */
export function chooseMapping(
  job: Pick<Job, 'sources' | 'camera_map' | 'turns'>,
  videoNames: readonly string[],
  map: readonly MapOption[],
): MappingChoice {
  const videos = job.sources.filter((s) => s.kind === 'video');
  const speakers = heard(job);
  const known = new Set(speakers.map((s) => s.speaker));
  const list = speakers
    .map((s) => `  ${s.speaker}: ${(s.talkMs / 1000).toFixed(0)} s of speech, e.g. ${s.example}`)
    .join('\n');
  if (map.length > 0) {
    const unknown = map.flatMap((m) => m.speakers).filter((s) => !known.has(s));
    if (unknown.length > 0)
      return {
        ask: `--map names ${[...new Set(unknown)].join(', ')}, but the job heard only:\n${list || '  nobody'}`,
      };
    const tracks = videos.map((v, i) => ({
      sourceId: v.id,
      speakers: [...new Set(map.filter((m) => m.video === i).flatMap((m) => m.speakers))],
    }));
    return { tracks, from: 'option' };
  }
  const proposal = proposalTracks(
    job.camera_map,
    videos.map((v) => v.id),
  );
  if (proposal) return { tracks: proposal, from: 'cameraMap' };
  const dropped = job.camera_map?.droppedSpeakers ?? [];
  const why =
    dropped.length > 0 && dropped.length === speakers.length
      ? 'every speaker has under a minute of speech, too little to judge'
      : 'no camera answered surely';
  const example = videoNames
    .slice(0, Math.max(1, Math.min(videoNames.length, speakers.length)))
    .map((name, i) => `--map ${name}=${speakers[i]?.speaker ?? speakers[0]?.speaker ?? 'S1'}`)
    .join(' ');
  return {
    ask:
      `the service cannot tell who is on which camera from this recording (${why}), and multicam never renders a guess.\n` +
      `Speakers heard:\n${list || '  nobody'}\n` +
      `Cameras: ${videoNames.map((n, i) => `${i + 1}. ${n}`).join(', ')}\n` +
      `Run again saying who is on each camera, e.g. ${example} (a wide shot may list several: --map wide.mp4=S1,S2).`,
  };
}

/**
 * The autoMap mode the CLI starts the job with: `off` when the person gave `--map`, so the
 * service asks at once and the person's mapping is the one used (with `always` the service
 * would map the cameras itself before the CLI could submit, and `--map` would be ignored).
 */
export function autoMapToSend(autoMap: AutoMapMode, map: readonly MapOption[]): AutoMapMode {
  return map.length > 0 ? 'off' : autoMap;
}

/** One line per camera: `cam1.mp4 → S1`, for the log. */
export function describeMapping(
  tracks: readonly Track[],
  job: Pick<Job, 'sources'>,
  videoNames: readonly string[],
): string {
  const videos = job.sources.filter((s) => s.kind === 'video');
  return tracks
    .map((t) => {
      const i = videos.findIndex((v) => v.id === t.sourceId);
      return `${videoNames[i] ?? t.sourceId} → ${t.speakers.length > 0 ? t.speakers.join(', ') : 'nobody'}`;
    })
    .join('; ');
}
