import { describe, expect, it } from 'vitest';
import { LeasedQueue } from '../workqueue/LeasedQueue.js';
import { runS6 } from './S6.js';

describe('S6: a flapping breaker over a leased queue with MaxRangeReclaims = 5', () => {
  it('recloser with refunds quarantines no healthy unit and every poison unit, refunding nothing twice; without refunds healthy units are quarantined', async () => {
    // the scenario's own fleet (20 instances): smaller providers ramp too slowly to reach every poison unit
    const { strategies } = await runS6({ seed: 1, strategies: ['recloser-no-refunds', 'recloser'] });
    const r = strategies.recloser!;
    expect(r.globalOpens).toBeGreaterThanOrEqual(5);
    expect(r.healthyQuarantined).toBe(0);
    expect(r.poisonQuarantined).toBe(r.poisonUnits);
    expect(r.poisonUnits).toBeGreaterThan(0);
    expect(r.doubleRefunds).toBe(0);
    expect(r.refundedReclaims).toBeGreaterThan(0);
    expect(strategies['recloser-no-refunds']!.healthyQuarantined).toBeGreaterThan(0);
  }, 120_000);
});

describe('LeasedQueue (the S6 test double)', () => {
  it('reclaims an expired lease, quarantines at the fifth, and applies a refund once per event', () => {
    const q = new LeasedQueue(10);
    q.add('u1', false);
    for (let k = 0; k < 4; k++) {
      expect(q.claim('i1', k * 100)?.id).toBe('u1');
      q.expire(k * 100 + 10);
    }
    expect(q.all()[0]!.reclaims).toBe(4);
    const reclaim = q.outbox.find((e) => e.kind === 'reclaim')!;
    q.applyRefund({ eventId: reclaim.eventId, workId: 'u1', attempts: 0, reclaims: 1 });
    q.applyRefund({ eventId: reclaim.eventId, workId: 'u1', attempts: 0, reclaims: 1 });
    expect(q.doubleRefunds).toBe(1);
    expect(q.all()[0]!.reclaims).toBe(3);
    q.claim('i1', 1000);
    q.expire(1010);
    q.claim('i1', 2000);
    q.expire(2010);
    expect(q.all()[0]!.state).toBe('quarantined');
    expect(q.claim('i1', 3000)).toBeNull();
  });
});
