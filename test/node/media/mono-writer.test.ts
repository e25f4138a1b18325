/**
 * The decoders' output buffer (src/media/mono-writer.ts): what it hands back, and that trimming
 * frees the spare room rather than keeping it beside a copy.
 */
import { describe, expect, test } from 'vitest';
import { MonoWriter, trimmed } from '../../../src/media/mono-writer.ts';

describe('MonoWriter', () => {
  test('hands back exactly the samples written, across regrowth, cut at a limit', () => {
    const writer = new MonoWriter(1000);
    const all = Float32Array.from({ length: 2500 }, (_, i) => i / 2500);
    for (let at = 0; at < all.length; at += 300) writer.write(all.subarray(at, at + 300));
    const out = writer.finish();
    expect(out).toEqual(all);
    expect(out.buffer.byteLength).toBe(out.byteLength);
    const again = new MonoWriter(10);
    again.write(all);
    expect(again.finish(100)).toEqual(all.subarray(0, 100));
  });

  test('trimming detaches the old buffer (its memory is freed now), or copies a view', () => {
    const big = Float32Array.from({ length: 100 }, (_, i) => i);
    const cut = trimmed(big, 40);
    expect(cut).toEqual(Float32Array.from({ length: 40 }, (_, i) => i));
    // Detached where the runtime has ArrayBuffer.prototype.transfer (Chromium; Node from 21), else left whole.
    const canFree = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function';
    expect(big.buffer.byteLength).toBe(canFree ? 0 : 400);
    const whole = Float32Array.from({ length: 10 }, (_, i) => i);
    const view = whole.subarray(2);
    expect(trimmed(view, 3)).toEqual(Float32Array.from([2, 3, 4]));
    expect(whole.length).toBe(10); // a view's buffer is not the caller's to free
    expect(trimmed(whole, 10)).toBe(whole);
  });
});
