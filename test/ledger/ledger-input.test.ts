// The ledger endpoints at the edge: a refused request names the field and changes nothing; a
// replayed batch is an idempotent answer; another group's key is 403; no key is 401.
import { MAX_LEDGER_EVENTS_PER_REQUEST } from '@recloser/core';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const GROUP = `li-${randomSuffix()}`;
const OTHER = `lo-${randomSuffix()}`;

const event = (n: number, over: Record<string, unknown> = {}) => ({
  eventId: `e${n}`,
  workId: `w${n}`,
  instanceId: 'i1',
  dependency: 'llm',
  kind: 'reclaim',
  at: new Date().toISOString(),
  ...over,
});

describe('POST /v1/ledger/events and GET /v1/ledger/refunds at the edge', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  const post = (body: unknown, token = key) => app.request('POST', '/v1/ledger/events', { token, body });
  const stored = async (): Promise<number> =>
    (
      await app.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM ledger_events WHERE group_name = $1`, [GROUP])
    )[0].n;

  beforeAll(async () => {
    app = await bootTestApp();
    key = (await createFleetKey(app, [GROUP])).key;
    otherKey = (await createFleetKey(app, [OTHER])).key;
  });
  afterAll(async () => {
    await app?.close();
  });

  it.each([
    [
      'an unknown kind',
      { events: [event(1, { kind: 'retry' })] },
      /events\.0\.kind must be one of attempt, reclaim/,
    ],
    [
      'a negative count',
      { events: [event(1, { count: -3 })] },
      /events\.0\.count must be an integer in \[1, 1000\]/,
    ],
    ['a fractional count', { events: [event(1, { count: 1.5 })] }, /events\.0\.count/],
    ['an attempt without its outcome', { events: [event(1, { kind: 'attempt' })] }, /events\.0\.outcome/],
    ['an unknown outcome', { events: [event(1, { kind: 'attempt', outcome: 'meh' })] }, /events\.0\.outcome/],
    ['a time that is not one', { events: [event(1, { at: 'yesterday' })] }, /events\.0\.at/],
    [
      'a time an hour ahead of the controller',
      { events: [event(1, { at: new Date(Date.now() + 3_600_000).toISOString() })] },
      /events\.0\.at is more than/,
    ],
    [
      'a time older than the history kept',
      { events: [event(1, { at: new Date(Date.now() - 3 * 86_400_000).toISOString() })] },
      /events\.0\.at is older than/,
    ],
    ['no events', { events: [] }, /events must hold at least one/],
    ['an unknown field', { events: [event(1, { extra: 1 })] }, /extra/],
  ])('refuses %s with 400 naming the field, storing nothing', async (_what, body, message) => {
    const before = await stored();
    const res = await post({ group: GROUP, ...(body as object) });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(await stored()).toBe(before);
  });

  it('refuses a request of 10,000 events with 413 or 400 stating the bound', async () => {
    const events = Array.from({ length: 10_000 }, (_, i) => event(i));
    const res = await post({ group: GROUP, events });
    expect([400, 413]).toContain(res.status);
    expect(res.body.message).toMatch(
      new RegExp(`at most ${MAX_LEDGER_EVENTS_PER_REQUEST}|larger than the 1 MiB`),
    );
    // under the body limit, the events bound itself answers
    const small = Array.from({ length: MAX_LEDGER_EVENTS_PER_REQUEST + 1 }, (_, i) => event(i));
    const over = await post({ group: GROUP, events: small });
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/events must hold at most 1000 entries/);
  });

  it('answers 403 for events of a group outside the key, and 401 without a key', async () => {
    expect((await post({ group: OTHER, events: [event(1)] })).status).toBe(403);
    expect((await post({ group: GROUP, events: [event(1)] }, otherKey)).status).toBe(403);
    expect(
      (await app.request('POST', '/v1/ledger/events', { body: { group: GROUP, events: [event(1)] } })).status,
    ).toBe(401);
    expect((await app.request('GET', `/v1/ledger/refunds?group=${OTHER}`, { token: key })).status).toBe(403);
    expect((await app.request('GET', `/v1/ledger/refunds?group=${GROUP}`)).status).toBe(401);
  });

  it('answers a replayed batch idempotently (duplicates counted, nothing stored twice)', async () => {
    const batch = { group: GROUP, events: [event(100), event(101), event(101)] };
    const first = await post(batch);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ accepted: 2, duplicates: 1 });
    const again = await post(batch);
    expect(again.body).toEqual({ accepted: 0, duplicates: 3 });
  });

  it('refuses a cursor it never returned and a limit out of range, naming them', async () => {
    const bad = await app.request('GET', `/v1/ledger/refunds?group=${GROUP}&after=abc`, { token: key });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/after is not a cursor/);
    const limit = await app.request('GET', `/v1/ledger/refunds?group=${GROUP}&limit=0`, { token: key });
    expect(limit.status).toBe(400);
    expect(limit.body.message).toMatch(/limit must be an integer/);
    const over = await app.request('GET', `/v1/ledger/refunds?group=${GROUP}&limit=1001`, { token: key });
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/limit must be an integer in \[1, 1000\]/);
    const inRange = await app.request('GET', `/v1/ledger/refunds?group=${GROUP}&limit=5`, { token: key });
    expect(inRange.status).toBe(200); // a query string's "5" taken as the number 5
    const none = await app.request('GET', `/v1/ledger/refunds`, { token: key });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/group/);
  });
});
