/**
 * withFragmentedDuration (src/media/fmp4-duration.ts) on heads laid out as the render writes a
 * fragmented MP4 (ftyp, moov [mvhd, trak, mvex [trex], udta], then moof/mdat), built here box by
 * box: the length goes into mvhd and a new mehd, the udta's room becomes free, the moov keeps
 * its size and nothing after it moves; any other layout is left alone.
 */
import { describe, expect, test } from 'vitest';
import { withFragmentedDuration } from '../../../src/media/fmp4-duration.ts';

function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const size = 8 + parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, size);
  out.set(
    [...type].map((c) => c.charCodeAt(0)),
    4,
  );
  let at = 8;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const bytes = (n: number, fill = 0): Uint8Array => new Uint8Array(n).fill(fill);

/** mvhd version 0: version/flags, creation, modification, timescale, duration, then the rest (80 bytes). */
function mvhd0(timescale: number): Uint8Array {
  const body = new Uint8Array(100);
  new DataView(body.buffer).setUint32(12, timescale);
  return box('mvhd', body);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const trex = (): Uint8Array => box('trex', bytes(24, 1));

/** A head as the render writes it, with a first fragment after the moov; `udta` null: none. */
function renderedHead(udtaBody: number | null, mvhd = mvhd0(57_600)): { head: Uint8Array; moovEnd: number } {
  const moov = box(
    'moov',
    mvhd,
    box('trak', bytes(60, 7)),
    box('mvex', trex(), trex()),
    ...(udtaBody === null ? [] : [box('udta', bytes(udtaBody, 9))]),
  );
  const ftyp = box('ftyp', bytes(20, 3));
  const head = concat(ftyp, moov, box('moof', bytes(40, 5)), box('mdat', bytes(200, 6)));
  return { head, moovEnd: ftyp.byteLength + moov.byteLength };
}

/** The boxes directly inside the box at `start`: type and size. */
function children(b: Uint8Array, start: number): Array<[string, number]> {
  const view = new DataView(b.buffer, b.byteOffset);
  const end = start + view.getUint32(start);
  const out: Array<[string, number]> = [];
  for (let at = start + 8; at < end; at += view.getUint32(at))
    out.push([String.fromCharCode(...b.subarray(at + 4, at + 8)), view.getUint32(at)]);
  return out;
}

describe('withFragmentedDuration', () => {
  test('writes the length into mvhd and an mehd first in mvex; the udta becomes free; nothing after the moov moves', () => {
    const { head, moovEnd } = renderedHead(90);
    const out = withFragmentedDuration(head, 63.36)!;
    expect(out).not.toBeNull();
    expect(out.byteLength).toBe(head.byteLength);
    const view = new DataView(out.buffer);
    const moovAt = 28;
    expect(children(out, moovAt)).toEqual([
      ['mvhd', 108],
      ['trak', 68],
      ['mvex', 8 + 20 + 32 + 32],
      ['free', 98 - 20],
    ]);
    // mvhd v0: timescale 57 600 at +20, duration at +24.
    expect(view.getUint32(moovAt + 8 + 24)).toBe(Math.round(63.36 * 57_600));
    const mvexAt = moovAt + 8 + 108 + 68;
    expect(children(out, mvexAt)).toEqual([
      ['mehd', 20],
      ['trex', 32],
      ['trex', 32],
    ]);
    expect(out[mvexAt + 8 + 8]).toBe(1); // mehd version 1
    expect(view.getBigUint64(mvexAt + 8 + 12)).toBe(BigInt(Math.round(63.36 * 57_600)));
    // The trex boxes kept their bytes; the fragments after the moov are the same bytes.
    expect(out.subarray(mvexAt + 28, mvexAt + 28 + 64)).toEqual(head.subarray(mvexAt + 8, mvexAt + 8 + 64));
    expect(out.subarray(moovEnd)).toEqual(head.subarray(moovEnd));
  });

  test('reads version 1 mvhd (64-bit times)', () => {
    const body = new Uint8Array(112);
    body[0] = 1;
    new DataView(body.buffer).setUint32(20, 1000);
    const { head } = renderedHead(40, box('mvhd', body));
    const out = withFragmentedDuration(head, 12.5)!;
    expect(new DataView(out.buffer).getBigUint64(28 + 8 + 32)).toBe(12_500n);
  });

  test('a head cut inside the first fragment is enough (the moov is whole)', () => {
    const { head, moovEnd } = renderedHead(90);
    expect(withFragmentedDuration(head.subarray(0, moovEnd + 20), 10)).not.toBeNull();
  });

  test('leaves any other layout alone: no udta, too small a udta, an mehd already, a moov cut short, no length', () => {
    expect(withFragmentedDuration(renderedHead(null).head, 10)).toBeNull();
    expect(withFragmentedDuration(renderedHead(19).head, 10)).toBeNull();
    const withMehd = concat(
      box('ftyp', bytes(20)),
      box('moov', mvhd0(1000), box('mvex', box('mehd', bytes(12)), trex()), box('udta', bytes(90))),
    );
    expect(withFragmentedDuration(withMehd, 10)).toBeNull();
    const { head } = renderedHead(90);
    expect(withFragmentedDuration(head.subarray(0, 100), 10)).toBeNull();
    expect(withFragmentedDuration(head, 0)).toBeNull();
  });
});
