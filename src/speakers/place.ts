/**
 * Puts a diarize request's decoded sources on the reference timeline (offset, drift) as the
 * channels speaker detection reads, each source's own samples let go once placed.
 *
 * @module
 */
import { placeOnReference, toReferenceTimeline } from '../analysis/sync/reference-timeline.ts';
import type { ScratchSamples, ScratchSpace } from '../media/scratch.ts';
import type { DiarizeSourcesRequest } from './protocol.ts';
import { release } from './signals.ts';

/**
 * Each source on the reference timeline, its own samples let go once placed. With `scratch`,
 * each channel goes to a file there a block at a time, from the source in memory or in its
 * file there (removed once placed): no whole signal is in memory.
 */
export async function placeChannels(
  request: DiarizeSourcesRequest,
  scratch: ScratchSpace | null,
): Promise<Float32Array[] | ScratchSamples[]> {
  const { sources, lengthMs } = request;
  const letGo = (i: number): void => {
    release(sources[i]!.samples);
    sources[i] = { ...sources[i]!, samples: new Float32Array(0) };
  };
  if (!scratch) {
    if (sources.some((s) => s.file)) throw new Error('the decoded sources are in files this worker cannot open');
    return sources.map((s, i) => {
      const channel = toReferenceTimeline(s.samples, s.sampleRate, s.offsetMs, s.driftPpm, lengthMs);
      letGo(i);
      return channel;
    });
  }
  const files: ScratchSamples[] = [];
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i]!;
    const channel = await scratch.samples(`channel-${i}.f32`);
    files.push(channel);
    const source = s.file ? await scratch.samples(s.file.name) : s.samples;
    placeOnReference(source, s.sampleRate, s.offsetMs, s.driftPpm, lengthMs, (_, block) => channel.append(block));
    if (source instanceof Float32Array) letGo(i);
    else await scratch.drop(source);
  }
  return files;
}
