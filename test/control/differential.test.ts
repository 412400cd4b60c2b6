// One scripted fleet timeline — heartbeats with verdicts, an operator's actions, a probe result —
// driven through the in-memory control plane (what the simulator runs, on virtual time) and through
// the real controller over HTTP (Postgres, Redis, its BullMQ jobs, real time). Both must log the same
// transitions in the same order: state, epoch, step, actor, reason and quorum figures. If the two
// homes of the control layer drift apart, this fails. Only elapsed times inside a reason ("after
// 512 ms") differ by nature (virtual versus real time, a jittered cooldown) and are masked.
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
import { createMemoryControlPlane, type MemoryControl } from '@recloser/control';
import {
  emptyEvidence,
  FakeClock,
  mergePool,
  seededRng,
  type BreakerPlan,
  type GlobalState,
  type OperatorAction,
  type ReportedState,
} from '@recloser/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

const GROUP = 'diff-group';
const DEPENDENCY = 'diff-llm';
const INSTANCES = ['a', 'b', 'c', 'd'];
const INTERVAL_MS = 200;
const TTL_MS = 1000;
const POOL = {
  dependencies: [DEPENDENCY],
  probe: { concurrency: 1, ratePerSec: 5, leaseTtlMs: 3000, cooldownMs: 400, probesToPass: 1 },
  capacity: { standard: { ratePerSec: 40, concurrency: 8 } },
  // a dwell far longer than the script: the ramp stays on its first step
  ramp: { steps: [0.5, 1.0], dwellMs: 600_000, minSample: 5, classOrder: ['standard'] },
};

/** What the script needs of a home. */
interface Home {
  /** one heartbeat of `instanceId` in its current local state; the plan for the dependency back */
  beat(instanceId: string, state: ReportedState): Promise<BreakerPlan>;
  action(action: OperatorAction, reason: string): Promise<void>;
  probeResult(token: string): Promise<void>;
  /** lets `ms` pass (its jobs run meanwhile) */
  sleep(ms: number): Promise<void>;
  state(): Promise<GlobalState>;
  transitions(): Promise<Logged[]>;
}

interface Logged {
  from: string;
  to: string;
  epoch: number;
  fromStep: number | null;
  step: number | null;
  actor: string;
  reason: string;
  quorum: unknown;
}

function logged(t: Omit<Logged, 'quorum'> & { figures?: any; formedBy?: string[] | null }): Logged {
  const q = t.figures?.quorum;
  return {
    from: t.from,
    to: t.to,
    epoch: t.epoch,
    fromStep: t.fromStep,
    step: t.step,
    actor: t.actor,
    reason: t.reason.replace(/\d+(\.\d+)? ms/g, 'N ms'),
    quorum: q ? { open: q.open, live: q.live, threshold: q.threshold, formedBy: q.formedBy ?? null } : null,
  };
}

/** The script: learning, a quorum, a forced close, a second quorum, cooldown, a probe, the ramp, operators. */
async function runTimeline(home: Home): Promise<Logged[]> {
  const local = new Map<string, ReportedState>(INSTANCES.map((i) => [i, 'closed']));
  let plans = new Map<string, BreakerPlan>();
  const round = async () => {
    plans = new Map();
    // one instance after the other: the order of arrival is part of the script
    for (const i of INSTANCES) plans.set(i, await home.beat(i, local.get(i)!));
  };
  const pass = async (ms: number) => {
    for (let t = 0; t < ms; t += INTERVAL_MS) {
      await home.sleep(INTERVAL_MS);
      await round();
    }
  };
  const until = async (state: GlobalState) => {
    for (let t = 0; (await home.state()) !== state; t += INTERVAL_MS) {
      if (t > 15_000) throw new Error(`never reached ${state}`);
      await pass(INTERVAL_MS);
    }
  };

  await round();
  await pass(TTL_MS + INTERVAL_MS); // the learning period
  for (const i of ['a', 'b', 'c']) local.set(i, 'open');
  await round();
  await until('open');
  await home.action('force_close', 'differential: a false alarm');
  await round();
  await until('open'); // the quiet period ends, and the quorum (still open) holds again
  for (const i of INSTANCES) local.set(i, 'paused');
  await until('probing');
  await round();
  const token = [...plans.values()].map((p) => p.probe).find((p) => p !== null);
  expect(token, 'a designated instance holds a probe token').toBeTruthy();
  await home.probeResult(token!.token);
  await until('ramping');
  await home.action('pause_ramp', 'differential: hold');
  await home.action('resume_ramp', 'differential: go on');
  await home.action('force_open', 'differential: done');
  return home.transitions();
}

function memoryHome(): Home {
  const clock = new FakeClock(1_000_000);
  const control: MemoryControl = createMemoryControlPlane({
    clock,
    rng: seededRng(3),
    heartbeatIntervalMs: INTERVAL_MS,
    heartbeatTtlMs: TTL_MS,
    isolationAfterMs: 2 * TTL_MS,
    pools: [{ ...mergePool(POOL), id: 'diff-pool' }],
  });
  const { plane } = control;
  const id = `${GROUP}:${DEPENDENCY}`;
  let sinceJobs = 0;
  return {
    async beat(instanceId, state) {
      const res = await plane.heartbeat({
        instanceId,
        group: GROUP,
        region: 'eu-west',
        breakers: [verdict(state)],
      });
      return res.breakers[0]!;
    },
    async action(action, reason) {
      await plane.operatorAction(id, action, reason);
    },
    async probeResult(token) {
      await plane.probeResult(token, { outcome: 'success', latencyMs: 50 });
    },
    async sleep(ms) {
      clock.advance(ms);
      // the controller's jobs, once per second as its schedulers run them
      sinceJobs += ms;
      while (sinceJobs >= 1000) {
        sinceJobs -= 1000;
        await plane.sweepLeases();
        await plane.evaluateAll();
        await plane.tick();
        await plane.watch();
      }
    },
    async state() {
      return control.breakers.peek(id)?.globalState.state ?? 'closed';
    },
    async transitions() {
      return control.breakers.log.map((t) => logged(t));
    },
  };
}

async function httpHome(t: TestApp): Promise<Home> {
  const key = (await createFleetKey(t, [GROUP])).key;
  const put = await t.admin('PUT', '/v1/admin/pools/diff-pool', POOL);
  expect(put.status).toBe(200);
  let breakerId = '';
  const ok = (res: { status: number; text: string }, what: string) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  };
  return {
    async beat(instanceId, state) {
      const res = await t.request('POST', '/v1/heartbeats', {
        token: key,
        body: { instanceId, group: GROUP, region: 'eu-west', breakers: [verdict(state)] },
      });
      ok(res, 'heartbeat');
      breakerId = res.body.breakers[0].breakerId;
      return res.body.breakers[0];
    },
    async action(action, reason) {
      ok(await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, { action, reason }), action);
    },
    async probeResult(token) {
      ok(
        await t.request('POST', `/v1/probes/${token}/result`, {
          token: key,
          body: { outcome: 'success', latencyMs: 50 },
        }),
        'probe result',
      );
    },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    async state() {
      const res = await t.request('GET', `/v1/breakers?group=${GROUP}`, { token: key });
      return res.body.breakers[0]?.state ?? 'closed';
    },
    async transitions() {
      const res = await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}&limit=100`);
      expect(res.body.chain.ok).toBe(true);
      return (res.body.transitions as any[]).reverse().map((r) => logged(r));
    },
  };
}

function verdict(state: ReportedState) {
  const evidence = emptyEvidence();
  evidence.attempts = 4;
  evidence.successes = state === 'open' ? 0 : 4;
  return { dependency: DEPENDENCY, state, evidence, demand: { standard: 2 } };
}

describe('one control plane, two homes', () => {
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.close();
  });

  it('logs the same transitions in the same order in memory and in the real controller over HTTP', async () => {
    const inMemory = await runTimeline(memoryHome());
    t = await bootTestApp({
      RECLOSER_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
      RECLOSER_HEARTBEAT_TTL_MS: String(TTL_MS),
    });
    const overHttp = await runTimeline(await httpHome(t));

    // the script went where it meant to: two quorum opens, a forced close, cooldown, probe, ramp, operators
    expect(inMemory.map((x) => `${x.actor}:${x.from}->${x.to}`)).toEqual([
      'quorum:closed->open',
      'operator:open->closed',
      'quorum:closed->open',
      'cooldown:open->probing',
      'probe:probing->ramping',
      'operator:ramping->ramping',
      'operator:ramping->ramping',
      'operator:ramping->open',
    ]);
    expect(overHttp).toEqual(inMemory);
  });
});
