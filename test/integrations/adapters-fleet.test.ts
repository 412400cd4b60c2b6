// The adapters end to end: a fleet of 20 workers that keep their opossum breakers and one that
// keeps a cockatiel policy, each guarded (call sites unchanged: circuit.fire(), policy.execute()),
// talking HTTP to the real controller (in-process, real Postgres, Redis) and calling a loopback
// provider. The provider dies: their own breakers open, the group opens by quorum of their
// verdicts; while OPEN every foreign breaker is held open and nobody calls; the provider comes
// back: one prober, then admissions within the ramp's allowance, then CLOSED with every foreign
// breaker closed again. Bounded in count and time.
/* eslint-disable @typescript-eslint/no-explicit-any -- admin response bodies are JSON of any shape */
import { createRequire } from 'node:module';
import { createRecloser, isBreakerOpenError, type Recloser } from '@recloser/client';
import { guardCockatiel } from '@recloser/client/cockatiel';
import { guardOpossum, type OpossumCircuit } from '@recloser/client/opossum';
import { CircuitState, ConsecutiveBreaker, circuitBreaker, handleAll } from 'cockatiel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { createFleetKey } from '../support/fleet-key.js';
import { pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

// opossum ships CommonJS without typings: the adapter's structural type describes it
type OpossumConstructor = new (
  action: (...args: unknown[]) => Promise<unknown>,
  options: Record<string, unknown>,
) => OpossumCircuit & {
  readonly closed: boolean;
  fire(...args: unknown[]): Promise<unknown>;
  shutdown(): void;
};
const Opossum = createRequire(import.meta.url)('opossum') as OpossumConstructor;

const INTERVAL_MS = 250;
const GROUP = 'adapter-fleet';
const DEPENDENCY = 'adapter-provider';
const OPOSSUM_WORKERS = 20;
const COOLDOWN_MS = 2500;
/**
 * the provider's capacity the ramp steps divide; the fleet wants ~5 calls/s each, ~105/s: the
 * steps before the last admit 7.5/s and 30/s, the last one all the fleet wants (so it closes)
 */
const CAPACITY_PER_SEC = 150;
const STEPS = [0.05, 0.2, 1.0];
const BELOW_LAST_STEP_PER_SEC = CAPACITY_PER_SEC * 0.2;
const FLEET_DEMAND_PER_SEC = (OPOSSUM_WORKERS + 1) * 5;

let t: TestApp;
let provider: FakeProvider;
const fleet: Recloser[] = [];
const circuits: ReturnType<typeof makeCircuit>[] = [];
let policy: ReturnType<typeof circuitBreaker>;
let running = true;
let loops: Promise<void>[] = [];
const tally = { refusedByPlan: 0, refusedByOwnBreaker: 0, ok: 0, failed: 0 };

function makeCircuit(instanceId: string) {
  return new Opossum(
    async () => {
      const res = await fetch(provider.url, { headers: { 'x-instance-id': instanceId } });
      await res.arrayBuffer();
      if (!res.ok) throw Object.assign(new Error(`provider answered ${res.status}`), { status: res.status });
      return res.status;
    },
    // the team's own tuning, kept as it was
    {
      timeout: 3000,
      errorThresholdPercentage: 50,
      resetTimeout: 1000,
      volumeThreshold: 3,
      rollingCountTimeout: 2000,
    },
  );
}

async function callLoop(call: () => Promise<unknown>, offsetMs: number): Promise<void> {
  await sleep(offsetMs);
  for (let n = 0; running && n < 600; n++) {
    try {
      await call();
      tally.ok += 1;
    } catch (err) {
      if (isBreakerOpenError(err)) tally.refusedByPlan += 1;
      else if (
        (err as { code?: unknown }).code === 'EOPENBREAKER' ||
        (err as Error).name === 'BrokenCircuitError'
      )
        tally.refusedByOwnBreaker += 1;
      else tally.failed += 1;
    }
    await sleep(200);
  }
}

beforeAll(async () => {
  t = await bootTestApp({
    RECLOSER_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
    RECLOSER_HEARTBEAT_TTL_MS: '1500',
  });
  const baseUrl = await t.listen();
  provider = await startFakeProvider({ kind: 'up' });
  const put = await t.admin('PUT', '/v1/admin/pools/adapter-pool', {
    dependencies: [DEPENDENCY],
    probe: { concurrency: 1, ratePerSec: 1, leaseTtlMs: 3000, cooldownMs: COOLDOWN_MS, probesToPass: 2 },
    capacity: { standard: { ratePerSec: CAPACITY_PER_SEC, concurrency: 30 } },
    ramp: {
      steps: STEPS,
      dwellMs: 1200,
      minSample: 4,
      // loopback latency on a shared machine says nothing about this provider: a slow moment made
      // the ramp settle on latency (a move of the same step) — gate on failures only
      latencyInflation: 100,
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
  const make = (instanceId: string) =>
    createRecloser({
      url: baseUrl,
      key,
      instanceId,
      group: GROUP,
      region: 'eu-west',
      heartbeatIntervalMs: INTERVAL_MS,
    });

  for (let i = 0; i < OPOSSUM_WORKERS; i++) {
    const recloser = make(`opossum-${i}`);
    const circuit = makeCircuit(`opossum-${i}`);
    guardOpossum(recloser, DEPENDENCY, circuit);
    fleet.push(recloser);
    circuits.push(circuit);
  }
  const cockatielRecloser = make('cockatiel-0');
  policy = circuitBreaker(handleAll, { halfOpenAfter: 1000, breaker: new ConsecutiveBreaker(3) });
  guardCockatiel(cockatielRecloser, DEPENDENCY, policy);
  fleet.push(cockatielRecloser);

  // call sites as they were before Recloser: circuit.fire() and policy.execute()
  loops = circuits.map((circuit, i) => callLoop(() => circuit.fire(), (i * 200) / OPOSSUM_WORKERS));
  loops.push(
    callLoop(
      () =>
        policy.execute(async ({ signal }) => {
          const res = await fetch(provider.url, { headers: { 'x-instance-id': 'cockatiel-0' }, signal });
          await res.arrayBuffer();
          if (!res.ok) throw new Error(`provider answered ${res.status}`);
          return res.status;
        }),
      100,
    ),
  );
});

afterAll(async () => {
  running = false;
  await Promise.all(loops);
  await Promise.all(fleet.map((r) => r.close()));
  for (const c of circuits) c.shutdown();
  await provider?.close();
  await t?.close();
});

async function breaker(): Promise<any> {
  const { body } = await t.admin('GET', '/v1/admin/overview');
  return (
    body.breakers.find((b: any) => b.group === GROUP && b.dependency === DEPENDENCY) ?? { state: 'unknown' }
  );
}

async function transitions(breakerId: string): Promise<any[]> {
  const { body } = await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`);
  return [...body.transitions].sort((a: any, b: any) => a.seq - b.seq);
}

const story = (log: any[]): string =>
  log.map((tr) => `${tr.from}->${tr.to} step=${tr.step} (${tr.actor})`).join('\n');

describe('20 opossum breakers and a cockatiel policy guarded by Recloser', () => {
  it('open by quorum of their own verdicts, are held open while OPEN, and recover through the ramp', async () => {
    const live = await pollUntil(breaker, (b) => b.live === OPOSSUM_WORKERS + 1, {
      attempts: 80,
      everyMs: 100,
    });
    expect(live.live).toBe(OPOSSUM_WORKERS + 1);
    await sleep(1600); // the learning period (one TTL) passes with every worker healthy
    expect(circuits.every((c) => !c.opened)).toBe(true);

    provider.setMode({ kind: 'down' });
    const opened = await pollUntil(breaker, (b) => b.state === 'open', { attempts: 100, everyMs: 100 });
    expect(opened.state).toBe('open');
    const openAt = Date.now();
    const log = await transitions(opened.breakerId);
    expect(log.at(-1)).toMatchObject({ from: 'closed', to: 'open', actor: 'quorum' });
    // the verdicts that formed the quorum were the foreign breakers' own (Recloser's never trip)
    const { body: detail } = await t.admin('GET', `/v1/admin/breakers/${opened.breakerId}`);
    expect(
      detail.instances.filter((i: any) => i.state === 'open' || i.state === 'paused').length,
    ).toBeGreaterThanOrEqual(Math.ceil((OPOSSUM_WORKERS + 1) / 2));
    expect(fleet.every((r) => r.breaker(DEPENDENCY).local.state !== 'local_open')).toBe(true);

    // held open while OPEN: past opossum's own resetTimeout (1 s) and cockatiel's halfOpenAfter
    await sleep(1500);
    const heldAt = Date.now();
    expect(circuits.every((c) => c.opened && !c.halfOpen)).toBe(true);
    expect(policy.state).toBe(CircuitState.Isolated);
    expect(fleet.every((r) => r.breaker(DEPENDENCY).state === 'paused')).toBe(true);
    // nobody called the provider while OPEN (the cooldown is at least 80 % of 2.5 s)
    expect(provider.callsSince(openAt + 2 * INTERVAL_MS).filter((c) => c.at <= heldAt)).toEqual([]);
    const refusedWhileOpen = tally.refusedByPlan;
    expect(refusedWhileOpen).toBeGreaterThan(0);

    // the provider comes back: one prober, then the ramp, then CLOSED
    provider.setMode({ kind: 'up' });
    const ramping = await pollUntil(breaker, (b) => b.state === 'ramping', { attempts: 150, everyMs: 100 });
    expect(ramping.state).toBe('ramping');
    const rampingAt = Date.now();
    // before the ramp, only probes reached the provider: within the budget (+1 at a window edge)
    expect(provider.peakPerSecond(heldAt, rampingAt - INTERVAL_MS)).toBeLessThanOrEqual(2);
    const closed = await pollUntil(breaker, (b) => b.state === 'closed', { attempts: 200, everyMs: 100 });
    const full = await transitions(opened.breakerId);
    expect(closed.state, story(full)).toBe('closed');
    const states = full.slice(full.findIndex((tr) => tr.to === 'open')).map((tr) => tr.to);
    const path = states.filter((state, i) => state !== states[i - 1]);
    expect(path, story(full)).toEqual(['open', 'probing', 'ramping', 'closed']);
    // the ramp's moves in this epoch, one after another (the levels between first and last are found)
    const moves = full.filter((tr) => tr.to === 'ramping').map((tr) => tr.step);
    expect(moves.length, story(full)).toBeGreaterThanOrEqual(2);
    expect(moves, story(full)).toEqual(moves.map((_, i) => i));
    // while ramping below the last step, admissions stayed within the allowance: at most that
    // step's rate plus a burst token per instance, well below the ~105 calls/s the fleet wanted
    const lastStepAt = Date.parse(full.find((tr) => tr.to === 'ramping' && tr.step === STEPS.length - 1).at);
    const rampPeak = provider.peakPerSecond(rampingAt + INTERVAL_MS, lastStepAt - INTERVAL_MS);
    expect(rampPeak).toBeLessThanOrEqual(BELOW_LAST_STEP_PER_SEC + OPOSSUM_WORKERS + 1);
    expect(rampPeak).toBeLessThan(FLEET_DEMAND_PER_SEC);

    // recovered: every foreign breaker closed again and calling; the fleet's full demand flows
    await sleep(1500);
    expect(circuits.every((c) => c.closed)).toBe(true);
    expect(policy.state).toBe(CircuitState.Closed);
    expect(fleet.every((r) => r.breaker(DEPENDENCY).state === 'closed')).toBe(true);
    const after = Date.now();
    await sleep(1000);
    const recent = provider.callsSince(after);
    expect(new Set(recent.map((c) => c.instanceId)).size).toBe(OPOSSUM_WORKERS + 1);
    expect(recent.length).toBeGreaterThan(BELOW_LAST_STEP_PER_SEC + OPOSSUM_WORKERS + 1);
    expect(recent.every((c) => c.status === 200)).toBe(true);
  });
});
