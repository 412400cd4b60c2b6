import { emptyEvidence, FakeClock, seededRng, type LedgerEvent, type ReportedState } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import type { ControlPlane } from './ControlPlane.js';
import { ControlError } from './ControlError.js';
import { Reconciliation } from './Reconciliation.js';
import { MemoryHistory } from './memory/MemoryHistory.js';
import { createMemoryControlPlane } from './memory/MemoryControlPlane.js';

const TTL = 5000;
const TICK = 1000;
const T0 = 1_000_000;

function setup() {
  const clock = new FakeClock(T0);
  const control = createMemoryControlPlane({
    clock,
    rng: seededRng(1),
    heartbeatIntervalMs: TICK,
    heartbeatTtlMs: TTL,
    isolationAfterMs: 10 * TTL,
  });
  return { clock, control };
}

const beat = (plane: ControlPlane, instanceId: string, state: ReportedState) =>
  plane.heartbeat({
    instanceId,
    group: 'g',
    region: 'eu-west',
    breakers: [{ dependency: 'dep', state, evidence: emptyEvidence(), demand: { standard: 1 } }],
  });

const ev = (
  id: string,
  kind: LedgerEvent['kind'],
  at: number,
  instanceId = 'a',
  outcome?: LedgerEvent['outcome'],
) => ({
  eventId: id,
  workId: `w-${id}`,
  instanceId,
  dependency: 'dep',
  kind,
  at,
  ...(outcome ? { outcome } : {}),
});

/** the fleet through learning, then open, held open, force-closed */
async function flap(clock: FakeClock, plane: ControlPlane) {
  for (const i of ['a', 'b', 'c']) await beat(plane, i, 'closed');
  clock.advance(TTL + 1);
  for (const i of ['a', 'b', 'c']) await beat(plane, i, 'open');
  const breakerId = 'g:dep';
  const openedAt = clock.now();
  clock.advance(3000);
  const during = clock.now();
  await plane.operatorAction(breakerId, 'force_close', 'test');
  const closedAt = clock.now();
  clock.advance(2 * TICK);
  for (const i of ['a', 'b', 'c']) await beat(plane, i, 'closed');
  return { openedAt, during, closedAt };
}

describe('Reconciliation on memory ports', () => {
  it('refunds reclaims and systemic attempts made while open, once, and not a closed-state client error', async () => {
    const { clock, control } = setup();
    const { during } = await flap(clock, control.plane);
    const after = clock.now() + 10;
    clock.advance(20);
    const events = [
      ev('r1', 'reclaim', during),
      ev('a1', 'attempt', during, 'b', 'overload'),
      ev('a2', 'attempt', during, 'b', 'client_error'),
      ev('a3', 'attempt', after, 'c', 'client_error'),
    ];
    expect(await control.reconciliation.record('g', events)).toEqual({ accepted: 4, duplicates: 0 });
    // not judged before a TTL and a tick have passed
    expect(await control.reconciliation.run()).toEqual({ judged: 0, refunded: 0 });
    clock.advance(TTL + TICK);
    expect(await control.reconciliation.run()).toEqual({ judged: 4, refunded: 2 });
    expect(await control.reconciliation.record('g', events)).toEqual({ accepted: 0, duplicates: 4 });
    clock.advance(TTL + TICK);
    expect(await control.reconciliation.run()).toEqual({ judged: 0, refunded: 0 });
    const { refunds, next } = await control.reconciliation.refunds('g', null, 100);
    expect(refunds.map((r) => [r.workId, r.attempts, r.reclaims]).sort()).toEqual([
      ['w-a1', 1, 0],
      ['w-r1', 0, 1],
    ]);
    expect(await control.reconciliation.refunds('g', next, 100)).toEqual({ refunds: [], next });
    expect(control.events.events.filter((e) => e.type === 'ledger.refunded')).toHaveLength(1);
  });

  it("refunds a reclaim while only the instance's own breaker was open (group closed)", async () => {
    const { clock, control } = setup();
    for (const i of ['a', 'b', 'c', 'd', 'e']) await beat(control.plane, i, 'closed');
    clock.advance(TTL + 1);
    await beat(control.plane, 'a', 'open'); // one of five: no quorum
    clock.advance(TICK);
    const inRun = clock.now();
    await beat(control.plane, 'a', 'open');
    clock.advance(TICK);
    await beat(control.plane, 'a', 'closed');
    clock.advance(10 * TICK);
    const later = clock.now();
    await control.reconciliation.record('g', [ev('x', 'reclaim', inRun), ev('y', 'reclaim', later)]);
    clock.advance(TTL + TICK + 1);
    expect(control.breakers.peek('g:dep')?.globalState.state).toBe('closed');
    await control.reconciliation.run();
    const { refunds } = await control.reconciliation.refunds('g', null, 10);
    expect(refunds.map((r) => r.workId)).toEqual(['w-x']);
    expect(refunds[0]!.reason).toMatch(/locally open/);
  });

  it('judges an event once settleMs has passed since it, not a millisecond before (T−1 / T)', async () => {
    const { clock, control } = setup();
    await flap(clock, control.plane);
    const at = clock.now();
    await control.reconciliation.record('g', [ev('late', 'reclaim', at)]);
    clock.set(at + control.reconciliation.settleMs - 1);
    expect((await control.reconciliation.run()).judged).toBe(0);
    clock.set(at + control.reconciliation.settleMs);
    expect((await control.reconciliation.run()).judged).toBe(1);
  });

  it('two runners on one ledger never refund an event twice', async () => {
    const { clock, control } = setup();
    const { during } = await flap(clock, control.plane);
    const events = Array.from({ length: 1200 }, (_, i) => ev(`e${i}`, 'reclaim', during));
    await control.reconciliation.record('g', events);
    clock.advance(TTL + TICK);
    const second = new Reconciliation(
      {
        ledger: control.ledger,
        history: new MemoryHistory(control.breakers, control.presence),
        breakers: control.breakers,
        events: control.events,
        clock,
      },
      { heartbeatIntervalMs: TICK, heartbeatTtlMs: TTL },
    );
    const [x, y] = await Promise.all([control.reconciliation.run(), second.run()]);
    expect(x.refunded + y.refunded).toBe(1200);
    expect(new Set(control.ledger.issued.map((r) => r.eventId)).size).toBe(control.ledger.issued.length);
  });

  it('refuses a batch with a time in the future beyond the skew allowance, naming the field', async () => {
    const { clock, control } = setup();
    await expect(
      control.reconciliation.record('g', [
        ev('ok', 'reclaim', clock.now()),
        ev('bad', 'reclaim', clock.now() + 3_600_000),
      ]),
    ).rejects.toThrow(ControlError);
    await expect(
      control.reconciliation.record('g', [ev('bad', 'reclaim', clock.now() + 3_600_000)]),
    ).rejects.toThrow(/events\.0\.at/);
    expect(await control.reconciliation.record('g', [ev('ok', 'reclaim', clock.now())])).toEqual({
      accepted: 1,
      duplicates: 0,
    });
  });
});
