// What a regional strategy reports beside the common figures (S4, S8). The acceptance check and the
// README read these names:
// - opensByScope: opens per scope, keyed `global` and `region:<name>`. Recloser: the controller's
//   breaker.transition events (a region breaker's closed → open for `region:<name>`, the group
//   breaker's for `global`). Strategies without a controller: core decideRegional applied each
//   second to what their instances' own breakers say.
// - maxShiftOverHeadroom: the largest ratio, over 5-s windows, of the traffic moved into a region
//   from other regions to that region's headroom at the time (its capacity minus its own traffic).
// - maxProbeTokensInFlight / probeBudget: live probe tokens at most, sampled after every call the
//   fleet makes to the controller, against the pool's probe concurrency.
export interface RegionRunFigures {
  /** calls sent to the region's endpoint by its own instances, and moved in from others */
  nativeCalls: number;
  movedInCalls: number;
  movedInSucceeded: number;
  /** the largest moved-in / headroom ratio seen for this region */
  maxShiftOverHeadroom: number;
}

export interface RegionalSeriesPoint {
  t: number;
  /** per region: calls/s moved in, and the headroom they were measured against */
  movedIn: Record<string, number>;
  headroom: Record<string, number>;
  /** per region: requests/s the shift plans allow into it (recloser: its instances' latest plans, summed) */
  allowed: Record<string, number>;
  /** per region: the verdict or judged state this second */
  verdict: Record<string, string>;
}

export interface RegionalFigures {
  opensByScope: Record<string, number>;
  maxShiftOverHeadroom: number;
  maxProbeTokensInFlight?: number;
  probeBudget?: number;
  /** transitions of the region breakers in the control plane (opens, probes, ramp moves) */
  regionBreakerTransitions?: number;
  regions: Record<string, RegionRunFigures>;
  regionalSeries: RegionalSeriesPoint[];
}
