/**
 * Argument parsing of `multicam edit`: precise messages that name the option at fault.
 *
 * @module
 */
import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AUTO_MAP_MODES,
  LOUDNESS_TARGETS,
  PRESET_IDS,
  SILENCE_MODES,
  SOURCE_EXTS,
  type AutoMapMode,
  type LoudnessTarget,
  type PresetId,
  type SilenceMode,
} from '../contract/types.ts';
import { EXPORT_FORMATS, isExportFormat, type ExportFormat } from '../export/index.ts';
import type { MapOption } from './mapping.ts';

/** `multicam edit`'s options, validated. */
export interface EditArgs {
  videos: string[];
  audio: string[];
  output: string;
  preset: PresetId | null;
  silence: SilenceMode;
  /** `--loudness -16|-14|-19|off`: the render's loudness target (null: the service's default, −16 LUFS). */
  loudness: LoudnessTarget | 'off' | null;
  autoMap: AutoMapMode;
  title: string | null;
  /** Give up after this long, in ms. */
  timeoutMs: number;
  /** Print the page's console. */
  verbose: boolean;
  /** Build the app even if the cached build looks current. */
  rebuild: boolean;
  /** Copy the files into the browser's storage (uploads) instead of using them in place. */
  copy: boolean;
  /** `--map VIDEO=S1,S2`: who is on which camera, when the service cannot tell. */
  map: MapOption[];
  /** `--export fcpxml,xmeml,otio,edl`: edit exports written next to the output, in this order. */
  exports: CliExport[];
  /** `--record-start HH:MM:SS:FF`: the exports' record start (null: the route's 01:00:00:00). */
  recordStart: string | null;
  /**
   * `--active-speaker-model PATH`: an active-speaker ONNX model (LR-ASD's) the page is given as
   * `assets.activeSpeakerModelUrl`, to match faces to voices by it instead of mouth motion.
   */
  activeSpeakerModel: string | null;
}

/** An export `--export` asks for and the file it is written to. */
export interface CliExport {
  format: ExportFormat;
  path: string;
}

/** The file extension of each export format (`xmeml` is Premiere's `.xml`). */
export const EXPORT_EXTENSIONS: Record<ExportFormat, string> = {
  fcpxml: 'fcpxml',
  xmeml: 'xml',
  otio: 'otio',
  edl: 'edl',
};

/** `--help` or `-h` among `edit`'s arguments: the usage is printed and the exit code is 0. */
export class HelpRequested extends Error {
  override name = 'HelpRequested';
}

/** Where each export of `--export` goes: beside `output`, its extension replaced (`out.mp4` → `out.fcpxml`). */
export function exportPaths(value: string, output: string): CliExport[] {
  const formats = value
    .split(',')
    .map((f) => f.trim().toLowerCase())
    .filter((f) => f !== '');
  if (formats.length === 0)
    throw new UsageError(`--export needs formats: ${EXPORT_FORMATS.join(',')} (got "${value}")`);
  const unknown = formats.find((f) => !isExportFormat(f));
  if (unknown !== undefined)
    throw new UsageError(`--export: "${unknown}" is not an export format (use ${EXPORT_FORMATS.join(', ')})`);
  const stem = /\.[^./\\]+$/.test(output) ? output.slice(0, output.lastIndexOf('.')) : output;
  const exports = [...new Set(formats as ExportFormat[])].map((format) => ({
    format,
    path: `${stem}.${EXPORT_EXTENSIONS[format]}`,
  }));
  const clash = exports.find((e) => e.path === output);
  if (clash) throw new UsageError(`--export ${clash.format} would overwrite -o ${output}: give -o another extension`);
  return exports;
}

export const USAGE = `usage: multicam edit <video…> [--audio mic.wav …] -o out.mp4
  [--preset relaxed|balanced|dynamic]   cut pacing (a recut before rendering; default balanced)
  [--silence off|tighten|remove]        pauses (default off)
  [--loudness -16|-14|-19|off]          the sound's integrated loudness, LUFS, with each voice
                                        levelled and true peaks under -1 dBTP (default -16)
  [--auto-map always|confident|off]     camera mapping: 'always' (default) lets the service map;
                                        otherwise the CLI accepts the camera map proposal
  [--map VIDEO=SPEAKER[,SPEAKER…]]…    who is on which camera (VIDEO: file name or position);
                                        always wins (the service then does not map by itself);
                                        without it, the service's camera map; when that is not
                                        sure the CLI lists the speakers it heard and exits 4
  [--copy]                              store copies of the files in the browser (uploads);
                                        default: the files are used in place, nothing copied
  [--export fcpxml,xmeml,otio,edl]      also write the edit for editing software beside -o
                                        (out.fcpxml, out.xml, out.otio, out.edl), at the main
                                        camera's frame rate and size
  [--record-start HH:MM:SS:FF]          timecode of the exports' first frame (default 01:00:00:00)
  [--active-speaker-model PATH]         an active-speaker model (LR-ASD as ONNX) for the camera
                                        map: faces matched to voices by it, not by mouth motion
  [--title T] [--timeout SECONDS] [--verbose] [--rebuild] [--help]
Runs the whole job headless in Chromium (/usr/bin/chromium, MULTICAM_CHROMIUM, or a
Playwright-installed browser) and writes the rendered video to -o.
usage: multicam init <publicDir> [--ffmpeg]
Copies sw.js, wasm/ and models/ (with --ffmpeg, the app's own GPL ffmpeg core) into an app's
public folder, for apps that do not use the multicam/vite plugin.`;

/** A command-line mistake: exit code 2, with the usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

/** `--flag -16` → `--flag=-16`: parseArgs takes a value starting with a dash for an option. */
function joinNegativeValues(argv: readonly string[], flag: string): string[] {
  const out: string[] = [];
  for (const a of argv) {
    if (out.at(-1) === flag && /^-\d/.test(a)) out[out.length - 1] = `${flag}=${a}`;
    else out.push(a);
  }
  return out;
}

function parseLoudness(value: string | undefined): LoudnessTarget | 'off' | null {
  if (value === undefined) return null;
  if (value === 'off') return 'off';
  const n = Number(value);
  if (!(LOUDNESS_TARGETS as readonly number[]).includes(n) || value.trim() === '')
    throw new UsageError(`--loudness must be one of ${LOUDNESS_TARGETS.join(', ')}, off (got "${value}")`);
  return n as LoudnessTarget;
}

function checkFile(flag: string, path: string): void {
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`${flag} ${path}: no such file`);
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  if (!(SOURCE_EXTS as readonly string[]).includes(ext))
    throw new UsageError(`${flag} ${path}: unsupported extension ".${ext}" (use ${SOURCE_EXTS.join(', ')})`);
}

/** Parses `edit`'s arguments (without the `edit` word). */
export function parseEditArgs(argv: string[]): EditArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, '--loudness'),
      allowPositionals: true,
      options: {
        audio: { type: 'string', multiple: true },
        output: { type: 'string', short: 'o' },
        preset: { type: 'string' },
        silence: { type: 'string' },
        loudness: { type: 'string' },
        'auto-map': { type: 'string' },
        title: { type: 'string' },
        timeout: { type: 'string' },
        verbose: { type: 'boolean' },
        rebuild: { type: 'boolean' },
        copy: { type: 'boolean' },
        map: { type: 'string', multiple: true },
        export: { type: 'string', multiple: true },
        'record-start': { type: 'string' },
        'active-speaker-model': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // `--help` wins over any mistake beside it.
    if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequested('help');
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help === true) throw new HelpRequested('help');
  if (positionals.length < 2) throw new UsageError(`give at least two videos (got ${positionals.length})`);
  positionals.forEach((p, i) => checkFile(`videos[${i}]`, p));
  const audio = values.audio ?? [];
  audio.forEach((p) => checkFile('--audio', p));
  if (values.output === undefined) throw new UsageError('-o out.mp4 is required');
  const model = values['active-speaker-model'];
  if (model !== undefined && (!existsSync(model) || !statSync(model).isFile()))
    throw new UsageError(`--active-speaker-model ${model}: no such file`);
  if (model !== undefined && !model.toLowerCase().endsWith('.onnx'))
    throw new UsageError(`--active-speaker-model ${model}: expected an ONNX model (.onnx)`);
  const recordStart = values['record-start'];
  if (recordStart !== undefined && !/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d[:;]\d{2}$/.test(recordStart))
    throw new UsageError(`--record-start must be a timecode HH:MM:SS:FF such as 01:00:00:00 (got "${recordStart}")`);
  if (recordStart !== undefined && values.export === undefined)
    throw new UsageError('--record-start applies to the exports: give --export too');
  const timeoutS = values.timeout === undefined ? 1800 : Number(values.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0)
    throw new UsageError(`--timeout must be a positive number of seconds (got "${values.timeout}")`);
  return {
    videos: positionals,
    audio,
    output: values.output,
    preset: values.preset === undefined ? null : oneOf('--preset', values.preset, PRESET_IDS, 'balanced'),
    silence: oneOf('--silence', values.silence, SILENCE_MODES, 'off'),
    loudness: parseLoudness(values.loudness),
    autoMap: oneOf('--auto-map', values['auto-map'], AUTO_MAP_MODES, 'always'),
    title: values.title ?? null,
    timeoutMs: timeoutS * 1000,
    verbose: values.verbose === true,
    rebuild: values.rebuild === true,
    copy: values.copy === true,
    map: (values.map ?? []).map((m) => parseMap(m, positionals)),
    exports: values.export === undefined ? [] : exportPaths(values.export.join(','), values.output),
    recordStart: recordStart ?? null,
    activeSpeakerModel: model ?? null,
  };
}

/** One `--map VIDEO=S1[,S2…]`; VIDEO is a video's file name (or path) or its position 1…n. */
function parseMap(value: string, videos: readonly string[]): MapOption {
  const eq = value.indexOf('=');
  const key = eq < 0 ? '' : value.slice(0, eq).trim();
  const speakers = (eq < 0 ? '' : value.slice(eq + 1))
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (key === '' || speakers.length === 0)
    throw new UsageError(`--map must be VIDEO=SPEAKER[,SPEAKER…], e.g. --map cam1.mp4=S1 (got "${value}")`);
  const byPosition = /^\d+$/.test(key) ? Number(key) - 1 : -1;
  const video =
    byPosition >= 0 && byPosition < videos.length
      ? byPosition
      : videos.findIndex((v) => v === key || basename(v) === basename(key));
  if (video < 0)
    throw new UsageError(
      `--map ${value}: "${key}" is none of the videos (${videos.map((v, i) => `${i + 1} ${basename(v)}`).join(', ')})`,
    );
  return { video, speakers };
}
