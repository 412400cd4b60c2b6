// The one rounding every reported rate, share and ratio goes through (3 decimals unless told).

/**
 * `x` rounded to `decimals` places (half up, as Math.round). Non-finite input passes through
 * unchanged (NaN stays NaN): a caller that wants 0 for it says so.
 */
export function roundTo(x: number, decimals = 3): number {
  const scale = 10 ** decimals;
  return Math.round(x * scale) / scale;
}
