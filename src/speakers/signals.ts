/**
 * The signals speaker detection holds: a request's channels in memory or in scratch files, and
 * how their memory is let go early (an hour of 16 kHz audio is 0.2 GB a channel).
 *
 * @module
 */
import type { SampleInput } from '../analysis/signal/sample-reader.ts';
import { ScratchSamples } from '../media/scratch.ts';
import type { DiarizeRequest } from './protocol.ts';

/**
 * A diarize request inside the analysis worker: its channels in memory, or (a per-mic job,
 * while the VAD runs) in files of the private file system, read by range.
 */
export type HeldRequest = Omit<DiarizeRequest, 'channels'> & { channels: SampleInput[] };

/** A signal in memory: `input` itself, or a copy read from its file. */
export function wholeSignal(input: SampleInput): Float32Array {
  return input instanceof Float32Array ? input : input.read(0, input.length);
}

/**
 * Frees a signal's memory now rather than at some later garbage collection (an hour of 16 kHz
 * audio is 0.2 GB): its buffer is detached (`ArrayBuffer.prototype.transfer`, where the browser
 * has it). Only for a signal that owns its whole buffer and that nothing reads again.
 */
export function release(signal: Float32Array): void {
  const buffer = signal.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  // A detached buffer (sent to a VAD lane) has no bytes left to free.
  if (buffer.byteLength > 0 && signal.byteOffset === 0 && signal.byteLength === buffer.byteLength) buffer.transfer?.(0);
}

/** The channels as scratch files, or null where any is not one. */
export function filesOf(channels: readonly SampleInput[]): ScratchSamples[] | null {
  return channels.every((c) => c instanceof ScratchSamples) ? (channels as ScratchSamples[]) : null;
}
