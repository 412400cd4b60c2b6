// `npm run policy -- --peers FILE`: the peers' figures of an earlier run (that run's --json) for the
// runs whose peers did not run here. A peer's run does not depend on recloser's settings: every
// strategy runs on its own simulated provider, a pure function of the seed (runScenario.ts). So a
// round that changes recloser's policy can run recloser alone, a fifth of the simulations, and
// still be judged on the whole bar. The file must come from runs of the same length (no --seconds,
// or the same): the rows do not say how long their runs were.
import { PEERS } from '../metrics/Bar.js';
import { runKey } from './policyComparison.js';
import { cellOf, type PolicyRow } from './policySummary.js';

/**
 * `rows` with each peer that did not run here taken from the same run (cell and seed) of
 * `earlier`; a peer that ran here keeps its own figures. An error names the file and the first
 * run it has no peer for.
 */
export function withPeersFrom(rows: PolicyRow[], earlier: PolicyRow[], file: string): PolicyRow[] {
  const before = new Map(earlier.map((r) => [runKey(r), r]));
  return rows.map((row) => {
    const missing = PEERS.filter((name) => !row.figures[name]);
    if (missing.length === 0) return row;
    const was = before.get(runKey(row));
    if (!missing.some((name) => was?.figures[name]))
      throw new Error(`--peers: ${file}: no peer's figures for ${cellOf(row)} seed ${row.seed}`);
    // the peers first, as a full run lists them (the tables' columns follow this order)
    const figures: PolicyRow['figures'] = {};
    for (const name of PEERS) {
      const f = row.figures[name] ?? was?.figures[name];
      if (f) figures[name] = f;
    }
    return { ...row, figures: { ...figures, ...row.figures } };
  });
}
