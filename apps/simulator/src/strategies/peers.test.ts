import { FakeClock } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../engine/Simulation.js';
import { AWS_CUBIC, AWS_RETRY, AwsAdaptiveClient, CubicRateLimiter } from './awsAdaptive.js';
import { SRE_THROTTLE, SreThrottle, sreRejectProbability } from './sreThrottle.js';

describe('sre-throttle (SRE book client-side throttling)', () => {
  it('rejects with probability max(0, (requests − K·accepts)/(requests + 1))', () => {
    expect(sreRejectProbability(100, 50, 2)).toBe(0);
    expect(sreRejectProbability(100, 0, 2)).toBeCloseTo(100 / 101, 12);
    expect(sreRejectProbability(100, 40, 2)).toBeCloseTo(20 / 101, 12);
  });

  it('throttles locally once the backend refuses, and forgets refusals after the two-minute window', async () => {
    const sim = new Simulation(1);
    const gate = new SreThrottle(sim, sim.rng, SRE_THROTTLE);
    for (let i = 0; i < 200; i++) {
      sim.at(i * 100, () => {
        if (gate.acquire() === 'call') gate.complete('call', 'overload');
      });
    }
    await sim.run(20_001);
    expect(gate.rejectProbability()).toBeGreaterThan(0.9);
    await sim.run(20_000 + SRE_THROTTLE.windowMs + 1000);
    expect(gate.rejectProbability()).toBe(0);
  });
});

describe('aws-adaptive (AWS SDK retry quota + CUBIC client rate limiter)', () => {
  it('the limiter is off until the first throttle, then drops to β × the measured rate', () => {
    const clock = new FakeClock(0);
    const limiter = new CubicRateLimiter(() => clock.now() / 1000);
    for (let i = 0; i < 40; i++) {
      expect(limiter.acquire()).toBe(0);
      limiter.update(false);
      clock.advance(50); // 20/s
    }
    expect(limiter.rate()).toBeNull();
    limiter.update(true);
    const rate = limiter.rate()!;
    expect(rate).toBeGreaterThan(AWS_CUBIC.minFillRate);
    expect(rate).toBeLessThan(20 * AWS_CUBIC.beta * 1.2);
  });

  it('spends the retry quota (5 a retry, 10 after a timeout) and stops retrying when it is gone', () => {
    const sim = new Simulation(1);
    const client = new AwsAdaptiveClient(sim, sim.rng);
    let retries = 0;
    while (client.retry(0, 'network') !== null) retries++;
    expect(retries).toBe(AWS_RETRY.quota / AWS_RETRY.timeoutRetryCost);
    expect(client.retryQuota()).toBeLessThan(AWS_RETRY.timeoutRetryCost);
    client.complete('call', 'success', 10, undefined, 1);
    expect(client.retryQuota()).toBe(AWS_RETRY.retryCost);
    const wait = client.retry(1, 'overload')!;
    expect(wait.delayMs).toBeGreaterThanOrEqual(0);
    expect(wait.delayMs).toBeLessThanOrEqual(2000);
  });
});
