import { expect, test } from 'vitest';
import { cameraCards } from '../../../demo/job.ts';
import type { Job } from '../../../src/contract/types.ts';

const base = {
  sources: [
    { id: 'v1', kind: 'video', label: 'Cam 1', ext: 'mp4', offsetMs: 0, durationMs: 60_000 },
    { id: 'v2', kind: 'video', label: 'Cam 2', ext: 'mp4', offsetMs: 2000, durationMs: 60_000 },
    { id: 'v3', kind: 'video', label: 'Cam 3', ext: 'mp4', offsetMs: 0, durationMs: 60_000 },
    { id: 'a1', kind: 'audio', label: 'Mic', ext: 'wav' },
  ],
  turns: [
    { speaker: 'SPEAKER_00', startMs: 0, endMs: 10_000 },
    { speaker: 'SPEAKER_01', startMs: 10_000, endMs: 40_000 },
  ],
  speaker_names: { SPEAKER_01: 'Ada' },
  camera_map: {
    version: 1,
    speakers: ['SPEAKER_00', 'SPEAKER_01'],
    unassignedSpeakers: [],
    droppedSpeakers: [],
    cameras: [
      { sourceId: 'v1', kind: 'closeup', confidence: 'high', speakers: ['SPEAKER_00'] },
      { sourceId: 'v2', kind: 'closeup', confidence: 'low', speakers: ['SPEAKER_01'] },
      { sourceId: 'v3', kind: 'unknown', confidence: 'none', speakers: [] },
    ],
  },
} as unknown as Pick<Job, 'sources' | 'tracks' | 'camera_map' | 'turns' | 'speaker_names'>;

test('before a mapping: the proposal, by name, with its confidence; a camera with no answer says so', () => {
  const cards = cameraCards({ ...base, tracks: [] });
  expect(cards.map((c) => [c.label, c.state, c.who])).toEqual([
    ['Cam 1', 'proposed', 'close-up: SPEAKER_00 (proposed, confidence high)'],
    ['Cam 2', 'proposed', 'close-up: Ada (SPEAKER_01) (proposed, confidence low)'],
    ['Cam 3', 'unused', 'nobody matched yet'],
  ]);
  // A frame from the middle of the speaker's longest turn, in the camera's own time (offset 2 s).
  expect(cards[1]!.frameMs).toBe(23_000);
  expect(cards[0]!.frameMs).toBe(5000);
  expect(cards[2]!.frameMs).toBe(20_000);
});

test('once mapped: the mapping wins over the proposal; a camera left out is not used', () => {
  const cards = cameraCards({
    ...base,
    tracks: [
      { sourceId: 'v1', speakers: ['SPEAKER_01'] },
      { sourceId: 'v2', speakers: ['SPEAKER_00'] },
    ],
  });
  expect(cards.map((c) => [c.state, c.who])).toEqual([
    ['mapped', 'close-up: Ada (SPEAKER_01)'],
    ['mapped', 'close-up: SPEAKER_00'],
    ['unused', 'nobody: not used in the edit'],
  ]);
});
