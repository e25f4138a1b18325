/**
 * The project's one seeded generator, so clustering, model training, synthetic test data
 * and fuzz cases give the same answer on every run and a failure can be replayed from its seed.
 *
 * @module
 */

/**
 * Mulberry32: returns a function giving uniform numbers in [0, 1), the same sequence for
 * the same seed on every machine.
 *
 * @example
 * const random = seededRandom(42);
 * const pick = items[Math.floor(random() * items.length)];
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
