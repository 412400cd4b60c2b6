// How much does wrapping a call cost? Our allow()/execute() beside opossum's fire() and
// cockatiel's execute(), bare and guarded by the Recloser adapters, all measured in one run on
// this machine against a bare `await fn()`.
import { createRequire } from 'node:module';
import { PerformanceObserver } from 'node:perf_hooks';
import { createRecloser, type Transport } from '@recloser/client';
import { guardCockatiel } from '@recloser/client/cockatiel';
import { guardOpossum, type OpossumCircuit } from '@recloser/client/opossum';
import type { HeartbeatResponse } from '@recloser/core';
import { ConsecutiveBreaker, circuitBreaker, handleAll } from 'cockatiel';
import { formatTable } from './table.js';

// opossum ships CommonJS without typings: describe the calls we use (the guard's own type for the rest).
interface OpossumBreaker extends OpossumCircuit {
  fire(): Promise<unknown>;
  shutdown(): void;
}
type OpossumConstructor = new (
  action: () => Promise<unknown>,
  options?: Record<string, unknown>,
) => OpossumBreaker;
const require = createRequire(import.meta.url);
const Opossum = require('opossum') as OpossumConstructor;

/** The bench never ticks: the transport exists only to satisfy the SDK's constructor. */
const idleTransport: Transport = {
  heartbeat: async (): Promise<HeartbeatResponse> => ({
    serverTime: new Date().toISOString(),
    heartbeatIntervalMs: 1_000,
    leaseTtlMs: 5_000,
    breakers: [],
  }),
  probeResult: async () => undefined,
  lease: async () => ({ token: 'unused', fencing: 0, validForMs: 0 }),
};

interface Candidate {
  name: string;
  /** runs `n` operations; returns something derived from them so nothing is optimised away */
  loop(n: number): Promise<number> | number;
}

interface Measured {
  name: string;
  nsPerOp: number;
  /** garbage collections during the timed rounds: 0 over millions of calls means no allocation */
  gcs: number;
}

// Counts GC events, the observable sign of allocation on a path that claims to allocate nothing.
let gcEvents = 0;
const gcObserver = new PerformanceObserver((list) => {
  gcEvents += list.getEntries().length;
});

/** GC entries arrive asynchronously: let them land before reading the counter. */
const settleGcEntries = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

const ROUNDS = 7;

/** One timed round of `ops` operations, in ns/op. */
async function timeRound(candidate: Candidate, ops: number): Promise<number> {
  const start = process.hrtime.bigint();
  const done = await candidate.loop(ops);
  const ns = Number(process.hrtime.bigint() - start) / ops;
  if (done < 0) console.log('unreachable'); // keeps the loop's result observable
  return ns;
}

/**
 * Median ns/op per candidate. Rounds are interleaved (A B C A B C …) so that load from anything
 * else on the machine hits every candidate alike; a warm-up first lets the JIT settle.
 */
async function measureAll(candidates: Candidate[], opsPerRound: number): Promise<Measured[]> {
  for (const c of candidates) await timeRound(c, Math.min(opsPerRound, 200_000));
  const samples = candidates.map(() => [] as number[]);
  const gcs = candidates.map(() => 0);
  for (let r = 0; r < ROUNDS; r++) {
    for (let c = 0; c < candidates.length; c++) {
      await settleGcEntries();
      const before = gcEvents;
      samples[c]!.push(await timeRound(candidates[c]!, opsPerRound));
      await settleGcEntries();
      gcs[c]! += gcEvents - before;
    }
  }
  return candidates.map((c, i) => {
    const sorted = samples[i]!.sort((a, b) => a - b);
    return { name: c.name, nsPerOp: sorted[Math.floor(ROUNDS / 2)]!, gcs: gcs[i]! };
  });
}

function buildCandidates(): { sync: Candidate[]; async: Candidate[]; cleanup: () => Promise<void> } {
  const fn = async (): Promise<number> => 1;

  const recloser = createRecloser({
    instanceId: 'bench',
    group: 'bench',
    region: 'local',
    transport: idleTransport,
    autoStart: false,
  });
  const closed = recloser.breaker('closed-dependency');
  const ramping = recloser.breaker('ramping-dependency');
  // a ramp plan with an allowance far above what the loop asks for: measures the admission path
  ramping.applyPlan(
    {
      dependency: 'ramping-dependency',
      breakerId: 'b',
      global: { state: 'ramping', epoch: 1, step: 5, steps: 6, quorum: { open: 0, live: 1, threshold: 2 } },
      allowance: {
        validForMs: 3_600_000,
        classes: { standard: { ratePerSec: 1e12, burst: 1e12, concurrency: 1e12 } },
      },
      probe: null,
      fallback: null,
    },
    recloser.clock.now(),
    3_600_000,
  );

  const cockatiel = circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) });
  const opossum = new Opossum(fn); // defaults, as most users run it (10 s timeout per call)
  // the same two breakers guarded by the adapters (the group CLOSED: their own logic decides)
  const guardedCockatiel = circuitBreaker(handleAll, {
    halfOpenAfter: 10_000,
    breaker: new ConsecutiveBreaker(5),
  });
  guardCockatiel(recloser, 'guarded-cockatiel', guardedCockatiel);
  const guardedOpossum = new Opossum(fn);
  guardOpossum(recloser, 'guarded-opossum', guardedOpossum);

  const sync: Candidate[] = [
    {
      name: 'recloser allow() (closed)',
      loop: (n) => {
        let admitted = 0;
        for (let i = 0; i < n; i++) if (closed.allow()) admitted++;
        return admitted;
      },
    },
    {
      // concurrency and burst are far above the loop's count, so every call takes the admit path
      name: 'recloser allow() (ramping, admitted)',
      loop: (n) => {
        let admitted = 0;
        for (let i = 0; i < n; i++) if (ramping.allow()) admitted++;
        return admitted;
      },
    },
  ];

  const asyncLoop =
    (call: () => Promise<unknown>) =>
    async (n: number): Promise<number> => {
      let done = 0;
      for (let i = 0; i < n; i++) {
        await call();
        done++;
      }
      return done;
    };

  const asyncCandidates: Candidate[] = [
    { name: 'bare await fn()', loop: asyncLoop(fn) },
    { name: 'recloser execute() (closed)', loop: asyncLoop(() => closed.execute(fn)) },
    { name: 'cockatiel@3 circuitBreaker.execute()', loop: asyncLoop(() => cockatiel.execute(fn)) },
    { name: 'opossum@9 fire()', loop: asyncLoop(() => opossum.fire()) },
    { name: 'cockatiel@3 execute(), guarded', loop: asyncLoop(() => guardedCockatiel.execute(fn)) },
    { name: 'opossum@9 fire(), guarded', loop: asyncLoop(() => guardedOpossum.fire()) },
  ];

  return {
    sync,
    async: asyncCandidates,
    cleanup: async () => {
      opossum.shutdown();
      guardedOpossum.shutdown();
      await recloser.close();
    },
  };
}

export async function run(): Promise<void> {
  const syncOps = Number(process.env['BENCH_SYNC_OPS'] ?? 5_000_000);
  const asyncOps = Number(process.env['BENCH_ASYNC_OPS'] ?? 500_000);
  const { sync, async: asyncCandidates, cleanup } = buildCandidates();
  const results: Measured[] = [];
  gcObserver.observe({ entryTypes: ['gc'] });
  try {
    results.push(...(await measureAll(sync, syncOps)));
    results.push(...(await measureAll(asyncCandidates, asyncOps)));
  } finally {
    gcObserver.disconnect();
    await cleanup();
  }

  const ns = (name: string): number => results.find((r) => r.name === name)!.nsPerOp;
  const bare = ns('bare await fn()');
  const ours = ns('recloser execute() (closed)');
  const rows: string[][] = [['candidate', 'ns/op', 'over bare await (ns)', 'x recloser execute()', 'GCs']];
  for (const r of results) {
    const isSync = sync.some((c) => c.name === r.name);
    rows.push([
      r.name,
      r.nsPerOp.toFixed(1),
      isSync ? '(sync, no await)' : (r.nsPerOp - bare).toFixed(1),
      (r.nsPerOp / ours).toFixed(2),
      String(r.gcs),
    ]);
  }
  console.log(
    `\n## SDK overhead — Node ${process.version}, ${process.platform}/${process.arch}; median of ${ROUNDS} interleaved rounds ` +
      `(${syncOps.toLocaleString('en')} sync ops, ${asyncOps.toLocaleString('en')} async ops per round)\n`,
  );
  console.log(formatTable(rows));
  const overhead = (name: string): number => ns(name) - bare;
  console.log(
    `\nexecute() overhead over a bare await: recloser ${overhead('recloser execute() (closed)').toFixed(1)} ns, ` +
      `cockatiel ${overhead('cockatiel@3 circuitBreaker.execute()').toFixed(1)} ns, ` +
      `opossum ${overhead('opossum@9 fire()').toFixed(1)} ns`,
  );
  console.log(
    `ratios (total ns/op): opossum fire() / recloser execute() = ${(ns('opossum@9 fire()') / ours).toFixed(2)}, ` +
      `cockatiel execute() / recloser execute() = ${(ns('cockatiel@3 circuitBreaker.execute()') / ours).toFixed(2)}, ` +
      `recloser execute() / recloser allow() = ${(ours / ns('recloser allow() (closed)')).toFixed(1)}`,
  );
  console.log(
    `GCs = garbage collections during the ${ROUNDS} timed rounds (0 = the path allocated nothing). ` +
      'The ramping path reads the clock for its token bucket, and V8 boxes every real clock reading ' +
      '(performance.now() and Date.now() alike) as a 16-byte young-generation number.',
  );
}
