// A transition row as a log leaf. What is hashed must be exactly what is stored and read back:
// Postgres text cannot hold a lone surrogate (the driver writes U+FFFD), so strings are made
// well-formed the same way before the leaf is encoded; the leaf's bytes are stored as they are.
import { toWellFormed, type GateThresholds, type LogEntryStatement } from '@recloser/core';
import type { TransitionEntity } from '../transitions/transition.entity.js';

/** Strings with every lone surrogate replaced by U+FFFD, at any depth (as UTF-8 encoders do). */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return toWellFormed(value) as T;
  if (Array.isArray(value)) return value.map(wellFormed) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormed(v)])) as T;
  return value;
}

export function logEntryOf(
  row: TransitionEntity,
  breaker: { group: string; dependency: string },
  extra: { certificate: string | null; gateThresholds: GateThresholds | null },
): LogEntryStatement {
  return wellFormed({
    type: 'recloser.transition/v1',
    breakerId: row.breakerId,
    group: breaker.group,
    dependency: breaker.dependency,
    seq: row.seq,
    prevHash: row.prevHash,
    hash: row.hash,
    from: row.from,
    to: row.to,
    epoch: row.epoch,
    fromStep: row.fromStep ?? null,
    step: row.step ?? null,
    actor: row.actor,
    reason: row.reason,
    figures: JSON.parse(JSON.stringify(row.figures ?? {})) as Record<string, unknown>, // plain JSON (no undefined)
    formedBy: [...row.formedBy],
    at: row.at.toISOString(),
    certificate: extra.certificate,
    gateThresholds: extra.gateThresholds,
  });
}
