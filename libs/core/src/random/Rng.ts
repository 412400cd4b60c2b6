// Randomness is injected so jitter and designation are reproducible from a seed.

/** A source of uniform numbers in [0, 1). */
export interface Rng {
  next(): number;
}

/** mulberry32: tiny, fast and good enough for jitter; the same seed gives the same sequence. */
export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  return {
    next(): number {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** Math.random for production use where reproducibility does not matter. */
export const mathRng: Rng = { next: () => Math.random() };
