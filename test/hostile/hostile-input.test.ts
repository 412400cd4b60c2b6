// Issue 9 ("Hostile input"): each reproduction found by fuzzing answers 4xx naming the field, logs
// no stack trace, and stores nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_EXAMPLE_POOL } from '../support/pool-example.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, snapshotTables, verdict } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp, type TestResponse } from '../support/test-app.js';

const NUL = '\u0000';
const deepArrays = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('hostile input: 400 naming the field, nothing stored, never a 500', () => {
  let t: TestApp;
  let key: string;
  let breakerId: string;
  const group = `g-hostile-${randomSuffix()}`;
  const hb = (over: Record<string, unknown> = {}) => ({
    instanceId: 'worker-17',
    group,
    region: 'eu-west',
    breakers: [verdict('llm-provider', 'closed')],
    ...over,
  });
  const withEvidence = (evidence: Record<string, unknown>) =>
    hb({
      breakers: [
        {
          ...verdict('llm-provider', 'open'),
          evidence: { ...verdict('llm-provider', 'open').evidence, ...evidence },
        },
      ],
    });
  const pools = async () =>
    (await t.db.query<{ id: string }>('SELECT id FROM pools ORDER BY id')).map((r) => r.id);
  const everything = async () => ({ ...(await snapshotTables(t)), pools: await pools() });

  beforeAll(async () => {
    t = await bootTestApp();
    key = (await createFleetKey(t, [group])).key;
    const res = await heartbeat(t, key, hb());
    expect(res.status).toBe(200);
    breakerId = res.body.breakers[0].breakerId as string;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Sends, then asserts the status, the error shape, a message matching `message` and no stored change. */
  async function refused(
    send: () => Promise<TestResponse>,
    status: number,
    message: RegExp,
  ): Promise<TestResponse> {
    const before = await everything();
    const res = await send();
    expect(res.status, res.text).toBe(status);
    expect(res.body).toMatchObject({
      statusCode: status,
      error: expect.any(String),
      message: expect.stringMatching(message),
    });
    expect(await everything()).toEqual(before);
    return res;
  }
  const post =
    (path: string, body: unknown, token = key) =>
    () =>
      t.request('POST', path, { token, body });
  const admin = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => () =>
    t.admin(method, path, body);

  describe('(a) NUL in free text and identifiers', () => {
    it('heartbeat instanceId and region', async () => {
      await refused(
        post('/v1/heartbeats', hb({ instanceId: `w${NUL}` })),
        400,
        /^instanceId must not hold control characters \(U\+0000/,
      );
      await refused(post('/v1/heartbeats', hb({ region: `eu${NUL}` })), 400, /^region must not hold control/);
    });
    it('lease dependency', async () => {
      await refused(
        post('/v1/probes/lease', { instanceId: 'worker-17', group, dependency: `llm${NUL}` }),
        400,
        /^dependency must not hold control characters/,
      );
    });
    it('fleet-key name', async () => {
      await refused(
        admin('POST', '/v1/admin/fleet-keys', { name: `ops${NUL}`, groups: [group] }),
        400,
        /^name must not hold control/,
      );
    });
    it('action reason', async () => {
      await refused(
        admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
          action: 'force_open',
          reason: `outage${NUL}`,
        }),
        400,
        /^reason must not hold control/,
      );
    });
    it('pool dependencies', async () => {
      await refused(
        admin('PUT', '/v1/admin/pools/p-nul', { ...API_EXAMPLE_POOL, dependencies: [`llm${NUL}`] }),
        400,
        /^dependencies\.0 must not hold control/,
      );
    });
    it('path parameters', async () => {
      await refused(admin('GET', '/v1/admin/pools/ab%00c'), 400, /^path parameter id must not hold control/);
      await refused(
        admin('PUT', '/v1/admin/groups/ab%00c/quorum', { fraction: 0.5, minOpen: 1 }),
        400,
        /^path parameter group must not hold control/,
      );
      await refused(
        () => t.request('GET', `/v1/breakers?group=${group}%00`, { token: key }),
        400,
        /^query group must not hold control/,
      );
    });
  });

  it('(b) 3,000 nested arrays on every JSON endpoint: 400 naming the depth limit', async () => {
    const raw = deepArrays(3000);
    const endpoints: [string, string, string][] = [
      ['POST', '/v1/heartbeats', key],
      ['POST', '/v1/probes/lease', key],
      ['POST', '/v1/probes/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/result', key],
      ['POST', '/v1/admin/fleet-keys', t.env.RECLOSER_ADMIN_TOKEN!],
      ['POST', `/v1/admin/breakers/${breakerId}/actions`, t.env.RECLOSER_ADMIN_TOKEN!],
      ['PUT', '/v1/admin/pools/p-deep', t.env.RECLOSER_ADMIN_TOKEN!],
      ['PUT', `/v1/admin/groups/${group}/quorum`, t.env.RECLOSER_ADMIN_TOKEN!],
    ];
    for (const [method, path, token] of endpoints) {
      await refused(
        () => t.request(method as 'POST', path, { token, raw }),
        400,
        /^body nests deeper than 16 levels \(at 0\.0\.0/,
      );
    }
    // nested objects too, and a huge flat array
    await refused(
      post('/v1/heartbeats', JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40))),
      400,
      /nests deeper/,
    );
    await refused(
      post('/v1/heartbeats', hb({ breakers: new Array(5000).fill(0) })),
      400,
      /^breakers must hold at most 1000 entries/,
    );
  });

  it('(c) an array where a verdict belongs: 400 naming breakers, no breaker row', async () => {
    await refused(
      () =>
        t.request('POST', '/v1/heartbeats', {
          token: key,
          raw: `{"instanceId":"x","group":"${group}","region":"r","breakers":[[]]}`,
        }),
      400,
      /breakers must hold objects/,
    );
    await refused(
      post('/v1/heartbeats', hb({ breakers: [{ ...verdict('dep-x', 'open'), evidence: [] }] })),
      400,
      /breakers\.0\.evidence/,
    );
  });

  it('(d) a lone surrogate in a pool body: regionWeights keys and dependencies', async () => {
    await refused(
      admin('PUT', '/v1/admin/pools/p-sur', {
        ...API_EXAMPLE_POOL,
        fallback: { ...API_EXAMPLE_POOL.fallback, regionWeights: { 'eu\ud800': 1 } },
      }),
      400,
      /^fallback\.regionWeights: a field name must be well-formed Unicode/,
    );
    await refused(
      admin('PUT', '/v1/admin/pools/p-sur', { ...API_EXAMPLE_POOL, dependencies: ['llm\udfff'] }),
      400,
      /^dependencies\.0 must be well-formed Unicode \(lone surrogate U\+DFFF/,
    );
  });

  it('an action reason with a lone surrogate is refused (it would break the hash chain)', async () => {
    await refused(
      admin('POST', `/v1/admin/breakers/${breakerId}/actions`, { action: 'pause_ramp', reason: 'x\ud800' }),
      400,
      /^reason must be well-formed Unicode/,
    );
  });

  it('an action reason with an astral emoji and accented text is stored as hashed: the chain verifies', async () => {
    const reason = 'fournisseur en panne 🔥 — déjà signalé à l’équipe';
    const res = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_open',
      reason,
    });
    expect(res.status, res.text).toBe(200);
    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`);
    expect(log.status).toBe(200);
    expect(log.body.transitions.map((x: { reason: string }) => x.reason)).toContain(`force_open: ${reason}`);
    expect(log.body.chain.ok).toBe(true);
    const back = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_close',
      reason: 'résolu ✅',
    });
    expect(back.status).toBe(200);
    expect((await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`)).body.chain.ok).toBe(true);
  });

  it('instance ids with lone surrogates cannot merge into one', async () => {
    await refused(
      post('/v1/heartbeats', hb({ instanceId: 'w\ud800' })),
      400,
      /^instanceId must be well-formed/,
    );
    await refused(
      post('/v1/heartbeats', hb({ instanceId: 'w\udfff' })),
      400,
      /^instanceId must be well-formed/,
    );
  });

  it('quorum settings only for a group name an identifier can be', async () => {
    for (const bad of ['%20', '__proto__', 'orders%E2%80%AEx', 'a%20b', 'x'.repeat(129)]) {
      await refused(
        admin('PUT', `/v1/admin/groups/${bad}/quorum`, { fraction: 0.5, minOpen: 1 }),
        400,
        /^group (must be 1-128 characters long|may hold only letters)/,
      );
    }
    const ok = await t.admin('PUT', `/v1/admin/groups/${'g'.repeat(128)}/quorum`, {
      fraction: 0.5,
      minOpen: 1,
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('fleet-key names: not blank, no bidi controls; groups are identifiers', async () => {
    await refused(
      admin('POST', '/v1/admin/fleet-keys', { name: '   ', groups: [group] }),
      400,
      /^name must not be empty or only whitespace/,
    );
    await refused(
      admin('POST', '/v1/admin/fleet-keys', { name: 'ops\u202e', groups: [group] }),
      400,
      /^name must not hold bidi/,
    );
    await refused(
      admin('POST', '/v1/admin/fleet-keys', { name: 'ops', groups: ['__proto__'] }),
      400,
      /^groups may hold only/,
    );
    await refused(
      admin('POST', `/v1/admin/breakers/${breakerId}/actions`, { action: 'force_open', reason: ' \t' }),
      400,
      /^reason must not hold control/,
    );
    await refused(
      admin('POST', `/v1/admin/breakers/${breakerId}/actions`, { action: 'force_open', reason: '   ' }),
      400,
      /^reason must not be empty/,
    );
  });

  it('evidence counts: successes and each class at most attempts; durations at most a day', async () => {
    await refused(
      post('/v1/heartbeats', withEvidence({ attempts: 5, successes: 6 })),
      400,
      /breakers\.0\.evidence\.successes must not exceed attempts \(5\)/,
    );
    await refused(
      post('/v1/heartbeats', withEvidence({ attempts: 5, successes: 0, byClass: { overload: 6 } })),
      400,
      /breakers\.0\.evidence\.byClass\.overload must not exceed attempts \(5\)/,
    );
    await refused(
      post('/v1/heartbeats', withEvidence({ latencyP95Ms: 1e300 })),
      400,
      /breakers\.0\.evidence\.latencyP95Ms must not be greater than 86400000/,
    );
  });

  it('since must be a real date', async () => {
    await refused(
      post(
        '/v1/heartbeats',
        hb({ breakers: [verdict('llm-provider', 'open', { since: '2026-02-30T10:00:00Z' })] }),
      ),
      400,
      /breakers\.0\.since must be an ISO-8601 timestamp of a real date/,
    );
    await refused(
      post('/v1/heartbeats', hb({ breakers: [verdict('llm-provider', 'open', { since: '2026-02-30' })] })),
      400,
      /since must be an ISO-8601/,
    );
  });

  it('pool numbers are bounded: cooldownMs 1e300 is refused', async () => {
    await refused(
      admin('PUT', '/v1/admin/pools/p-cool', {
        ...API_EXAMPLE_POOL,
        probe: { ...API_EXAMPLE_POOL.probe, cooldownMs: 1e300 },
      }),
      400,
      /probe\.cooldownMs must be an integer <= 86400000/,
    );
  });

  it('pool ids: every length the rule allows is reachable by path; longer is a 400 naming id', async () => {
    const id = `p${'x'.repeat(127)}`;
    const put = await t.admin('PUT', `/v1/admin/pools/${id}`, { dependencies: [`dep-${randomSuffix()}`] });
    expect(put.status, put.text).toBe(200);
    expect((await t.admin('GET', `/v1/admin/pools/${id}`)).status).toBe(200);
    await refused(
      admin('PUT', `/v1/admin/pools/${id}x`, { dependencies: [] }),
      400,
      /^id: must be 1-128 characters/,
    );
    expect((await t.admin('GET', `/v1/admin/pools/${id}x`)).status).toBe(404);
  });

  it('the controller is still ready and logged no 500', async () => {
    expect((await t.request('GET', '/health/ready')).status).toBe(200);
  });
});
