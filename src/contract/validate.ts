/**
 * Request validation at the edge: each function takes the parsed JSON body (`unknown`) and
 * returns typed data, or throws an {@link ApiError} whose message names the field at fault.
 * Unknown fields are ignored.
 *
 * @module
 */
import { ApiError } from './errors.ts';
import { SPEAKER_NAME_MAX_LENGTH } from './speaker-names.ts';
import { hasControlCharacters, plainLine } from './text.ts';
import {
  AUDIO_DEFAULTS,
  AUTO_MAP_MODES,
  LIMITS,
  LOUDNESS_TARGETS,
  PRESET_IDS,
  SILENCE_DEFAULTS,
  SILENCE_MODES,
  SILENCE_RANGES,
  SOURCE_EXTS,
  SOURCE_GAIN_RANGE,
  SOURCE_KINDS,
  TRUE_PEAK_RANGE,
  type AudioEdit,
  type AutoMapMode,
  type Cut,
  type PresetId,
  type ResolvedAudioSettings,
  type ResolvedSilenceSettings,
  type SourceExt,
  type SourceGain,
  type SourceKind,
  type TimeRange,
  type Track,
} from './types.ts';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as an object, or 400. `null`/absent is allowed only when `optional`. */
export function requireObject(body: unknown, optional = false): JsonObject {
  if (optional && (body === undefined || body === null)) return {};
  if (!isObject(body)) throw ApiError.badRequest('the request body must be a JSON object');
  return body;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw ApiError.badRequest(`${field} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw ApiError.badRequest(`${field} must be a non-empty string`);
  return value;
}

/**
 * Free text a person typed, as one plain line ({@link plainLine}: line breaks and tabs become a
 * space, other control characters go): at most `maxLength` characters as sent (longer is 400, so
 * a megabyte label never reaches storage or an export), and not empty once cleaned.
 */
function requireText(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string') throw ApiError.badRequest(`${field} must be a non-empty string`);
  if (value.length > maxLength) throw ApiError.badRequest(`${field} must be at most ${maxLength} characters`);
  const text = plainLine(value);
  if (text === '') throw ApiError.badRequest(`${field} must be a non-empty string`);
  return text;
}

function requireNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw ApiError.badRequest(`${field} must be a number`);
  return value;
}

function requireArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw ApiError.badRequest(`${field} must be an array`);
  return value;
}

/** A validated source of createJob, defaults filled in. */
export interface ParsedSource {
  label: string;
  kind: SourceKind;
  ext: SourceExt;
  fileSize?: number;
  /** The page uses the file in place (nothing stored). */
  local?: boolean;
}

/** A validated createJob body, defaults filled in. */
export interface ParsedCreateJob {
  sources: ParsedSource[];
  title: string | null;
  callbackUrl: string | null;
  review: boolean;
  autoMap: AutoMapMode;
  silence: ResolvedSilenceSettings;
  audio: ResolvedAudioSettings;
}

/**
 * createJob's `audio` with defaults (−16 LUFS, −1 dBTP); `undefined` means the defaults.
 *
 * @example
 * parseAudio({ loudness: -14 }); // { loudness: -14, truePeak: -1 }
 * parseAudio({ loudness: 'off' }); // { loudness: 'off', truePeak: -1 }
 */
export function parseAudio(value: unknown, field = 'audio'): ResolvedAudioSettings {
  if (value === undefined) return { ...AUDIO_DEFAULTS };
  if (!isObject(value)) throw ApiError.badRequest(`${field} must be an object`);
  const resolved: ResolvedAudioSettings = { ...AUDIO_DEFAULTS };
  const loudness = value['loudness'];
  if (loudness !== undefined) {
    if (loudness !== 'off' && !(LOUDNESS_TARGETS as readonly unknown[]).includes(loudness))
      throw ApiError.badRequest(`${field}.loudness must be one of ${LOUDNESS_TARGETS.join(', ')}, off`);
    resolved.loudness = loudness as ResolvedAudioSettings['loudness'];
  }
  const truePeak = value['truePeak'];
  if (truePeak !== undefined) {
    const [min, max] = TRUE_PEAK_RANGE;
    if (typeof truePeak !== 'number' || !Number.isFinite(truePeak) || truePeak < min || truePeak > max)
      throw ApiError.badRequest(`${field}.truePeak must be a number from ${min} to ${max} (dBTP)`);
    resolved.truePeak = truePeak;
  }
  return resolved;
}

/**
 * updateCuts' `audio`: `{ gains }`, every gain in force by source id (the job's `sourceIds`),
 * each a number of dB within {@link SOURCE_GAIN_RANGE} or `mute`.
 *
 * @example
 * parseAudioEdit({ gains: { [micB]: -6, [micC]: 'mute' } }, [micA, micB, micC]);
 */
export function parseAudioEdit(value: unknown, sourceIds: readonly string[], field = 'audio'): AudioEdit {
  if (!isObject(value)) throw ApiError.badRequest(`${field} must be an object`);
  const raw = value['gains'];
  if (raw === undefined) throw ApiError.badRequest(`${field}.gains is required`);
  if (!isObject(raw)) throw ApiError.badRequest(`${field}.gains must be an object from source ids to dB or "mute"`);
  const [min, max] = SOURCE_GAIN_RANGE;
  const gains: Record<string, SourceGain> = {};
  for (const [id, gain] of Object.entries(raw)) {
    const at = `${field}.gains.${id}`;
    if (!sourceIds.includes(id)) throw ApiError.badRequest(`${at}: ${id} is not a source of this job`);
    if (gain === 'mute') gains[id] = 'mute';
    else if (typeof gain === 'number' && Number.isFinite(gain) && gain >= min && gain <= max)
      gains[id] = gain === 0 ? 0 : gain; // (−0 reads as 0)
    else throw ApiError.badRequest(`${at} must be a number from ${min} to ${max} (dB) or "mute"`);
  }
  return { gains };
}

/** Silence settings with defaults; `undefined` means off. */
export function parseSilence(value: unknown, field = 'silence'): ResolvedSilenceSettings {
  if (value === undefined) return { mode: 'off', ...SILENCE_DEFAULTS };
  if (!isObject(value)) throw ApiError.badRequest(`${field} must be an object`);
  const mode = oneOf(value['mode'], SILENCE_MODES, `${field}.mode`);
  const resolved: ResolvedSilenceSettings = { mode, ...SILENCE_DEFAULTS };
  for (const key of ['minPauseSec', 'keepPauseSec', 'paddingSec'] as const) {
    const raw = value[key];
    if (raw === undefined) continue;
    const [min, max] = SILENCE_RANGES[key];
    if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < min || raw > max) {
      throw ApiError.badRequest(`${field}.${key} must be a number from ${min} to ${max}`);
    }
    resolved[key] = raw;
  }
  return resolved;
}

function parseSource(value: unknown, index: number): ParsedSource {
  const field = `sources[${index}]`;
  if (!isObject(value)) throw ApiError.badRequest(`${field} must be an object`);
  const label = requireText(value['label'], `${field}.label`, LIMITS.labelMaxLength);
  const kind = value['kind'] === undefined ? 'video' : oneOf(value['kind'], SOURCE_KINDS, `${field}.kind`);
  const fallbackExt: SourceExt = kind === 'audio' ? 'wav' : 'mp4';
  // The spec: an unknown ext falls back to the default rather than failing.
  const rawExt = value['ext'];
  const ext =
    typeof rawExt === 'string' && (SOURCE_EXTS as readonly string[]).includes(rawExt)
      ? (rawExt as SourceExt)
      : fallbackExt;
  const source: ParsedSource = { label, kind, ext };
  const fileSize = value['fileSize'];
  if (fileSize !== undefined) {
    const range = `${field}.fileSize must be an integer from 0 to ${LIMITS.maxFileSize}`;
    if (typeof fileSize !== 'number' || !Number.isFinite(fileSize) || !Number.isInteger(fileSize)) {
      throw ApiError.withCode('INVALID_FILE_SIZE', range, { sourceIndex: index });
    }
    if (fileSize < 0) throw ApiError.badRequest(range);
    if (fileSize > LIMITS.maxFileSize) {
      throw ApiError.withCode('FILE_TOO_LARGE', `${field}.fileSize is over the limit of ${LIMITS.maxFileSize} bytes`, {
        maxBytes: LIMITS.maxFileSize,
        sourceIndex: index,
      });
    }
    source.fileSize = fileSize;
  }
  const local = value['local'];
  if (local !== undefined && typeof local !== 'boolean') throw ApiError.badRequest(`${field}.local must be a boolean`);
  if (local === true) {
    if (source.fileSize === undefined)
      throw ApiError.withCode(
        'INVALID_FILE_SIZE',
        `${field}.fileSize is required with local: true (the picked file is checked against it)`,
        { sourceIndex: index },
      );
    source.local = true;
  }
  return source;
}

/** Validates a createJob body. */
export function parseCreateJob(body: unknown): ParsedCreateJob {
  const input = requireObject(body);
  const tracks = input['tracks'];
  if (tracks !== undefined && !(Array.isArray(tracks) && tracks.length === 0)) {
    throw ApiError.withCode(
      'TRACKS_ON_CREATE',
      'tracks cannot be given at creation; submit the speaker mapping with submitSpeakerMapping once speakers are detected',
    );
  }
  if (input['sources'] === undefined) throw ApiError.badRequest('sources is required');
  const rawSources = requireArray(input['sources'], 'sources');
  if (rawSources.length > LIMITS.maxSources)
    throw ApiError.badRequest(`sources must have at most ${LIMITS.maxSources} entries`);
  const sources = rawSources.map(parseSource);
  let title: string | null = null;
  if (input['title'] !== undefined) {
    const raw = input['title'];
    const clean = typeof raw === 'string' && raw.length <= LIMITS.titleMaxLength ? plainLine(raw) : '';
    if (clean === '') throw ApiError.badRequest(`title must be a string of 1 to ${LIMITS.titleMaxLength} characters`);
    title = clean;
  }
  let callbackUrl: string | null = null;
  if (input['callbackUrl'] !== undefined) {
    const raw = input['callbackUrl'];
    // Pure code has no URL class: a conservative absolute http(s) URL pattern.
    if (typeof raw !== 'string' || !/^https?:\/\/[^\s/?#]+[^\s]*$/i.test(raw)) {
      throw ApiError.badRequest('callbackUrl must be an absolute http or https URL');
    }
    callbackUrl = raw;
  }
  let review = true;
  if (input['review'] !== undefined) {
    if (typeof input['review'] !== 'boolean') throw ApiError.badRequest('review must be a boolean');
    review = input['review'];
  }
  const autoMap = input['autoMap'] === undefined ? 'confident' : oneOf(input['autoMap'], AUTO_MAP_MODES, 'autoMap');
  const silence = parseSilence(input['silence']);
  const audio = parseAudio(input['audio']);
  return { sources, title, callbackUrl, review, autoMap, silence, audio };
}

/** `1 to 255 printable ASCII characters` (0x20–0x7E). */
export function isValidIdempotencyKey(key: string): boolean {
  return key.length >= 1 && key.length <= 255 && /^[\x20-\x7e]+$/.test(key);
}

/** Tracks of submitSpeakerMapping. */
export function parseTracks(value: unknown, field = 'tracks'): Track[] {
  if (value === undefined) throw ApiError.badRequest(`${field} is required`);
  return requireArray(value, field).map((raw, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(raw)) throw ApiError.badRequest(`${at} must be an object`);
    const sourceId = requireString(raw['sourceId'], `${at}.sourceId`);
    const speakers = requireArray(raw['speakers'], `${at}.speakers`).map((s, j) => {
      if (typeof s !== 'string') throw ApiError.badRequest(`${at}.speakers[${j}] must be a string`);
      return s;
    });
    return { sourceId, speakers };
  });
}

/**
 * A cut list: numeric startMs not above endMs, and a sourceId. A `reason` (free text shown in
 * the editor and written into every export) is at most {@link LIMITS.reasonMaxLength} characters
 * and kept as one plain line; a reason that is not a string is ignored.
 */
export function parseCuts(value: unknown, field = 'cuts'): Cut[] {
  return requireArray(value, field).map((raw, i) => {
    const at = `${field}[${i}]`;
    const { startMs, endMs } = parseRange(raw, at);
    const fields = raw as Record<string, unknown>;
    const sourceId = requireString(fields['sourceId'], `${at}.sourceId`);
    const cut: Cut = { startMs, endMs, sourceId };
    const reason = fields['reason'];
    if (typeof reason === 'string') {
      if (reason.length > LIMITS.reasonMaxLength)
        throw ApiError.badRequest(`${at}.reason must be at most ${LIMITS.reasonMaxLength} characters`);
      cut.reason = plainLine(reason);
    }
    return cut;
  });
}

/** A list of time ranges: numeric startMs not above endMs. */
export function parseRanges(value: unknown, field = 'removedRanges'): TimeRange[] {
  return requireArray(value, field).map((raw, i) => parseRange(raw, `${field}[${i}]`));
}

/** One object with numeric startMs not above endMs; `at` names it in errors. */
function parseRange(raw: unknown, at: string): TimeRange {
  if (!isObject(raw)) throw ApiError.badRequest(`${at} must be an object`);
  const startMs = requireNumber(raw['startMs'], `${at}.startMs`);
  const endMs = requireNumber(raw['endMs'], `${at}.endMs`);
  if (startMs > endMs) throw ApiError.badRequest(`${at}.startMs must not be above ${at}.endMs`);
  return { startMs, endMs };
}

/** `presetId` of recutJob (required). */
export function parsePresetId(value: unknown): PresetId {
  if (value === undefined) throw ApiError.badRequest('presetId is required');
  return oneOf(value, PRESET_IDS, 'presetId');
}

/** A list of source ids that must all be among `known`; empty allowed only when `allowEmpty`. */
export function parseSourceIds(value: unknown, field: string, known: readonly string[], allowEmpty: boolean): string[] {
  const list = requireArray(value, field);
  if (!allowEmpty && list.length === 0) throw ApiError.badRequest(`${field} must not be empty`);
  return list.map((raw, i) => {
    if (typeof raw !== 'string') throw ApiError.badRequest(`${field}[${i}] must be a string`);
    if (!known.includes(raw)) throw ApiError.badRequest(`${field}[${i}] is not a source of this job: ${raw}`);
    return raw;
  });
}

/** Part numbers of requestUploadPartUrls: 1..16 integers each within 1..partCount. */
export function parsePartNumbers(value: unknown, partCount: number): number[] {
  if (value === undefined) throw ApiError.badRequest('partNumbers is required');
  const list = requireArray(value, 'partNumbers');
  if (list.length === 0 || list.length > LIMITS.maxPartNumbersPerRequest) {
    throw ApiError.badRequest(`partNumbers must have 1 to ${LIMITS.maxPartNumbersPerRequest} entries`);
  }
  return list.map((raw, i) => {
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > partCount) {
      throw ApiError.badRequest(`partNumbers[${i}] must be an integer from 1 to ${partCount} (partCount)`);
    }
    return raw;
  });
}

/**
 * The `names` of nameSpeakers: an object from detected speaker labels to names. A name is trimmed;
 * an empty one removes the speaker's name. Names are unique (two people called the same would be
 * one person in every list), at most {@link SPEAKER_NAME_MAX_LENGTH} characters, without control
 * characters (C0, C1, line and paragraph separators, U+FFFE/U+FFFF, lone surrogates), and not
 * another speaker's label.
 */
export function parseSpeakerNames(
  value: unknown,
  speakers: readonly string[],
  field = 'names',
): Record<string, string> {
  if (value === undefined) throw ApiError.badRequest(`${field} is required`);
  if (!isObject(value)) throw ApiError.badRequest(`${field} must be an object from speaker labels to names`);
  const names: Record<string, string> = {};
  const taken = new Map<string, string>();
  for (const [label, raw] of Object.entries(value)) {
    const at = `${field}.${label}`;
    if (!speakers.includes(label))
      throw ApiError.badRequest(
        `${at}: ${label} is not a detected speaker of this job (detected: ${speakers.join(', ') || 'none'})`,
      );
    if (typeof raw !== 'string') throw ApiError.badRequest(`${at} must be a string`);
    const name = raw.trim();
    if (name === '') continue;
    if (name.length > SPEAKER_NAME_MAX_LENGTH)
      throw ApiError.badRequest(`${at} must be at most ${SPEAKER_NAME_MAX_LENGTH} characters`);
    // Refused rather than cleaned (unlike labels): a name is an identity, shown and compared as typed.
    if (hasControlCharacters(name)) throw ApiError.badRequest(`${at} must not contain control characters`);
    if (speakers.includes(name) && name !== label)
      throw ApiError.badRequest(`${at} must not be another speaker's label (${name})`);
    const key = name.toLocaleLowerCase();
    const other = taken.get(key);
    if (other !== undefined) throw ApiError.badRequest(`${at}: ${other} is already called "${name}"`);
    taken.set(key, label);
    names[label] = name;
  }
  return names;
}
