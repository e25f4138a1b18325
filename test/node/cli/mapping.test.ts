import { expect, test } from 'vitest';
import { autoMapToSend, chooseMapping } from '../../../src/cli/mapping.ts';
import type { CameraMap, Job } from '../../../src/contract/types.ts';

const sources = [
  { id: 'v1', kind: 'video' },
  { id: 'v2', kind: 'video' },
  { id: 'a1', kind: 'audio' },
] as unknown as Job['sources'];
const turns = [
  { speaker: 'SPEAKER_00', startMs: 0, endMs: 40_000 },
  { speaker: 'SPEAKER_01', startMs: 40_000, endMs: 90_000 },
] as Job['turns'];
/** A sure camera map that says the opposite of what the person will say. */
const sure = {
  version: 1,
  cameras: [
    { sourceId: 'v1', kind: 'closeup', speakers: ['SPEAKER_01'], confidence: 'high' },
    { sourceId: 'v2', kind: 'closeup', speakers: ['SPEAKER_00'], confidence: 'high' },
  ],
} as unknown as CameraMap;

test('--map always wins: the job starts with autoMap off, so the service asks instead of mapping by itself', () => {
  const map = [{ video: 0, speakers: ['SPEAKER_00'] }];
  expect(autoMapToSend('always', map)).toBe('off');
  expect(autoMapToSend('confident', map)).toBe('off');
  expect(autoMapToSend('always', [])).toBe('always');
  expect(autoMapToSend('confident', [])).toBe('confident');
});

test('--map is submitted over a sure camera map that says otherwise', () => {
  const choice = chooseMapping(
    { sources, turns, camera_map: sure },
    ['a.mp4', 'b.mp4'],
    [
      { video: 0, speakers: ['SPEAKER_00'] },
      { video: 1, speakers: ['SPEAKER_01'] },
    ],
  );
  expect(choice).toEqual({
    from: 'option',
    tracks: [
      { sourceId: 'v1', speakers: ['SPEAKER_00'] },
      { sourceId: 'v2', speakers: ['SPEAKER_01'] },
    ],
  });
  // Without --map the camera map's own answer is used.
  expect(chooseMapping({ sources, turns, camera_map: sure }, ['a.mp4', 'b.mp4'], [])).toMatchObject({
    from: 'cameraMap',
  });
});

test('--map naming a speaker the job did not hear asks again, listing who was heard', () => {
  const choice = chooseMapping(
    { sources, turns, camera_map: null },
    ['a.mp4', 'b.mp4'],
    [{ video: 0, speakers: ['SPEAKER_07'] }],
  );
  expect('ask' in choice && choice.ask).toContain('SPEAKER_07');
  expect('ask' in choice && choice.ask).toContain('SPEAKER_01: 50 s of speech');
});
