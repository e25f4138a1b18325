/**
 * Every export carries why each camera is live (the cut's reason) with the speakers' names in
 * place of their labels: an EDL comment, an FCPXML marker on the mc-clip, an xmeml sequence
 * marker, an OTIO clip marker and metadata. Parsed back, not string-matched.
 */
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, test } from 'vitest';
import type { JobSource } from '../../../src/contract/types.ts';
import { exportEdit, type ExportableJob } from '../../../src/export/index.ts';

const sources: JobSource[] = [
  { id: 'src_a', label: 'Cam A', kind: 'video', ext: 'mp4', durationMs: 60_000, offsetMs: 0, driftPpm: 0 },
  { id: 'src_b', label: 'Cam B', kind: 'video', ext: 'mp4', durationMs: 60_000, offsetMs: 0, driftPpm: 0 },
];
const job: ExportableJob = {
  id: 'job_1',
  title: 'Ep 1',
  sources,
  cuts: [
    { sourceId: 'src_a', startMs: 0, endMs: 4000, reason: 'SPEAKER_00 speaks (close-up)' },
    {
      sourceId: 'src_b',
      startMs: 4000,
      endMs: 9000,
      reason: 'SPEAKER_01 speaks (close-up); holds while SPEAKER_00 speaks',
    },
    // The same camera again, continuing: one event, both reasons once.
    { sourceId: 'src_b', startMs: 9000, endMs: 12_000, reason: 'SPEAKER_01 continues (close-up)' },
    { sourceId: 'src_a', startMs: 12_000, endMs: 15_000 },
  ],
  removed_ranges: [],
  speaker_names: { SPEAKER_00: 'Ana', SPEAKER_01: 'Bo Li' },
};
const EXPECTED = [
  { recordIn: 0, note: 'Ana speaks (close-up)' },
  { recordIn: 100, note: 'Bo Li speaks (close-up); holds while Ana speaks / Bo Li continues (close-up)' },
];

const xml = (text: string): Element => new DOMParser().parseFromString(text, 'text/xml').documentElement!;
const all = (root: Element, name: string): Element[] => Array.from(root.getElementsByTagName(name));

describe('export notes: why each camera is live, with speaker names', () => {
  test('EDL: a COMMENT line after each video event that has a reason', () => {
    const lines = exportEdit(job, 'edl', { fps: 25 }).body.split('\n');
    const comments = lines.filter((l) => l.startsWith('* COMMENT: ')).map((l) => l.slice('* COMMENT: '.length));
    expect(comments).toEqual(EXPECTED.map((e) => e.note));
    // Each comment belongs to the event above it (event line, clip name, comment).
    const at = lines.indexOf(`* COMMENT: ${EXPECTED[1]!.note}`);
    expect(lines[at - 2]).toMatch(/^002 {2}CAM_B /);
  });

  test('FCPXML: a marker at the first frame of each mc-clip', () => {
    const root = xml(exportEdit(job, 'fcpxml', { fps: 25 }).body);
    const clips = all(root, 'mc-clip');
    expect(clips).toHaveLength(3);
    const marks = clips.map((c) => {
      const m = all(c, 'marker')[0];
      return m ? { value: m.getAttribute('value'), at: m.getAttribute('start') === c.getAttribute('start') } : null;
    });
    expect(marks).toEqual([{ value: EXPECTED[0]!.note, at: true }, { value: EXPECTED[1]!.note, at: true }, null]);
  });

  test('xmeml: a sequence marker at each event with a reason', () => {
    const root = xml(exportEdit(job, 'xmeml', { fps: 25 }).body);
    const sequence = all(root, 'sequence')[0]!;
    const marks = all(sequence, 'marker').map((m) => ({
      recordIn: Number(all(m, 'in')[0]!.textContent),
      note: all(m, 'name')[0]!.textContent,
    }));
    expect(marks).toEqual(EXPECTED);
  });

  test('OTIO: the live clip carries the reason as a marker and in its metadata; audio clips do not', () => {
    const otio = JSON.parse(exportEdit(job, 'otio', { fps: 25 }).body) as {
      tracks: {
        children: Array<{
          kind: string;
          children: Array<{
            OTIO_SCHEMA: string;
            markers: Array<{ name: string }>;
            metadata: { multicam?: { reason?: string } };
          }>;
        }>;
      };
    };
    const camB = otio.tracks.children[1]!.children.filter((c) => c.OTIO_SCHEMA === 'Clip.2');
    expect(camB.map((c) => c.metadata.multicam?.reason)).toEqual([EXPECTED[1]!.note]);
    expect(camB[0]!.markers.map((m) => m.name)).toEqual([EXPECTED[1]!.note]);
    const audio = otio.tracks.children.find((t) => t.kind === 'Audio')!;
    expect(audio.children.every((c) => c.markers.length === 0)).toBe(true);
  });

  test('without names the labels stay; without reasons nothing is added', () => {
    const unnamed = exportEdit({ ...job, speaker_names: {} }, 'edl', { fps: 25 }).body;
    expect(unnamed).toContain('* COMMENT: SPEAKER_00 speaks (close-up)');
    const bare = exportEdit({ ...job, cuts: job.cuts.map(({ reason: _r, ...c }) => c) }, 'edl', { fps: 25 }).body;
    expect(bare).not.toContain('COMMENT');
  });
});
