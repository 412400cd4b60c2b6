// Global recovery end to end, the way a fleet lives through it: 50 real SDK instances talk HTTP to
// the real controller (in-process, real Postgres, Redis and BullMQ) and call a loopback provider
// that dies, comes back at 10 % of its normal capacity, and later at 100 %. Bounded in count and time.
/* eslint-disable @typescript-eslint/no-explicit-any -- admin response bodies are JSON of any shape */
import { createRecloser, type Recloser } from '@recloser/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { createFleetKey } from '../support/fleet-key.js';
import { pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

const INTERVAL_MS = 250;
const GROUP = 'recovery-fleet';
const DEPENDENCY = 'recovery-llm';
const INSTANCES = 50;
/** what the provider normally serves; each instance wants 2 calls/s, 100/s for the fleet */
const NORMAL_PER_SEC = 100;
const PROBE_BUDGET = { concurrency: 1, ratePerSec: 1 };

let t: TestApp;
let provider: FakeProvider;
let fleet: Recloser[] = [];
let running = true;
let loops: Promise<void>[] = [];
let breakerId: string;

beforeAll(async () => {
  t = await bootTestApp({
    RECLOSER_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
    RECLOSER_HEARTBEAT_TTL_MS: '1500',
  });
  const baseUrl = await t.listen();
  provider = await startFakeProvider({ kind: 'up' });
  const put = await t.admin('PUT', '/v1/admin/pools/recovery-pool', {
    dependencies: [DEPENDENCY],
    probe: { ...PROBE_BUDGET, leaseTtlMs: 3000, cooldownMs: 500, probesToPass: 2 },
    capacity: { standard: { ratePerSec: NORMAL_PER_SEC, concurrency: 50 } },
    ramp: {
      steps: [0.05, 0.1, 0.2, 0.5, 1.0],
      dwellMs: 1500,
      minSample: 8,
      classOrder: ['standard'],
      gates: {
        minSuccessRate: 0.9,
        maxLatencyP95Ms: 2000,
        maxTtftP95Ms: 2000,
        maxQueueAgeMs: 5000,
        max429Rate: 0.05,
      },
    },
  });
  expect(put.status).toBe(200);

  const { key } = await createFleetKey(t, [GROUP]);
  fleet = Array.from({ length: INSTANCES }, (_, i) =>
    createRecloser({
      url: baseUrl,
      key,
      instanceId: `w${i}`,
      group: GROUP,
      region: 'eu-west',
      heartbeatIntervalMs: INTERVAL_MS,
    }),
  );
  // each instance wants 2 calls/s; refused calls still count as demand, which sizes its allowance
  loops = fleet.map(async (recloser, i) => {
    // 2 calls/s is less than one call per tick: the failure-rate window mode suits such an instance
    const breaker = recloser.breaker(DEPENDENCY, {
      local: { mode: 'window', windowTicks: 8, minWindowAttempts: 3, failureRateThreshold: 0.8 },
    });
    await sleep((i * 500) / INSTANCES);
    for (let n = 0; running && n < 400; n++) {
      await breaker
        .execute((signal) =>
          fetch(provider.url, { headers: { 'x-instance-id': `w${i}` }, ...(signal ? { signal } : {}) }),
        )
        .catch(() => undefined);
      await sleep(500);
    }
  });
});

afterAll(async () => {
  running = false;
  await Promise.all(loops);
  await Promise.all(fleet.map((r) => r.close()));
  await provider?.close();
  await t?.close();
});

async function breaker(): Promise<any> {
  const { body } = await t.admin('GET', '/v1/admin/overview');
  return (
    body.breakers.find((b: any) => b.group === GROUP && b.dependency === DEPENDENCY) ?? { state: 'unknown' }
  );
}

async function transitions(): Promise<any[]> {
  const { body } = await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`);
  const list: any[] = Array.isArray(body) ? body : body.transitions;
  return [...list].sort((a, b) => a.seq - b.seq); // oldest first (the endpoint lists newest first)
}

/** the transition log, one line each, for assertion messages */
const story = (log: any[]): string =>
  log.map((tr) => `${tr.at} ${tr.from}->${tr.to} step=${tr.step} (${tr.actor}) ${tr.reason}`).join('\n');

/** calls the provider received per second, in whole seconds of [from, to) */
function callsPerSecond(from: number, to: number): number[] {
  const out: number[] = [];
  for (let s = from; s + 1000 <= to; s += 1000)
    out.push(provider.calls.filter((c) => c.at >= s && c.at < s + 1000).length);
  return out;
}

describe('50 SDK instances through an outage and a partial recovery', () => {
  it('probes within the budget, settles near 10 % without re-tripping, and closes once the provider is whole', async () => {
    // healthy, then the provider dies and the fleet opens the breaker by quorum
    await pollUntil(breaker, (b) => b.live === INSTANCES, { attempts: 60, everyMs: 100 });
    provider.setMode({ kind: 'down' });
    const opened = await pollUntil(breaker, (b) => b.state === 'open', { attempts: 100, everyMs: 100 });
    expect(opened.state).toBe('open');
    breakerId = opened.breakerId;

    // every instance learns the OPEN plan within a heartbeat interval or two; from then on only
    // the designated prober may call
    await sleep(3 * INTERVAL_MS);
    // the provider comes back serving 10 % of its normal rate
    provider.setMode({ kind: 'partial', capacityPerSec: NORMAL_PER_SEC / 10 });
    const probingAt = Date.now();
    const ramping = await pollUntil(breaker, (b) => b.state === 'ramping', { attempts: 200, everyMs: 100 });
    expect(ramping.state).toBe('ramping');
    const rampingAt = Date.now();
    // while OPEN and PROBING only the designated prober calls: within the pool's probe budget
    // (+1 for a probe that straddles a window edge), never the fleet's 100/s
    const probingPeak = provider.peakPerSecond(probingAt, rampingAt - INTERVAL_MS);
    expect(probingPeak).toBeLessThanOrEqual(PROBE_BUDGET.concurrency + PROBE_BUDGET.ratePerSec);

    // the ramp climbs until a level overloads the provider, steps back, and settles near 10 %
    // (each move of the ramp is a step; its level is in the transition's figures)
    const levelOf = (tr: any): number | null => tr.figures?.level ?? null;
    const steppedBack = (log: any[]) =>
      log.some(
        (tr, i) =>
          i > 0 &&
          tr.to === 'ramping' &&
          log[i - 1].to === 'ramping' &&
          levelOf(tr) !== null &&
          levelOf(log[i - 1]) !== null &&
          levelOf(tr)! < levelOf(log[i - 1])!,
      );
    const log = await pollUntil(transitions, steppedBack, { attempts: 300, everyMs: 100 });
    expect(steppedBack(log), story(log)).toBe(true);
    // settled: it stays RAMPING, mostly at or below about 10 %, trying above only after a wait;
    // the provider sees about what it can serve
    const watchFrom = Date.now();
    const samples: any[] = [];
    for (let i = 0; i < 32; i++) {
      samples.push(await breaker());
      await sleep(250);
    }
    expect(
      samples.every((b) => b.state === 'ramping'),
      story(await transitions()),
    ).toBe(true);
    const ramped = (await transitions()).filter((tr) => tr.to === 'ramping' && levelOf(tr) !== null);
    const levelAt = (ms: number) =>
      levelOf([...ramped].reverse().find((tr) => Date.parse(tr.at) <= ms) ?? ramped[0]);
    const watched = Array.from({ length: 32 }, (_, i) => levelAt(watchFrom + i * 250)!);
    const nearTen = watched.filter((l) => l <= 0.2).length / watched.length;
    expect(nearTen, story(await transitions())).toBeGreaterThanOrEqual(0.6);
    const rates = callsPerSecond(watchFrom, Date.now());
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    // between 30 % and 200 % of the 10/s it can serve: the found ramp settles with headroom below
    // the limit and, on a provider this small, a bisection step can sit well under it for a while
    // (issue 13's open shortfall on small providers: one CI run measured 4.6/s)
    expect(mean).toBeGreaterThanOrEqual(NORMAL_PER_SEC * 0.03);
    expect(mean).toBeLessThanOrEqual(NORMAL_PER_SEC * 0.2);
    // no re-trip: nothing went back to OPEN after the ramp began
    const afterRamp = (await transitions()).filter((tr) => Date.parse(tr.at) >= rampingAt);
    expect(afterRamp.filter((tr) => tr.to === 'open')).toEqual([]);

    // the provider is whole again: the ramp retries above its ceiling and reaches CLOSED
    provider.setMode({ kind: 'up' });
    const closed = await pollUntil(breaker, (b) => b.state === 'closed', { attempts: 600, everyMs: 100 });
    expect(closed.state, story(await transitions())).toBe('closed');
    const final = await transitions();
    expect(final.at(-1).to).toBe('closed');
    // a probe that meets the 10 % provider at a bad moment may send PROBING back to OPEN (the
    // lifecycle's longer cooldown); what must never happen is a ramp falling back to OPEN
    expect(final.filter((tr) => tr.to === 'open' && tr.from !== 'probing' && tr.from !== 'closed')).toEqual(
      [],
    );
    expect(final.filter((tr) => tr.from === 'closed' && tr.to === 'open')).toHaveLength(1);
    // every wait above is a bounded poll; levels near the ramp's limit are judged over
    // SETTLED_WINDOW_DWELLS and a step back drains first, so the whole story runs past 60 s
  }, 150_000);
});
