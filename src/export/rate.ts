/**
 * Frame rates as exact rationals and SMPTE timecode (drop-frame and non-drop), for the edit
 * exports. Pure: numbers in, numbers and strings out.
 *
 * @module
 */
import { ExportError } from './errors.ts';

/** A frame rate as the exact fraction `num/den` frames per second (29.97 is 30000/1001). */
export interface FrameRate {
  num: number;
  den: number;
}

/** Integer rates that have an NTSC (×1000/1001) variant. */
const NTSC_BASES = [24, 30, 48, 60, 120] as const;

/**
 * The exact rate for a frames-per-second number: 23.976, 29.97, 59.94 (and 47.952, 119.88)
 * become `n·1000/1001`; whole numbers stay whole. Anything else is refused, naming `field`.
 *
 * @example
 * frameRateOf(29.97); // { num: 30000, den: 1001 }
 * frameRateOf(25);    // { num: 25, den: 1 }
 */
export function frameRateOf(fps: number, field = 'fps'): FrameRate {
  if (!Number.isFinite(fps) || fps < 1 || fps > 240)
    throw new ExportError(field, `${field} must be a frame rate from 1 to 240 (got ${fps})`);
  for (const base of NTSC_BASES) {
    if (Math.abs(fps - (base * 1000) / 1001) < 0.01) return { num: base * 1000, den: 1001 };
  }
  const whole = Math.round(fps);
  if (Math.abs(fps - whole) < 0.01) return { num: whole, den: 1 };
  throw new ExportError(
    field,
    `${field} must be a whole frame rate or an NTSC rate such as 23.976, 29.97 or 59.94 (got ${fps})`,
  );
}

/** Frames per second as a number. */
export function fpsOf(rate: FrameRate): number {
  return rate.num / rate.den;
}

/** Milliseconds per frame. */
export function frameMs(rate: FrameRate): number {
  return (1000 * rate.den) / rate.num;
}

/** The nominal (counting) rate of timecode: 30 for 29.97, 24 for 23.976. */
export function timebaseOf(rate: FrameRate): number {
  return Math.round(rate.num / rate.den);
}

/** Whether the rate is an NTSC rate (`n·1000/1001`). */
export function isNtsc(rate: FrameRate): boolean {
  return rate.den === 1001;
}

/** Whether drop-frame timecode exists at this rate (29.97 and 59.94 only). */
export function supportsDropFrame(rate: FrameRate): boolean {
  return isNtsc(rate) && timebaseOf(rate) % 30 === 0;
}

/** Frame numbers each drop-frame minute skips: 2 at 29.97, 4 at 59.94. */
function dropPerMinute(rate: FrameRate): number {
  return (timebaseOf(rate) / 30) * 2;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * SMPTE timecode of a frame count. Drop-frame (`HH:MM:SS;FF`) skips frame numbers 0 and 1
 * (0–3 at 59.94) at the start of every minute except each tenth, so the clock stays on wall
 * time; non-drop (`HH:MM:SS:FF`) counts every frame at the nominal rate.
 *
 * @example
 * toTimecode(17982, { num: 30000, den: 1001 }, true);  // '00:10:00;00'
 * toTimecode(17982, { num: 30000, den: 1001 }, false); // '00:09:59:12'
 */
export function toTimecode(frame: number, rate: FrameRate, dropFrame: boolean): string {
  if (!Number.isInteger(frame) || frame < 0)
    throw new ExportError('frame', `a timecode needs a whole frame count >= 0 (got ${frame})`);
  const base = timebaseOf(rate);
  let counted = frame;
  const drop = dropFrame && supportsDropFrame(rate);
  if (drop) {
    const d = dropPerMinute(rate);
    const perMinute = base * 60 - d;
    const perTenMinutes = perMinute * 10 + d;
    const tens = Math.floor(frame / perTenMinutes);
    const rest = frame % perTenMinutes;
    counted += d * 9 * tens + (rest > d ? d * Math.floor((rest - d) / perMinute) : 0);
  }
  const ff = counted % base;
  const totalSeconds = Math.floor(counted / base);
  const hh = Math.floor(totalSeconds / 3600) % 24;
  return `${pad(hh)}:${pad(Math.floor(totalSeconds / 60) % 60)}:${pad(totalSeconds % 60)}${drop ? ';' : ':'}${pad(ff)}`;
}

/**
 * The frame count of a timecode (the inverse of {@link toTimecode}); a `;` before the frames
 * means drop-frame.
 */
export function fromTimecode(timecode: string, rate: FrameRate): number {
  const m = /^(\d\d):(\d\d):(\d\d)([:;.,])(\d\d)$/.exec(timecode.trim());
  if (!m) throw new ExportError('timecode', `not a timecode: "${timecode}" (want HH:MM:SS:FF or HH:MM:SS;FF)`);
  const [hh, mm, ss, ff] = [m[1], m[2], m[3], m[5]].map(Number) as [number, number, number, number];
  const base = timebaseOf(rate);
  const counted = ((hh * 60 + mm) * 60 + ss) * base + ff;
  if (!(m[4] === ';' || m[4] === ',') || !supportsDropFrame(rate)) return counted;
  const minutes = hh * 60 + mm;
  return counted - dropPerMinute(rate) * (minutes - Math.floor(minutes / 10));
}

/** Greatest common divisor of two non-negative integers. */
function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * A frame count as rational seconds for FCPXML (`1001/30000s`, `5/1s`→`5s`, `0s`), reduced.
 *
 * @example
 * rationalSeconds(3, { num: 30000, den: 1001 }); // '1001/10000s'
 */
export function rationalSeconds(frames: number, rate: FrameRate): string {
  if (frames === 0) return '0s';
  const n = frames * rate.den;
  const g = gcd(Math.abs(n), rate.num);
  const num = n / g;
  const den = rate.num / g;
  return den === 1 ? `${num}s` : `${num}/${den}s`;
}
