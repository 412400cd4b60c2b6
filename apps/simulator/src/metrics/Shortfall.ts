// Where a controller's recovery fell short of what the provider could serve. acceptedShareOfServable
// says how much work a run lost after the outage; this says when. Each second after the outage's
// end is put in the phase the group breaker was in at that second's end (as the per-second series
// reads its state and level), and what the second fell short of servable (servable − accepted,
// negative when a queue drains) is summed per phase, in points of the run's servable work. The
// phases' points add up to 100 × (1 − acceptedShareOfServable).
//
// - waiting: from the outage's end to the first ramp (cooldowns, probes that found it down, probes);
// - climb: the first ramp's growth, until it first settles, degrades or collapses;
// - settled: at a level the ramp settled on (saturated, or under a limit it found), with its tries a
//   step above it, until a level degrades or collapses;
// - cut: from a degrade (a slip, a cut, a drain) and the bisection back up, until it settles again;
// - reopened: from a collapse or a quorum open after the recovery (a re-trip): the cooldown, the
//   probes and the climb back, until the ramp settles again;
// - closed: the breaker closed (the top level held): what is lost there is the provider's own.
//
// A phase starts on a transition's states and figures as core records them (the gates' outcome,
// `settled` on a move that settled the level), never on its reason's words.
import type { Transition } from './Recorder.js';

export const SHORTFALL_PHASES = ['waiting', 'climb', 'settled', 'cut', 'reopened', 'closed'] as const;
export type ShortfallPhase = (typeof SHORTFALL_PHASES)[number];

/** Per phase: the points of servable work lost in it (2 decimals) and the seconds spent in it. */
export type Shortfall = Record<ShortfallPhase, { points: number; seconds: number }>;

/** The phase after a group-breaker transition, given the phase before it. */
export function phaseAfter(
  phase: ShortfallPhase,
  t: Pick<Transition, 'from' | 'to' | 'figures'>,
): ShortfallPhase {
  if (t.to === 'closed') return 'closed';
  // a ramp that collapsed, or a closed breaker a quorum opened again: a re-trip
  if (t.to === 'open' && (t.from === 'ramping' || t.from === 'closed')) return 'reopened';
  if (t.to !== 'ramping') return phase; // cooldowns and probes stay in the phase they are part of
  if (t.from !== 'ramping') return phase === 'waiting' ? 'climb' : phase; // probes passed: a ramp starts
  const f = t.figures ?? {};
  const outcome = f.gates?.outcome;
  if (outcome === 'degrade' || outcome === 'collapse') return 'cut';
  if (f.settled) return 'settled';
  return phase; // a growth, a bisection or a try above a limit carries on what it is part of
}

export interface ShortfallRun {
  outageEndMs: number;
  durationMs: number;
  /** what the provider could serve each second after the outage (the bar's servable) */
  servableAfterPerSec: number;
}

/**
 * The shortfall of one run by phase, from the group breaker's transitions (in time order) and the
 * calls accepted per clock second. The seconds are those acceptedShareOfServable counts:
 * ceil(outageEnd) to floor(duration). null when no work was servable.
 */
export function shortfallByPhase(
  transitions: readonly Pick<Transition, 'at' | 'from' | 'to' | 'figures'>[],
  acceptedIn: (second: number) => number,
  run: ShortfallRun,
): Shortfall | null {
  const from = Math.ceil(run.outageEndMs / 1000);
  const to = Math.floor(run.durationMs / 1000);
  const servable = run.servableAfterPerSec * (to - from);
  if (!(servable > 0)) return null;
  const lost = Object.fromEntries(SHORTFALL_PHASES.map((p) => [p, { calls: 0, seconds: 0 }])) as Record<
    ShortfallPhase,
    { calls: number; seconds: number }
  >;
  let next = transitions.findIndex((t) => t.at >= run.outageEndMs);
  if (next < 0) next = transitions.length;
  // the phase at the outage's end: closed if the breaker never opened (or had closed again), else waiting
  const before = transitions[next - 1];
  let phase: ShortfallPhase = before === undefined || before.to === 'closed' ? 'closed' : 'waiting';
  for (let s = from; s < to; s++) {
    while (next < transitions.length && transitions[next]!.at < (s + 1) * 1000)
      phase = phaseAfter(phase, transitions[next++]!);
    lost[phase].calls += run.servableAfterPerSec - acceptedIn(s);
    lost[phase].seconds += 1;
  }
  return Object.fromEntries(
    SHORTFALL_PHASES.map((p) => [
      p,
      { points: Math.round((10_000 * lost[p].calls) / servable) / 100, seconds: lost[p].seconds },
    ]),
  ) as Shortfall;
}
