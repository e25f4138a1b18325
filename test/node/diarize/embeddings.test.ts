import { describe, expect, test } from 'vitest';
import { pieceSimilarity, type EmbeddingGrid } from '../../../src/analysis/diarize/embeddings.ts';

/** A grid of 1000 ms windows every 500 ms (centres at 500, 1000, 1500, …) from plain arrays. */
function grid(vectors: number[][]): EmbeddingGrid {
  return { windowMs: 1000, hopMs: 500, vectors: vectors.map((v) => Float32Array.from(v)) };
}

const at = (sim: Float64Array, n: number, a: number, b: number): number => sim[a * n + b]!;

describe('pieceSimilarity', () => {
  test('pieces of the same voice are similar and pieces of two voices are not, even with a large shared component', () => {
    // Every window carries the same big offset (the room, the mic): raw cosines would all be ≈ 1.
    const shared = [10, 10, 10];
    const a = [1, 0, 0];
    const b = [0, 1, 0];
    const add = (u: number[], v: number[], noise: number): number[] =>
      u.map((x, i) => x + v[i]! + (i === 2 ? noise : 0));
    const g = grid([
      add(shared, a, 0.1),
      add(shared, a, -0.1),
      add(shared, a, 0.05),
      add(shared, a, 0),
      add(shared, b, 0.1),
      add(shared, b, -0.1),
      add(shared, b, 0),
      add(shared, b, 0.05),
    ]);
    // Centres 500…4000: windows 0-3 in [0, 2250), windows 4-7 in [2250, 4250).
    const pieces: Array<[number, number]> = [
      [0, 1200],
      [1200, 2250],
      [2250, 3200],
      [3200, 4250],
    ];
    const sim = pieceSimilarity(g, pieces);
    expect(at(sim, 4, 0, 1)).toBeGreaterThan(0.9);
    expect(at(sim, 4, 2, 3)).toBeGreaterThan(0.9);
    for (const [x, y] of [
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
    ] as const)
      expect(at(sim, 4, x, y)).toBeLessThan(-0.5);
  });

  test('is symmetric with 1 on the diagonal and values in [-1, 1]', () => {
    const g = grid([
      [1, 2, 0],
      [0, 1, 3],
      [2, 0, 1],
      [1, 1, 1],
      [3, 0, 0],
    ]);
    const pieces: Array<[number, number]> = [
      [0, 800],
      [800, 1600],
      [1600, 3000],
    ];
    const sim = pieceSimilarity(g, pieces);
    expect(sim.length).toBe(9);
    for (let a = 0; a < 3; a++) {
      expect(at(sim, 3, a, a)).toBe(1);
      for (let b = 0; b < 3; b++) {
        expect(at(sim, 3, a, b)).toBeCloseTo(at(sim, 3, b, a), 12);
        expect(Math.abs(at(sim, 3, a, b))).toBeLessThanOrEqual(1);
      }
    }
  });

  test('a piece uses the windows whose centre falls inside it, else the nearest window', () => {
    // Distinct directions per window, so a piece's windows show in its similarities.
    const g = grid([
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 1],
    ]); // centres 500, 1000, 1500, 2000
    const pieces: Array<[number, number]> = [
      [1990, 2010], // centre 2000 inside: window 3 only
      [1800, 1950], // no centre inside; middle 1875 is nearest window 3 (2000) → same as the first piece
      [400, 600], // window 0 only
      [1010, 1060], // no centre inside; middle 1035 is nearest window 1 (1000)
      [900, 1100], // window 1 only
      [0, 1200], // windows 0 and 1
    ];
    const sim = pieceSimilarity(g, pieces);
    const n = pieces.length;
    expect(at(sim, n, 0, 1)).toBeCloseTo(1, 9);
    expect(at(sim, n, 3, 4)).toBeCloseTo(1, 9);
    expect(at(sim, n, 0, 2)).toBeLessThan(0.5);
    // The mean of windows 0 and 1 lies between them: closer to each than they are to each other.
    expect(at(sim, n, 5, 2)).toBeGreaterThan(at(sim, n, 2, 4));
    expect(at(sim, n, 5, 4)).toBeGreaterThan(at(sim, n, 2, 4));
    // A piece past the last window falls back to it.
    const beyond = pieceSimilarity(g, [
      [9000, 9500],
      [1990, 2010],
      [400, 600],
    ]);
    expect(beyond[1]).toBeCloseTo(1, 9);
    expect(beyond[2]).toBeLessThan(0);
  });

  test('pieces that all use the same window are identical (1), not unrelated', () => {
    const g = grid([
      [1, 2, 3],
      [3, 2, 1],
    ]);
    const sim = pieceSimilarity(g, [
      [400, 600],
      [450, 550],
    ]);
    expect([...sim]).toEqual([1, 1, 1, 1]);
  });

  test('no pieces give an empty matrix; an empty or ragged grid is refused with a clear error', () => {
    expect(pieceSimilarity(grid([]), []).length).toBe(0);
    expect(() => pieceSimilarity(grid([]), [[0, 1000]])).toThrow(/no windows/);
    expect(() =>
      pieceSimilarity(
        grid([
          [1, 2],
          [1, 2, 3],
        ]),
        [[0, 1000]],
      ),
    ).toThrow(/same non-zero length/);
    expect(() => pieceSimilarity({ windowMs: 1000, hopMs: 0, vectors: [Float32Array.of(1)] }, [[0, 1000]])).toThrow(
      /hopMs/,
    );
  });
});
