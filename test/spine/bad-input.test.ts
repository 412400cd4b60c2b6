import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, snapshotTables, verdict } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

describe('bad input to POST /v1/heartbeats: the right 4xx naming the field, and nothing stored changes', () => {
  let t: TestApp;
  let key: string;
  let foreignKey: string;
  const group = `g-bad-${randomSuffix()}`;
  const otherGroup = `g-other-${randomSuffix()}`;
  const good = (over: Record<string, unknown> = {}) => ({
    instanceId: 'i0',
    group,
    region: 'eu-west',
    breakers: [verdict('dep', 'open')],
    ...over,
  });
  const withEvidence = (evidence: Record<string, unknown>) =>
    good({
      breakers: [
        { ...verdict('dep', 'open'), evidence: { ...verdict('dep', 'open').evidence, ...evidence } },
      ],
    });

  beforeAll(async () => {
    t = await bootTestApp();
    key = (await createFleetKey(t, [group])).key;
    foreignKey = (await createFleetKey(t, [otherGroup])).key;
    // some state to protect
    await heartbeatRound(t, key, group, 'dep', instanceIds(3), (i) => (i === 0 ? 'open' : 'closed'));
  });
  afterAll(async () => {
    await t?.close();
  });

  const cases: {
    name: string;
    status: number;
    message: RegExp;
    send: () => ReturnType<TestApp['request']>;
  }[] = [
    {
      name: 'malformed JSON',
      status: 400,
      message: /JSON/,
      send: () => t.request('POST', '/v1/heartbeats', { token: key, raw: '{"instanceId": "x", ' }),
    },
    {
      name: 'body is a JSON array',
      status: 400,
      message: /instanceId/,
      send: () => t.request('POST', '/v1/heartbeats', { token: key, raw: '[1,2]' }),
    },
    {
      name: 'instanceId of the wrong type',
      status: 400,
      message: /instanceId must be a string/,
      send: () => t.request('POST', '/v1/heartbeats', { token: key, body: good({ instanceId: 42 }) }),
    },
    {
      name: 'breakers not an array',
      status: 400,
      message: /breakers must be an array/,
      send: () => t.request('POST', '/v1/heartbeats', { token: key, body: good({ breakers: 'x' }) }),
    },
    {
      name: 'unknown state enum',
      status: 400,
      message: /breakers\.0\.state must be one of closed, open, half_open, paused, fallback/,
      send: () =>
        t.request('POST', '/v1/heartbeats', {
          token: key,
          body: good({ breakers: [verdict('dep', 'bogus')] }),
        }),
    },
    {
      name: 'negative attempts',
      status: 400,
      message: /breakers\.0\.evidence\.attempts must not be less than 0/,
      send: () => t.request('POST', '/v1/heartbeats', { token: key, body: withEvidence({ attempts: -5 }) }),
    },
    {
      name: 'negative latency',
      status: 400,
      message: /breakers\.0\.evidence\.latencyP95Ms must not be less than 0/,
      send: () =>
        t.request('POST', '/v1/heartbeats', { token: key, body: withEvidence({ latencyP95Ms: -1 }) }),
    },
    {
      name: 'count as a string',
      status: 400,
      message: /breakers\.0\.evidence\.successes must be a number/,
      send: () => t.request('POST', '/v1/heartbeats', { token: key, body: withEvidence({ successes: '3' }) }),
    },
    {
      name: 'negative demand',
      status: 400,
      message: /breakers\.0\.demand\.standard must be a non-negative number/,
      send: () =>
        t.request('POST', '/v1/heartbeats', {
          token: key,
          body: good({ breakers: [verdict('dep', 'open', { demand: { standard: -1 } })] }),
        }),
    },
    {
      name: 'unknown field',
      status: 400,
      message: /property pad should not exist/,
      send: () => t.request('POST', '/v1/heartbeats', { token: key, body: good({ pad: 1 }) }),
    },
    {
      name: 'duplicate dependency',
      status: 400,
      message: /breakers\.1\.dependency "dep" appears more than once/,
      send: () =>
        t.request('POST', '/v1/heartbeats', {
          token: key,
          body: good({ breakers: [verdict('dep', 'open'), verdict('dep', 'closed')] }),
        }),
    },
    {
      name: 'huge body',
      status: 413,
      message: /1 MiB/,
      send: () =>
        t.request('POST', '/v1/heartbeats', { token: key, body: good({ pad: 'x'.repeat(5_000_000) }) }),
    },
    {
      name: 'missing key',
      status: 401,
      message: /missing fleet key/,
      send: () => t.request('POST', '/v1/heartbeats', { body: good() }),
    },
    {
      name: 'unknown key',
      status: 401,
      message: /not valid/,
      send: () => t.request('POST', '/v1/heartbeats', { token: 'rck_nope', body: good() }),
    },
    {
      name: 'key of another group',
      status: 403,
      message: /outside this fleet key's groups/,
      send: () => t.request('POST', '/v1/heartbeats', { token: foreignKey, body: good() }),
    },
    {
      name: 'breakers of another group',
      status: 403,
      message: /outside/,
      send: () => t.request('GET', `/v1/breakers?group=${group}`, { token: foreignKey }),
    },
    {
      name: 'admin call without the token',
      status: 401,
      message: /admin token/,
      send: () => t.request('GET', '/v1/admin/overview'),
    },
  ];

  cases.push({
    name: 'empty group in the query',
    status: 400,
    message: /group must be longer than or equal to 1 characters/,
    send: () => t.request('GET', '/v1/breakers?group=', { token: key }),
  });

  for (const c of cases) {
    it(`${c.name} → ${c.status}`, async () => {
      const before = await snapshotTables(t);
      const res = await c.send();
      expect(res.status).toBe(c.status);
      expect(res.body).toMatchObject({
        statusCode: c.status,
        error: expect.any(String),
        message: expect.stringMatching(c.message),
      });
      expect(await snapshotTables(t)).toEqual(before);
    });
  }

  it('a valid heartbeat does change what is stored (the snapshot would see it)', async () => {
    const before = await snapshotTables(t);
    const res = await t.request('POST', '/v1/heartbeats', { token: key, body: good() });
    expect(res.status).toBe(200);
    expect(await snapshotTables(t)).not.toEqual(before);
  });
});
