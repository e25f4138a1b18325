/**
 * Speaker detection's scratch files (src/media/scratch.ts) over a test double of the private
 * file system's sync access handle: reads by range, the decoder's output gathered into large
 * writes, and a full disk that marks the file as failed without counting what was not written.
 */
import { describe, expect, test } from 'vitest';
import { fileOutput, ScratchSamples } from '../../../src/media/scratch.ts';

/** A sync access handle over bytes in memory (test double); `room` bytes at most, like a full disk. */
interface AccessDouble {
  writes: number[];
  closed: boolean;
  getSize(): number;
  write(data: ArrayBufferView, options?: { at?: number }): number;
  read(data: ArrayBufferView, options?: { at?: number }): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}

/** ScratchSamples on the double (FileSystemSyncAccessHandle is a worker-only type, unknown to this project). */
function samplesOn(access: AccessDouble, name: string): ScratchSamples {
  return new ScratchSamples(access, name);
}

function accessDouble(room = Infinity): AccessDouble {
  let bytes = new Uint8Array(0);
  const double: AccessDouble = {
    writes: [],
    closed: false,
    getSize: () => bytes.length,
    write(data, options) {
      const at = options?.at ?? 0;
      const src = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const n = Math.max(0, Math.min(src.length, room - at));
      if (at + n > bytes.length) {
        const grown = new Uint8Array(at + n);
        grown.set(bytes);
        bytes = grown;
      }
      bytes.set(src.subarray(0, n), at);
      double.writes.push(n);
      return n;
    },
    read(data, options) {
      const at = options?.at ?? 0;
      const out = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const part = bytes.subarray(at, at + out.length);
      out.set(part);
      return part.length;
    },
    truncate(size) {
      bytes = bytes.slice(0, size);
    },
    flush() {},
    close() {
      double.closed = true;
    },
  };
  return double;
}

describe('scratch files', () => {
  test('samples appended in order are read back by range, and a file already there is read from', () => {
    const access = accessDouble();
    const file = samplesOn(access, 'channel-0.f32');
    const x = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i / 7));
    file.append(x.subarray(0, 600));
    file.append(x.subarray(600));
    expect(file.length).toBe(1000);
    expect(file.read(250, 260)).toEqual(x.slice(250, 260));
    expect(file.read(990, 2000)).toEqual(x.slice(990));
    expect(file.readAll()).toEqual(x);
    expect(samplesOn(access, 'channel-0.f32').length).toBe(1000);
  });

  test('samples written over by range replace those there (the low cut written back), the length unchanged', () => {
    const access = accessDouble();
    const file = samplesOn(access, 'channel-1.f32');
    const x = Float32Array.from({ length: 1000 }, (_, i) => i);
    file.append(x);
    const y = Float32Array.from({ length: 300 }, (_, i) => -i);
    file.write(400, y);
    expect(file.length).toBe(1000);
    expect(file.read(390, 410)).toEqual(Float32Array.from([...x.slice(390, 400), ...y.slice(0, 10)]));
    expect(file.read(690, 710)).toEqual(Float32Array.from([...y.slice(290), ...x.slice(700, 710)]));
    // Past the end, it grows.
    file.write(990, y.subarray(0, 20));
    expect(file.length).toBe(1010);
  });

  test("a decoder's output is gathered into writes of 2^18 samples; finish keeps at most the limit and closes", () => {
    const access = accessDouble();
    const file = samplesOn(access, 'source-0.f32');
    const output = fileOutput(file);
    const slice = Float32Array.from({ length: 1024 }, (_, i) => i / 1024);
    for (let k = 0; k < 600; k++) output.write(slice); // 614 400 samples, as a decoder hands them
    expect(output.finish(600_000)).toEqual(new Float32Array(0));
    expect(access.writes.map((n) => n / 4)).toEqual([1 << 18, 1 << 18, 614_400 - 2 * (1 << 18)]);
    expect(file.length).toBe(600_000);
    expect(access.closed).toBe(true);
    expect(file.read(1024 * 5, 1024 * 5 + 3)).toEqual(slice.slice(0, 3));
  });

  test('a full disk: the write throws QuotaExceededError, the file is marked failed and keeps its length', () => {
    const file = samplesOn(accessDouble(4 * 100), 'source-1.f32');
    file.append(new Float32Array(60));
    expect(() => file.append(new Float32Array(60))).toThrow(expect.objectContaining({ name: 'QuotaExceededError' }));
    expect(file.writeFailed).toBe(true);
    expect(file.length).toBe(60);
  });
});
