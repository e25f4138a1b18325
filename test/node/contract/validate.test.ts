/** Edge validation and nextAction: pure functions with exact messages. */
import { describe, expect, test } from 'vitest';
import { ApiError } from '../../../src/contract/errors.ts';
import { nextAction } from '../../../src/contract/next-action.ts';
import { JOB_STATUSES } from '../../../src/contract/types.ts';
import {
  isValidIdempotencyKey,
  parseCreateJob,
  parseAudio,
  parseAudioEdit,
  parsePartNumbers,
  parseSilence,
} from '../../../src/contract/validate.ts';

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('validation', () => {
  test('createJob defaults', () => {
    expect(parseCreateJob({ sources: [{ label: 'A' }, { label: 'M', kind: 'audio', ext: 'flac' }] })).toEqual({
      sources: [
        { label: 'A', kind: 'video', ext: 'mp4' },
        { label: 'M', kind: 'audio', ext: 'wav' },
      ],
      title: null,
      callbackUrl: null,
      review: true,
      autoMap: 'confident',
      silence: { mode: 'off', minPauseSec: 1.5, keepPauseSec: 0.7, paddingSec: 0.25 },
      audio: { loudness: -16, truePeak: -1 },
    });
  });

  test('audio: −16 LUFS and −1 dBTP by default; −14, −19 or off; the peak from −9 to 0; errors name the field', () => {
    expect(parseAudio(undefined)).toEqual({ loudness: -16, truePeak: -1 });
    expect(parseAudio({ loudness: -14 })).toEqual({ loudness: -14, truePeak: -1 });
    expect(parseAudio({ loudness: 'off', truePeak: -2 })).toEqual({ loudness: 'off', truePeak: -2 });
    expect(parseAudio({ loudness: -19, truePeak: 0 })).toEqual({ loudness: -19, truePeak: 0 });
    expect(parseCreateJob({ sources: [{ label: 'A' }], audio: { truePeak: -9 } }).audio).toEqual({
      loudness: -16,
      truePeak: -9,
    });
    for (const bad of [-23, '-16', 'on', null])
      expect(thrown(() => parseAudio({ loudness: bad })).message).toBe(
        'audio.loudness must be one of -16, -14, -19, off',
      );
    for (const bad of [1, -10, '-1', Number.NaN])
      expect(thrown(() => parseAudio({ truePeak: bad })).message).toBe(
        'audio.truePeak must be a number from -9 to 0 (dBTP)',
      );
    const error = thrown(() => parseCreateJob({ sources: [{ label: 'A' }], audio: -16 }));
    expect(error.status).toBe(400);
    expect(error.message).toBe('audio must be an object');
  });

  test("updateCuts' audio.gains: per source, −12 to +12 dB or mute; errors name the source", () => {
    const ids = ['mic-a', 'mic-b'];
    expect(parseAudioEdit({ gains: { 'mic-a': -6, 'mic-b': 'mute' } }, ids)).toEqual({
      gains: { 'mic-a': -6, 'mic-b': 'mute' },
    });
    expect(parseAudioEdit({ gains: {} }, ids)).toEqual({ gains: {} });
    expect(parseAudioEdit({ gains: { 'mic-a': -12, 'mic-b': 12 } }, ids).gains).toEqual({ 'mic-a': -12, 'mic-b': 12 });
    expect(Object.is(parseAudioEdit({ gains: { 'mic-a': -0 } }, ids).gains['mic-a'], 0)).toBe(true);
    for (const bad of [12.5, -13, '3', null, true, Number.POSITIVE_INFINITY, 'off'])
      expect(thrown(() => parseAudioEdit({ gains: { 'mic-b': bad } }, ids)).message).toBe(
        'audio.gains.mic-b must be a number from -12 to 12 (dB) or "mute"',
      );
    const unknown = thrown(() => parseAudioEdit({ gains: { 'cam-z': 0 } }, ids));
    expect(unknown.status).toBe(400);
    expect(unknown.message).toBe('audio.gains.cam-z: cam-z is not a source of this job');
    expect(thrown(() => parseAudioEdit({}, ids)).message).toBe('audio.gains is required');
    expect(thrown(() => parseAudioEdit({ gains: [1] }, ids)).message).toBe(
      'audio.gains must be an object from source ids to dB or "mute"',
    );
    expect(thrown(() => parseAudioEdit(-6, ids)).message).toBe('audio must be an object');
  });

  test('fileSize errors name the field and carry the spec fields', () => {
    const negative = thrown(() =>
      parseCreateJob({ sources: [{ label: 'A' }, { label: 'B' }, { label: 'C', fileSize: -5 }] }),
    );
    expect(negative.status).toBe(400);
    expect(negative.body).toEqual({ error: 'sources[2].fileSize must be an integer from 0 to 107374182400' });
    const fraction = thrown(() => parseCreateJob({ sources: [{ label: 'A', fileSize: 0.5 }] }));
    expect(fraction.body.code).toBe('INVALID_FILE_SIZE');
    const big = thrown(() => parseCreateJob({ sources: [{ label: 'A', fileSize: 2 ** 40 }] }));
    expect(big.body).toMatchObject({ code: 'FILE_TOO_LARGE', maxBytes: 107374182400, sourceIndex: 0 });
    expect(big.name).toBe('FILE_TOO_LARGE');
  });

  test('silence ranges are inclusive', () => {
    expect(parseSilence({ mode: 'tighten', minPauseSec: 0.3, keepPauseSec: 3, paddingSec: 0 })).toEqual({
      mode: 'tighten',
      minPauseSec: 0.3,
      keepPauseSec: 3,
      paddingSec: 0,
    });
    expect(thrown(() => parseSilence({ mode: 'tighten', minPauseSec: 10.01 })).message).toBe(
      'silence.minPauseSec must be a number from 0.3 to 10',
    );
    expect(thrown(() => parseSilence({})).message).toContain('silence.mode');
  });

  test('idempotency keys: 1 to 255 printable ASCII', () => {
    expect(isValidIdempotencyKey('a')).toBe(true);
    expect(isValidIdempotencyKey(' ~')).toBe(true);
    expect(isValidIdempotencyKey('')).toBe(false);
    expect(isValidIdempotencyKey('x'.repeat(256))).toBe(false);
    expect(isValidIdempotencyKey('tab\there')).toBe(false);
    expect(isValidIdempotencyKey('\u00e9')).toBe(false);
  });

  test('part numbers: 1 to 16 of them, each within partCount', () => {
    expect(parsePartNumbers([1, 3], 3)).toEqual([1, 3]);
    expect(thrown(() => parsePartNumbers([4], 3)).message).toBe(
      'partNumbers[0] must be an integer from 1 to 3 (partCount)',
    );
    expect(thrown(() => parsePartNumbers([], 3)).status).toBe(400);
    expect(
      thrown(() =>
        parsePartNumbers(
          Array.from({ length: 17 }, () => 1),
          30,
        ),
      ).status,
    ).toBe(400);
  });
});

describe('nextAction', () => {
  const base = {
    failedAtStatus: null,
    failurePermanent: false,
    reviewUrl: 'https://x/review/?token=t',
    outputUrl: 'https://x/out',
  };
  test('type per status, as the spec table says', () => {
    const types = Object.fromEntries(
      JOB_STATUSES.map((status) => [
        status,
        nextAction({ ...base, status, failedAtStatus: status === 'failed' ? 'syncing' : null }).type,
      ]),
    );
    expect(types).toEqual({
      created: 'upload_files',
      uploading: 'upload_files',
      syncing: 'wait',
      diarizing: 'wait',
      mapping: 'map_speakers',
      ready: 'review_or_render',
      rendering: 'wait',
      complete: 'download',
      approved: 'download',
      failed: 'retry',
    });
  });
  test('urls: review link, download link, mailto, else null', () => {
    expect(nextAction({ ...base, status: 'mapping' }).url).toBe(base.reviewUrl);
    expect(nextAction({ ...base, status: 'complete' }).url).toBe(base.outputUrl);
    expect(nextAction({ ...base, status: 'syncing' }).url).toBeNull();
    const permanent = nextAction({ ...base, status: 'failed', failedAtStatus: 'syncing', failurePermanent: true });
    expect(permanent.type).toBe('contact_support');
    expect(permanent.url).toMatch(/^mailto:/);
    expect(nextAction({ ...base, status: 'failed', failedAtStatus: 'diarizing' }).message).toContain(
      'diarizeSourceIds',
    );
  });
});
