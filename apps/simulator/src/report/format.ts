// How the simulator's tables write a share ("96.4 %", "-" when there is none) and a set of seeds.
export function percent(share: number | null | undefined): string {
  return share == null ? '-' : `${(share * 100).toFixed(1)} %`;
}

/** "seed 7", "seeds 1, 3, 7", "seeds 2, 4–6, 8–13": a chart's title (seeds ascending, as parseSeeds gives them) */
export function seedsOf(seeds: number[]): string {
  if (seeds.length === 1) return `seed ${seeds[0]}`;
  const runs: [number, number][] = [];
  for (const s of seeds) {
    const last = runs.at(-1);
    if (last && s === last[1] + 1) last[1] = s;
    else runs.push([s, s]);
  }
  return `seeds ${runs.map(([a, b]) => (a === b ? `${a}` : b === a + 1 ? `${a}, ${b}` : `${a}–${b}`)).join(', ')}`;
}
