import { seededRng } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../engine/Simulation.js';
import { Recorder } from '../metrics/Recorder.js';
import { IndependentBreaker, JITTERED_BREAKER, NAIVE_BREAKER } from './naive.js';

function breaker(options = NAIVE_BREAKER) {
  const sim = new Simulation(1);
  const recorder = new Recorder();
  return { sim, recorder, b: new IndependentBreaker('i-1', sim, seededRng(3), recorder, options) };
}

describe('IndependentBreaker (the naive baseline)', () => {
  it('opens at a 50 % failure rate once it has the minimum calls', () => {
    const { b } = breaker();
    b.complete('call', 'overload', 10, undefined);
    b.complete('call', 'success', 10, undefined);
    expect(b.isOpen()).toBe(false);
    b.complete('call', 'overload', 10, undefined);
    expect(b.isOpen()).toBe(true);
    expect(b.acquire()).toBeNull();
  });

  it('lets 10 half-open calls through after exactly 30 s, then closes when they succeed', async () => {
    const { sim, b } = breaker();
    for (let i = 0; i < 3; i++) b.complete('call', 'overload', 10, undefined);
    expect(b.wakeAt()).toBe(30_000);
    await sim.run(29_999);
    expect(b.acquire()).toBeNull();
    await sim.run(30_000);
    const kinds = Array.from({ length: 11 }, () => b.acquire());
    expect(kinds.filter((k) => k === 'probe')).toHaveLength(10);
    expect(kinds[10]).toBeNull();
    for (let i = 0; i < 10; i++) b.complete('probe', 'success', 10, undefined);
    expect(b.isOpen()).toBe(false);
    expect(b.acquire()).toBe('call');
  });

  it('reopens when half of the half-open calls fail', async () => {
    const { sim, b, recorder } = breaker();
    for (let i = 0; i < 3; i++) b.complete('call', 'overload', 10, undefined);
    await sim.run(30_000);
    for (let i = 0; i < 10; i++) b.acquire();
    for (let i = 0; i < 5; i++) b.complete('probe', 'overload', 10, undefined);
    expect(b.isOpen()).toBe(true);
    expect(recorder.transitions.map((t) => t.to)).toEqual(['open', 'half_open', 'open']);
  });

  it('the jittered variant draws its wait from [15 s, 45 s]', () => {
    const waits = Array.from({ length: 50 }, (_, i) => {
      const sim = new Simulation(i);
      const b = new IndependentBreaker('i', sim, seededRng(i), new Recorder(), JITTERED_BREAKER);
      for (let k = 0; k < 3; k++) b.complete('call', 'network', 1, undefined);
      return b.wakeAt()!;
    });
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(15_000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(45_000);
    expect(new Set(waits).size).toBeGreaterThan(40);
  });
});
