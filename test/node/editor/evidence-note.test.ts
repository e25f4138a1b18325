import { expect, test } from 'vitest';
import { evidenceNote } from '../../../src/dom/editor/mapping-panel.ts';

test('the proposal text never says faces were matched when no one was', () => {
  expect(evidenceNote({ evidence: 'faces', faces: 1, speakers: ['SPEAKER_00'] })).toBe(
    ' · 1 face seen, matched to the voices by their mouths',
  );
  expect(evidenceNote({ evidence: 'faces', faces: 2, speakers: [] })).toBe(
    ' · 2 faces seen, but no mouth moved with a voice clearly enough to say whose',
  );
  expect(evidenceNote({ evidence: 'motion', speakers: [] })).toBe('');
});
