import { describe, expect, it } from 'vitest';
import { transitionLines, type LoggedTransition } from './transitionLines.js';

const row = (seq: number, from: string, to: string, reason: string): LoggedTransition => ({
  seq,
  from,
  to,
  reason,
  at: new Date(1_000 * seq).toISOString(),
});

describe('transitionLines (what live mode prints for the group breaker)', () => {
  const stampAt = (at: string) => `t+${Date.parse(at) / 1000}s`;
  // the admin log lists newest first
  const log = [
    row(3, 'open', 'probing', 'cooldown over after 1000 ms (failed recoveries: 0)'),
    row(2, 'probing', 'open', 'probe failed (overload, 30 ms)'),
    row(1, 'closed', 'open', 'quorum: 17 of 30 live instances locally open (threshold 15)'),
  ];

  it('prints each transition once, oldest first, with the reason the controller recorded', () => {
    const first = transitionLines(log, 0, stampAt);
    expect(first.lines).toEqual([
      't+1s  ▶ group breaker: closed → open: quorum: 17 of 30 live instances locally open (threshold 15)',
      't+2s  ▶ group breaker: probing → open: probe failed (overload, 30 ms)',
      't+3s  ▶ group breaker: open → probing: cooldown over after 1000 ms (failed recoveries: 0)',
    ]);
    expect(first.lastSeq).toBe(3);
  });

  it('prints only what is newer than the last line printed, and keeps the mark when nothing is', () => {
    expect(transitionLines(log, 2, stampAt)).toEqual({
      lines: ['t+3s  ▶ group breaker: open → probing: cooldown over after 1000 ms (failed recoveries: 0)'],
      lastSeq: 3,
    });
    expect(transitionLines(log, 3, stampAt)).toEqual({ lines: [], lastSeq: 3 });
    expect(transitionLines([], 5, stampAt)).toEqual({ lines: [], lastSeq: 5 });
  });
});
