/**
 * 16-bit PCM WAV files as Blobs: the one header writer (the scratch folder's WAV writer uses it
 * too, scratch.ts), the mono file the spec serves as a job's `audioUrl` (speaker detection
 * writes it, src/speakers/mix.ts), and interleaved multichannel files.
 *
 * @module
 */

/** The 44-byte header of a 16-bit PCM WAV file holding `dataBytes` bytes of samples. */
export function wavHeader(sampleRate: number, channels: number, dataBytes: number): ArrayBuffer {
  const header = new DataView(new ArrayBuffer(44));
  const text = (offset: number, value: string): void => {
    for (let i = 0; i < value.length; i++) header.setUint8(offset + i, value.charCodeAt(i));
  };
  text(0, 'RIFF');
  header.setUint32(4, 36 + dataBytes, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, channels, true);
  header.setUint32(24, sampleRate, true);
  header.setUint32(28, sampleRate * channels * 2, true);
  header.setUint16(32, channels * 2, true);
  header.setUint16(34, 16, true);
  text(36, 'data');
  header.setUint32(40, dataBytes, true);
  return header.buffer;
}

/** Mono samples (−1..1) as 16-bit PCM, the samples of {@link monoWavBlob}. */
export function monoPcm16(samples: Float32Array): Int16Array {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const x = Math.max(-1, Math.min(1, samples[i]!));
    pcm[i] = Math.round(x < 0 ? x * 0x8000 : x * 0x7fff);
  }
  return pcm;
}

/** Encodes mono samples (−1..1) as 16-bit PCM WAV, in slices so no second full copy is made at once. */
export function monoWavBlob(samples: Float32Array, sampleRate: number): Blob {
  const parts: BlobPart[] = [wavHeader(sampleRate, 1, samples.length * 2)];
  const slice = 1 << 20;
  for (let start = 0; start < samples.length; start += slice)
    parts.push(monoPcm16(samples.subarray(start, Math.min(samples.length, start + slice))).buffer as ArrayBuffer);
  return new Blob(parts, { type: 'audio/wav' });
}

/** Interleaved 16-bit PCM of planar float samples (a missing channel repeats the last one). */
function interleave(planes: readonly Float32Array[], channels: number): Int16Array {
  const n = planes[0]?.length ?? 0;
  const pcm = new Int16Array(n * channels);
  for (let c = 0; c < channels; c++) {
    const p = planes[Math.min(c, planes.length - 1)]!;
    for (let i = 0; i < n; i++) {
      const v = Math.max(-1, Math.min(1, p[i]!));
      pcm[i * channels + c] = Math.round(v * 32767);
    }
  }
  return pcm;
}

/** Where a render's mix is written before the AAC encoder reads it. */
export interface WavWriter {
  append(planes: readonly Float32Array[]): void;
  /** The finished file (disk-backed when written to the private file system). */
  finish(): Promise<Blob>;
  /** Deletes what was written (after the encoder read it, or on failure). */
  dispose(): Promise<void>;
}

const MIX_PREFIX = 'multicam-mix-';

/**
 * A WAV file in the origin's private file system, written through a sync access handle (a
 * dedicated worker's API): the mix of an hour-long render (0.7 GB of stereo 16-bit) goes to
 * disk instead of memory, so the render's memory does not grow with the length. Null where the
 * private file system is not available (the caller keeps the mix in a Blob).
 */
export async function openOpfsWavWriter(sampleRate: number, channels: number): Promise<WavWriter | null> {
  type SyncDir = FileSystemDirectoryHandle & { entries(): AsyncIterable<[string, FileSystemHandle]> };
  let root: SyncDir;
  let handle: FileSystemFileHandle;
  let access: FileSystemSyncAccessHandle;
  const name = `${MIX_PREFIX}${crypto.randomUUID()}.wav`;
  try {
    root = (await navigator.storage.getDirectory()) as SyncDir;
    // What a crashed render left behind (one render runs at a time: the engine lock).
    const stale: string[] = [];
    for await (const [entry] of root.entries()) if (entry.startsWith(MIX_PREFIX)) stale.push(entry);
    for (const entry of stale) await root.removeEntry(entry).catch(() => undefined);
    handle = await root.getFileHandle(name, { create: true });
    access = await handle.createSyncAccessHandle();
  } catch {
    return null;
  }
  let at = 44;
  let frames = 0;
  let open = true;
  return {
    append(planes) {
      const pcm = interleave(planes, channels);
      at += access.write(pcm, { at });
      frames += planes[0]?.length ?? 0;
    },
    async finish() {
      access.write(new Uint8Array(wavHeader(sampleRate, channels, frames * channels * 2)), { at: 0 });
      access.flush();
      access.close();
      open = false;
      return handle.getFile();
    },
    async dispose() {
      if (open) access.close();
      open = false;
      await root.removeEntry(name).catch(() => undefined);
    },
  };
}

/** Builds a WAV (PCM s16le) Blob from planar float chunks, appended in order. */
export class WavBlobWriter {
  private parts: Blob[] = [];
  private frames = 0;

  constructor(
    readonly sampleRate: number,
    readonly channels: number,
  ) {}

  /** Appends planar samples (one array per channel, equal lengths). */
  append(planes: readonly Float32Array[]): void {
    this.parts.push(new Blob([interleave(planes, this.channels).buffer as ArrayBuffer]));
    this.frames += planes[0]?.length ?? 0;
  }

  /** The finished file. */
  finish(): Blob {
    const bytes = this.frames * this.channels * 2;
    const blob = new Blob([wavHeader(this.sampleRate, this.channels, bytes), ...this.parts], { type: 'audio/wav' });
    this.parts = [];
    return blob;
  }
}
