import type { TransitionRecord } from '@recloser/core';
import type { BreakerDecision } from './ports.js';

/** A transition record as every store keeps it: core's figures plus the decision's audit figures. */
export function withAudit(t: TransitionRecord, decision: Pick<BreakerDecision, 'figures'>): TransitionRecord {
  return decision.figures ? { ...t, figures: { ...t.figures, ...decision.figures } } : t;
}
