import { describe, expect, it } from 'vitest';
import { Simulation } from '../engine/Simulation.js';
import { Provider, sustainedInFlight, type ProviderAnswer, type ProviderOptions } from './Provider.js';

const options: ProviderOptions = {
  ratePerSec: 10,
  concurrency: 2,
  maxQueue: 3,
  queueTimeoutMs: 2000,
  rateLimitFactor: 100,
  outageLatencyMs: 30,
  pools: 'global',
};

async function burst(n: number, setup?: (p: Provider) => void): Promise<ProviderAnswer[]> {
  const sim = new Simulation(1);
  const provider = new Provider(sim, options);
  setup?.(provider);
  const answers: ProviderAnswer[] = [];
  for (let i = 0; i < n; i++) provider.call('eu', (a) => answers.push(a));
  await sim.run(60_000);
  return answers;
}

describe('Provider', () => {
  it('serves up to its concurrency at once, queues the next and answers 503 beyond the queue', async () => {
    const answers = await burst(7);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 503)).toHaveLength(2);
  });

  it('makes queued calls wait: latency grows with the queue', async () => {
    const answers = (await burst(5)).filter((a) => a.status === 200).map((a) => a.latencyMs);
    expect(Math.max(...answers)).toBeGreaterThan(Math.min(...answers));
  });

  it('answers every call 503 during an outage', async () => {
    const answers = await burst(4, (p) => p.setOutage(true));
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503]);
  });

  it('answers 429 with Retry-After beyond its rate limit', async () => {
    const sim = new Simulation(1);
    const provider = new Provider(sim, { ...options, rateLimitFactor: 0.2, maxQueue: 100 });
    const answers: ProviderAnswer[] = [];
    for (let i = 0; i < 4; i++) provider.call('eu', (a) => answers.push(a));
    await sim.run(60_000);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(2);
    expect(limited[0]!.retryAfterMs).toBeGreaterThanOrEqual(1000);
  });

  it('serves fewer at once when it comes back at a fraction of its capacity', async () => {
    const answers = await burst(20, (p) => p.setCapacityFraction(0.5));
    // 1 slot and a queue of 2 (half of each)
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
  });

  it('records the deepest queue per region', async () => {
    const sim = new Simulation(1);
    const provider = new Provider(sim, options);
    for (let i = 0; i < 4; i++) provider.call('eu', () => undefined);
    provider.call('us', () => undefined);
    await sim.run(60_000);
    expect(provider.maxQueueDepthByRegion()).toEqual({ eu: 2, us: 1 });
  });

  it('holds more calls in flight than its slots when served at its full rate: sustainedInFlight of them', async () => {
    const sim = new Simulation(1);
    const provider = new Provider(sim, options);
    const latencies: number[] = [];
    // one arrival every 1000 / ratePerSec ms for 5 s: exactly the full rate
    const seconds = 5;
    const gapMs = 1000 / options.ratePerSec;
    for (let i = 0; i < seconds * options.ratePerSec; i++) {
      sim.at(i * gapMs, () => provider.call('eu', (a) => a.status === 200 && latencies.push(a.latencyMs)));
    }
    await sim.run(60_000);
    expect(latencies).toHaveLength(seconds * options.ratePerSec);
    // Little's law: calls in flight on average = Σ latency / the time they arrived over
    const meanInFlight = latencies.reduce((s, l) => s + l, 0) / (seconds * 1000);
    expect(meanInFlight).toBeGreaterThan(options.concurrency);
    expect(meanInFlight).toBeLessThanOrEqual(sustainedInFlight(options, 1, 1));
    expect(meanInFlight).toBeGreaterThan(sustainedInFlight(options, 1, 1) - 1);
  });

  it('sustainedInFlight scales with the capacity fraction and with one pool per region', () => {
    expect(sustainedInFlight(options, 1, 3)).toBe(4);
    expect(sustainedInFlight({ ...options, pools: 'regional' }, 1, 3)).toBe(12);
    expect(sustainedInFlight({ ...options, ratePerSec: 600, concurrency: 120 }, 0.5, 1)).toBe(120);
  });

  describe('collapse model', () => {
    const big: ProviderOptions = {
      ratePerSec: 600,
      concurrency: 120,
      maxQueue: 300,
      queueTimeoutMs: 2000,
      rateLimitFactor: 2,
      outageLatencyMs: 30,
      pools: 'global',
      model: 'collapse',
    };
    /** Poisson arrivals at `rate`/s for `seconds`; answers per second */
    async function load(rate: number, seconds: number, setup?: (p: Provider) => void) {
      const sim = new Simulation(3);
      const provider = new Provider(sim, big);
      setup?.(provider);
      const ok: number[] = [];
      let t = 0;
      while (t < seconds * 1000) {
        t += (-Math.log(1 - sim.rng.next()) * 1000) / rate;
        const at = t;
        sim.at(at, () =>
          provider.call('eu', (a) => {
            if (a.status === 200)
              ok[Math.floor(sim.now() / 1000)] = (ok[Math.floor(sim.now() / 1000)] ?? 0) + 1;
          }),
        );
      }
      sim.every(1000, 999, seconds * 1000, () => provider.endSecond(1));
      await sim.run(seconds * 1000);
      return { ok, provider };
    }

    it('serves 97 % of its capacity steadily', async () => {
      const { ok, provider } = await load(580, 30);
      expect(Math.min(...ok.slice(5, 29))).toBeGreaterThan(500);
      expect(provider.currentHealth()).toBe(1);
      expect(provider.wastedCalls).toBe(0);
    });

    it('overloaded, it wastes work on abandoned calls and collapses: goodput falls far below capacity', async () => {
      const { ok, provider } = await load(700, 30);
      expect(provider.wastedCalls).toBeGreaterThan(0);
      expect(provider.currentHealth()).toBeLessThan(0.5);
      expect(ok.slice(20, 29).reduce((s, v) => s + (v ?? 0), 0) / 9).toBeLessThan(200);
    });

    it('comes back cold after an outage and warms up only while its load stays low', async () => {
      const sim = new Simulation(1);
      const provider = new Provider(sim, big);
      provider.setOutage(true);
      provider.setOutage(false);
      expect(provider.currentHealth()).toBe(0.5);
      expect(provider.servableRatePerSec(1)).toBe(300);
      for (let s = 0; s < 3; s++) provider.endSecond(1); // no load: warms 0.1 a second
      expect(provider.currentHealth()).toBeCloseTo(0.8, 10);
    });
  });
});
