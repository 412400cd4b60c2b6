import type { TestApp, TestResponse } from './test-app.js';

/** A verdict as an SDK would report it: `open` carries failing evidence, anything else healthy evidence. */
export function verdict(dependency: string, state: string, extra: Record<string, unknown> = {}) {
  const failing = state === 'open';
  return {
    dependency,
    state,
    evidence: {
      attempts: 20,
      successes: failing ? 0 : 20,
      byClass: { overload: failing ? 20 : 0, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
      latencyP95Ms: failing ? 30000 : 80,
      ttftP95Ms: null,
      queueAgeMs: 0,
    },
    ...extra,
  };
}

export function heartbeat(
  app: TestApp,
  key: string,
  body: { instanceId: string; group: string; region?: string; breakers: unknown[] },
): Promise<TestResponse> {
  return app.request('POST', '/v1/heartbeats', { token: key, body: { region: 'eu-west', ...body } });
}

/** One heartbeat from each instance; `stateOf(i)` gives instance i's local state for `dependency`. */
export async function heartbeatRound(
  app: TestApp,
  key: string,
  group: string,
  dependency: string,
  instanceIds: readonly string[],
  stateOf: (i: number) => string,
): Promise<TestResponse[]> {
  const responses = await Promise.all(
    instanceIds.map((instanceId, i) =>
      heartbeat(app, key, { instanceId, group, breakers: [verdict(dependency, stateOf(i))] }),
    ),
  );
  const failed = responses.find((r) => r.status !== 200);
  if (failed) throw new Error(`heartbeat answered ${failed.status}: ${failed.text}`);
  return responses;
}

export const instanceIds = (n: number, prefix = 'i'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `probe` until `done` holds, at most `attempts` times `everyMs` apart; returns the last value.
 * Bounded, and the caller asserts on what it returns (never on how long it took).
 */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  { attempts = 100, everyMs = 100 } = {},
): Promise<T> {
  let value = await probe();
  for (let i = 1; i < attempts && !done(value); i++) {
    await sleep(everyMs);
    value = await probe();
  }
  return value;
}

/** Every row of the spine's tables, as text, to prove a refused request changed nothing. */
export async function snapshotTables(app: TestApp): Promise<Record<string, string[]>> {
  const tables = ['fleet_keys', 'fleet_groups', 'instances', 'breakers', 'verdicts', 'transitions'];
  const out: Record<string, string[]> = {};
  for (const table of tables) {
    const rows = await app.db.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t ORDER BY 1`);
    out[table] = rows.map((r) => r.row);
  }
  return out;
}
