// Instances report a p95 per heartbeat window, not their raw latencies, so a step's p95 is
// estimated from those: the value below which windows carrying 95 % of the attempts lie. One slow
// instance among many does not fail the fleet's gate on its own; a slow fleet does.
export interface WindowPercentile {
  value: number;
  /** attempts the window's figure was measured over */
  weight: number;
}

export function combineWindowPercentiles(
  windows: readonly WindowPercentile[],
  quantile = 0.95,
): number | null {
  const usable = windows
    .filter((w) => Number.isFinite(w.value) && w.weight > 0)
    .sort((a, b) => a.value - b.value);
  if (usable.length === 0) return null;
  const total = usable.reduce((s, w) => s + w.weight, 0);
  let seen = 0;
  for (const w of usable) {
    seen += w.weight;
    if (seen >= quantile * total) return w.value;
  }
  return usable[usable.length - 1]!.value;
}
