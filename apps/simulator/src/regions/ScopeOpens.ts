// Counts opens per scope, keyed `global` and `region:<name>`: recloser reports the controller's
// breaker opens (opened()); for strategies with no controller the simulator judges what their
// instances' breakers say with core decideRegional (observe(): a region entering region_open counts
// for `region:<name>`, the pool entering a global open once for `global`).
import type { RegionalDecision } from '@recloser/core';

export class ScopeOpens {
  readonly counts: Record<string, number> = { global: 0 };
  private readonly state = new Map<string, string>();
  private poolOpen = false;

  constructor(regions: readonly string[]) {
    for (const r of regions) this.counts[`region:${r}`] = 0;
  }

  /** Counts a transition reported by a control layer (`global` or `region:<name>`). */
  opened(scope: string): void {
    this.counts[scope] = (this.counts[scope] ?? 0) + 1;
  }

  /** Counts the opens one decision makes against the previous one; returns the verdicts by region. */
  observe(decision: RegionalDecision): Record<string, string> {
    const poolOpen = decision.pool === 'open';
    if (poolOpen && !this.poolOpen) this.opened('global');
    this.poolOpen = poolOpen;
    const out: Record<string, string> = {};
    for (const r of decision.regions) {
      const was = this.state.get(r.region) ?? 'closed';
      if (r.verdict === 'region_open' && was !== 'region_open') this.opened(`region:${r.region}`);
      this.state.set(r.region, r.verdict);
      out[r.region] = r.verdict;
    }
    return out;
  }
}
