// Live mode: the real controller (started here, or a running one with --url), N real SDK
// instances in this process talking HTTP to it, and a fake provider on loopback. An outage is
// switched on and off on a schedule; each transition of the controller's log is printed once, with
// the reason it recorded. Bounded: it stops after `seconds`.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRecloser, isBreakerOpenError, type Breaker, type Recloser } from '@recloser/client';
import { startController, type ControllerProcess } from './ControllerProcess.js';
import { FakeProvider } from './FakeProvider.js';
import { TEST_POSTGRES_URL } from './testDatabase.js';
import { transitionLines, type LoggedTransition } from './transitionLines.js';

export interface LiveOptions {
  instances: number;
  seconds: number;
  /** a running controller; its admin token comes from RECLOSER_ADMIN_TOKEN */
  url?: string;
  databaseUrl?: string;
  redisUrl?: string;
  /** the outage: starts this many seconds in and lasts this long (defaults fit `seconds`) */
  outageAtS?: number;
  outageForS?: number;
  log?: (line: string) => void;
}

export const DEFAULT_LIVE_DATABASE_URL = `${TEST_POSTGRES_URL}/recloser_live`;

interface Counts {
  attempts: number;
  ok: number;
  failed: number;
  refused: number;
}

interface BreakerRow {
  breakerId: string;
  dependency: string;
}

async function call<T>(url: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : {}) as T;
}

export async function runLive(opts: LiveOptions): Promise<void> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const seconds = opts.seconds;
  const outageAt = opts.outageAtS ?? Math.max(5, Math.round(seconds * 0.15));
  const outageFor = opts.outageForS ?? Math.max(5, Math.round(seconds * 0.3));
  const suffix = randomBytes(3).toString('hex');
  const group = `live-${suffix}`;
  const dependency = `provider-${suffix}`;
  const started = Date.now();
  const stamp = (): string => `t+${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`;

  let controller: ControllerProcess | null = null;
  const provider = new FakeProvider({
    concurrency: Math.max(4, Math.ceil(opts.instances / 2)),
    latencyMs: 40,
  });
  const reclosers: Recloser[] = [];
  const timers: ReturnType<typeof setInterval>[] = [];
  const cleanup = async (): Promise<void> => {
    for (const t of timers) clearInterval(t);
    await Promise.allSettled(reclosers.map((r) => r.close()));
    await provider.stop();
    await controller?.stop();
  };
  const onSignal = (): void => {
    log(`${stamp()}  interrupted: stopping`);
    void cleanup().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);

  try {
    let url: string;
    let adminToken: string;
    if (opts.url) {
      url = opts.url.replace(/\/+$/, '');
      adminToken = process.env.RECLOSER_ADMIN_TOKEN ?? '';
      if (!adminToken)
        throw new Error(
          '--url needs RECLOSER_ADMIN_TOKEN (the running controller’s admin token) in the environment',
        );
      log(`${stamp()}  using the controller at ${url}`);
    } else {
      const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL ?? DEFAULT_LIVE_DATABASE_URL;
      const redisUrl = opts.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
      log(`${stamp()}  starting the controller (node apps/controller/dist/main.js) on ${databaseUrl} …`);
      adminToken = randomBytes(24).toString('hex');
      const logFile = join(tmpdir(), `recloser-live-controller-${suffix}.log`);
      controller = await startController({
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          REDIS_URL: redisUrl,
          RECLOSER_ADMIN_TOKEN: adminToken,
          // its own key space, so a live run never touches other users of the same Redis
          RECLOSER_REDIS_PREFIX: `recloser-live-${suffix}`,
        },
        logFile,
      });
      url = controller.url;
      log(`${stamp()}  controller ready at ${url} (log: ${logFile})`);
    }
    const providerUrl = await provider.start();
    log(
      `${stamp()}  fake provider on ${providerUrl} (${Math.max(4, Math.ceil(opts.instances / 2))} calls at once)`,
    );

    // a pool sized to the fake provider, with a short cooldown and dwell so a run fits in minutes
    try {
      await call(url, adminToken, 'PUT', `/v1/admin/pools/pool-${suffix}`, {
        dependencies: [dependency],
        probe: { concurrency: 1, ratePerSec: 1, leaseTtlMs: 5000, cooldownMs: 8000, probesToPass: 2 },
        capacity: {
          standard: {
            ratePerSec: opts.instances * 2,
            concurrency: Math.max(4, Math.ceil(opts.instances / 2)),
          },
        },
        // the ramp starts at 10 % and grows ×growth (4 by default) a dwell while the gates hold
        ramp: { steps: [0.1, 1], dwellMs: 5000, minSample: 5, classOrder: ['standard'] },
      });
      log(
        `${stamp()}  pool pool-${suffix} for ${dependency}: probe budget 1 token, 1/s; ramp from 10 %, ×4 each 5-s dwell the gates hold (less as latency rises), up to 100 %`,
      );
    } catch (err) {
      log(`${stamp()}  (pool not configured, the defaults apply: ${(err as Error).message})`);
    }
    const fleetKey = (
      await call<{ id: string; key: string }>(url, adminToken, 'POST', '/v1/admin/fleet-keys', {
        name: `live ${group}`,
        groups: [group],
      })
    ).key;
    log(`${stamp()}  fleet key created for group ${group}`);
    log(
      `  while it runs:  API docs ${url}/docs · admin overview: curl -H 'authorization: Bearer ${adminToken}' ${url}/v1/admin/overview`,
    );

    const counts: Counts = { attempts: 0, ok: 0, failed: 0, refused: 0 };
    const breakers: Breaker[] = [];
    const regions = ['eu-west', 'us-east', 'ap-south'];
    for (let i = 0; i < opts.instances; i++) {
      const r = createRecloser({
        url,
        key: fleetKey,
        instanceId: `worker-${String(i + 1).padStart(3, '0')}`,
        group,
        region: regions[i % 3]!,
      });
      reclosers.push(r);
      // one call a second is below the SDK default's 3 calls per tick: judge a 5 s window instead
      const breaker = r.breaker(dependency, {
        local: { mode: 'window', windowTicks: 5, failureRateThreshold: 1, minWindowAttempts: 3 },
      });
      breakers.push(breaker);
      // each worker wants one call a second, at its own phase
      const fire = (): void => {
        breaker
          .execute((signal) => fetch(providerUrl, { method: 'POST', ...(signal ? { signal } : {}) }), {
            signal: AbortSignal.timeout(2_000),
          })
          .then((res) => {
            counts.attempts += 1;
            if (res.ok) counts.ok += 1;
            else counts.failed += 1;
          })
          .catch((err: unknown) => {
            if (isBreakerOpenError(err)) counts.refused += 1;
            else {
              counts.attempts += 1;
              counts.failed += 1;
            }
          });
      };
      const phase = setTimeout(() => timers.push(setInterval(fire, 1000)), Math.random() * 1000);
      timers.push(phase as unknown as ReturnType<typeof setInterval>);
    }
    log(`${stamp()}  ${opts.instances} SDK instances calling the provider once a second each`);
    // the schedule counts from now, when the fleet is running (the controller's boot is not in it)
    const fleetStart = Date.now();
    log(`${stamp()}  outage planned in ${outageAt} s for ${outageFor} s; stopping in ${seconds} s`);

    let breakerId: string | null = null;
    let lastSeq = 0;
    const stampAt = (at: string): string =>
      `t+${((Date.parse(at) - started) / 1000).toFixed(1).padStart(5)}s`;
    let lastSummary = Date.now();
    const watch = async (): Promise<void> => {
      try {
        if (breakerId === null) {
          const { breakers: rows } = await call<{ breakers: BreakerRow[] }>(
            url,
            fleetKey,
            'GET',
            `/v1/breakers?group=${encodeURIComponent(group)}`,
          );
          breakerId = rows.find((x) => x.dependency === dependency)?.breakerId ?? null;
        }
        if (breakerId !== null) {
          // the newest 100 rows: far more than a run makes in the half second between two polls
          const { transitions } = await call<{ transitions: LoggedTransition[] }>(
            url,
            adminToken,
            'GET',
            `/v1/admin/transitions?breakerId=${breakerId}&limit=100`,
          );
          const printed = transitionLines(transitions, lastSeq, stampAt);
          for (const line of printed.lines) log(line);
          lastSeq = printed.lastSeq;
        }
      } catch (err) {
        log(`${stamp()}  (could not read the group breaker's transitions: ${(err as Error).message})`);
      }
      if (Date.now() - lastSummary >= 5_000) {
        const states = new Map<string, number>();
        for (const br of breakers) states.set(br.state, (states.get(br.state) ?? 0) + 1);
        const dt = (Date.now() - lastSummary) / 1000;
        log(
          `${stamp()}    calls/s ${(counts.attempts / dt).toFixed(1)} (ok ${(counts.ok / dt).toFixed(1)}, failed ${(counts.failed / dt).toFixed(1)}), held back ${(counts.refused / dt).toFixed(1)}/s · instances: ${[...states].map(([s, n]) => `${n} ${s}`).join(', ')}`,
        );
        counts.attempts = counts.ok = counts.failed = counts.refused = 0;
        lastSummary = Date.now();
      }
    };

    const deadline = fleetStart + seconds * 1000;
    let outageOn = false;
    let outageDone = false;
    while (Date.now() < deadline) {
      const t = (Date.now() - fleetStart) / 1000;
      if (!outageOn && !outageDone && t >= outageAt) {
        provider.setOutage(true);
        outageOn = true;
        log(`${stamp()}  ✖ provider outage begins: every call answers 503`);
      }
      if (outageOn && t >= outageAt + outageFor) {
        provider.setOutage(false);
        outageOn = false;
        outageDone = true;
        log(`${stamp()}  ✔ provider back at full capacity`);
      }
      await watch();
      await new Promise((r) => setTimeout(r, 500));
    }
    log(`${stamp()}  done: provider served ${provider.served}, rejected ${provider.rejected}`);
    if (controller) {
      log(`  the controller stops now; its state stays in the database. To look around, start it yourself:`);
      log(`    RECLOSER_ADMIN_TOKEN=<a token of 16+ characters> npm run start:controller`);
      log(
        `    then open http://127.0.0.1:3000/docs and GET /v1/admin/overview, /v1/admin/transitions with that token`,
      );
    } else {
      log(`  transitions: curl -H 'authorization: Bearer <admin token>' '${url}/v1/admin/transitions'`);
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    await cleanup();
  }
}
