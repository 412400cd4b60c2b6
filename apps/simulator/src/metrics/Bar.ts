// Issue 13's bar for one run of its matrix, as code, so `npm run policy` says which runs meet it
// and why the others do not (instead of each reader re-deriving it from the table): recloser's
// accepted work after the outage at 95 % of servable or more, no re-trip, attempts at most 1.2×
// what the provider could serve in any second after the first success, no budget overrun, and
// against the peers (naive, jittered, sre-throttle, aws-adaptive): above every one of them on the
// collapsing provider, within 3 points of the best of them on the simple one.
import type { ProviderModel } from '../provider/Provider.js';
import { percent } from '../report/format.js';
import type { StrategyFigures } from './Summary.js';

export const BAR = {
  minAcceptedShare: 0.95,
  maxAttemptedOverServable: 1.2,
  /** simple provider: recloser may trail the best peer by this share of servable (3 points) */
  simplePeerMargin: 0.03,
} as const;

/** The strategies issue 13 names as recloser's peers (the oracle yardsticks are not peers). */
export const PEERS = ['naive', 'jittered', 'sre-throttle', 'aws-adaptive'] as const;

/** The figures of a run the bar reads (recloser's; of a peer only the accepted share). */
export type BarFigures = Pick<
  StrategyFigures,
  'acceptedShareOfServable' | 'retripsAfterRecovery' | 'maxAttemptedOverServable' | 'budgetViolations'
>;

const points = Math.round(BAR.simplePeerMargin * 100);

/** The bar in words, from the constants above. */
export const BAR_DESCRIPTION =
  `≥ ${percent(BAR.minAcceptedShare)} of servable, 0 re-trips, attempts ≤ ${BAR.maxAttemptedOverServable}× servable, ` +
  `no budget overrun, above every peer on the collapsing provider and within ${points} points of the best on the simple one`;

/** The bar's criteria, as the summary counts them. */
export type BarCriterion = 'accepted' | 're-trips' | 'attempts' | 'overruns' | 'peers';

export interface BarMiss {
  criterion: BarCriterion;
  /** the figure and the limit, e.g. "attempts 1.24× servable > 1.2×" */
  text: string;
}

export interface BarVerdict {
  meets: boolean;
  misses: BarMiss[];
  /** false when no peer ran: the peer criterion was not judged (and `meets` says so only for the rest) */
  peersJudged: boolean;
}

/** Judges one run: recloser's figures and those of the peers that ran (by name; others ignored). */
export function judgeBar(
  provider: ProviderModel,
  recloser: BarFigures,
  peers: Record<string, Pick<StrategyFigures, 'acceptedShareOfServable'>>,
): BarVerdict {
  const misses: BarMiss[] = [];
  const miss = (criterion: BarCriterion, text: string): void => void misses.push({ criterion, text });
  const accepted = recloser.acceptedShareOfServable ?? 0;
  if (!(accepted >= BAR.minAcceptedShare))
    miss('accepted', `accepted ${percent(accepted)} < ${percent(BAR.minAcceptedShare)}`);
  if (recloser.retripsAfterRecovery > 0)
    miss(
      're-trips',
      `${recloser.retripsAfterRecovery} re-trip${recloser.retripsAfterRecovery > 1 ? 's' : ''}`,
    );
  const over = recloser.maxAttemptedOverServable;
  if (over !== null && over > BAR.maxAttemptedOverServable)
    miss('attempts', `attempts ${over.toFixed(2)}× servable > ${BAR.maxAttemptedOverServable}×`);
  if (recloser.budgetViolations.length > 0)
    miss('overruns', `${recloser.budgetViolations.length} budget overrun(s)`);

  const best = bestAmong(peers, PEERS);
  if (best) {
    if (provider === 'collapse' && !(accepted > best.share))
      miss('peers', `not above ${best.name} (${percent(best.share)})`);
    if (provider === 'simple' && accepted < best.share - BAR.simplePeerMargin)
      miss('peers', `more than ${points} points under ${best.name} (${percent(best.share)})`);
  }
  return { meets: misses.length === 0, misses, peersJudged: best !== null };
}

/**
 * The strategy among `names` that accepted the largest share of servable in a run, and that share;
 * null when none of them ran. Ties go to the first in `names`.
 */
export function bestAmong(
  figures: Record<string, Pick<StrategyFigures, 'acceptedShareOfServable'>>,
  names: readonly string[],
): { name: string; share: number } | null {
  let best: { name: string; share: number } | null = null;
  for (const name of names) {
    const share = figures[name]?.acceptedShareOfServable;
    if (share != null && (best === null || share > best.share)) best = { name, share };
  }
  return best;
}
