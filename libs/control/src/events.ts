// The event seam: what the control layer announces after a commit. A transition's events are
// written in the transition's own transaction (the controller's outbox), so a crash between commit
// and publish loses nothing; other events go through the EventSink port. Delivery is at least once,
// in order per breaker, each event with a stable id, so consumers (metrics, token release, webhooks,
// the dashboard's live view) deduplicate by id.
import { formatScope, type BreakerScope, type OperatorAction, type TransitionRecord } from '@recloser/core';
import type { BreakerRecord, CommittedTransition } from './ports.js';

export type ControlEventType =
  /** a committed change of a breaker's global state (one per transition record) */
  | 'breaker.transition'
  /** an instance stayed locally open past isolationAfterMs while its group is closed (bad node) */
  | 'instance.isolated'
  /** an isolated instance closed, went silent, or its group left CLOSED */
  | 'instance.recovered'
  /** a CLOSED breaker's open count came within QUORUM_NEAR_MARGIN of its threshold */
  | 'quorum.near'
  /** ... and left that band (either way: opened, or calmed down) */
  | 'quorum.clear'
  /** a probe token was granted (plans and POST /v1/probes/lease) */
  | 'probe.granted'
  /** a probe lease was refused (once per breaker, epoch and reason) */
  | 'probe.denied'
  /** probe tokens expired unused (their holders are passed over in this epoch) */
  | 'probe.expired'
  /** reconciliation refunded reclaims or attempts of a breaker's work units (counts per commit) */
  | 'ledger.refunded'
  /** a region's instances ran in FALLBACK (controller unreachable); reported when control returned, with the duration */
  | 'region.fallback'
  /** a region's shift plan changed phase: started, resumed, frozen, reversed or ended (issue 14) */
  | 'region.shift'
  /** a region began receiving moved traffic faster than the shift plans allow (shift_throttled) */
  | 'region.shift_throttled';

export interface TransitionEventData {
  group: string;
  dependency: string;
  /** the breaker's scope, formatted (core formatScope): `group`, `region:eu-west`, … */
  scope: string;
  region: string | null;
  from: TransitionRecord['from'];
  to: TransitionRecord['to'];
  epoch: number;
  fromStep: number | null;
  step: number | null;
  actor: TransitionRecord['actor'];
  reason: string;
  figures: TransitionRecord['figures'];
  action?: OperatorAction;
}

/** An event before the sink numbers it. `data` is JSON. */
export interface ControlEventDraft {
  type: ControlEventType;
  breakerId: string;
  /** controller clock, ms */
  at: number;
  data: Record<string, unknown>;
}

/** A published event: `id` is stable across redeliveries; `seq` orders the events of a sink. */
export interface ControlEvent extends ControlEventDraft {
  id: string;
  seq: number;
}

export type EventConsumer = (event: ControlEvent) => Promise<void> | void;

/** One breaker.transition event per transition record of a commit, in the order core produced them. */
export function transitionEvents(committed: CommittedTransition): ControlEventDraft[] {
  const b: BreakerRecord = committed.breaker;
  return committed.transitions.map((t) => {
    const data: TransitionEventData = {
      group: b.group,
      dependency: b.dependency,
      scope: formatScope({ kind: b.scopeKind, value: b.scopeValue } as BreakerScope),
      region: b.region,
      from: t.from,
      to: t.to,
      epoch: t.epoch,
      fromStep: t.fromStep,
      step: t.step,
      actor: t.actor,
      reason: t.reason,
      figures: t.figures,
    };
    if (t.figures.action) data.action = t.figures.action;
    return { type: 'breaker.transition', breakerId: b.id, at: t.at, data: { ...data } };
  });
}

/** The transition record a breaker.transition event carries (the inverse of transitionEvents). */
export function transitionRecordOf(event: ControlEvent): TransitionRecord {
  const d = event.data as unknown as TransitionEventData;
  return {
    at: event.at,
    from: d.from,
    to: d.to,
    epoch: d.epoch,
    fromStep: d.fromStep,
    step: d.step,
    actor: d.actor,
    reason: d.reason,
    figures: d.figures,
  };
}

/** A transition event whose breaker left PROBING: its outstanding probe tokens are stale. */
export function leftProbing(event: ControlEventDraft): boolean {
  return event.type === 'breaker.transition' && event.data.from === 'probing' && event.data.to !== 'probing';
}
