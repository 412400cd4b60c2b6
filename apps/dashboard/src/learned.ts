// The breaker page's line on what a breaker learned of its provider (core's GlobalBreakerState).
import type { BreakerDetail } from './api.js';

/**
 * What the breaker learned of its provider, kept across recoveries: the capacity that sizes its next
 * recovery, and whether its ramp judges the provider as one that sheds cleanly (learned, or declared
 * by the pool until a collapse refuted it).
 */
export function learnedFacts(g: BreakerDetail['globalState']): string {
  const level = g.sustainedLevel;
  const capacity =
    level === null || level === undefined
      ? 'learned capacity: none yet (the next recovery grows fast up to the whole pool)'
      : `learned capacity: ${Math.round(level * 1000) / 10} % of the pool (the next recovery grows fast up to it, slowly past it)`;
  const shedding = g.shedsCleanly
    ? 'learned that the provider sheds cleanly (judged on errors first)'
    : g.shedDeclarationRefuted
      ? "a collapse refuted the pool's ramp.shedsCleanly: judged as any provider"
      : null;
  return shedding ? `${capacity} · ${shedding}` : capacity;
}
