// A group's breakers are bounded: a fleet inventing dependency names (buggy or hostile) is refused
// with a 409 naming the limit once its group has RECLOSER_MAX_BREAKERS_PER_GROUP breakers, and the
// refused heartbeat creates none. Known dependencies keep working. Instances likewise, past
// RECLOSER_MAX_INSTANCES_PER_GROUP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
const group = 'bounded';
const beat = (...deps: string[]) =>
  heartbeat(t, key, { instanceId: 'w1', group, breakers: deps.map((d) => verdict(d, 'closed')) });
const breakers = async () =>
  Number(
    (await t.db.query<{ n: string }>('SELECT count(*) AS n FROM breakers WHERE group_name = $1', [group]))[0]!
      .n,
  );

beforeAll(async () => {
  t = await bootTestApp({ RECLOSER_MAX_BREAKERS_PER_GROUP: '2', RECLOSER_MAX_INSTANCES_PER_GROUP: '3' });
  key = (await createFleetKey(t, [group])).key;
});

afterAll(async () => {
  await t?.close();
});

describe('breakers per group', () => {
  it('refuses the heartbeat that would pass the bound, creating nothing; known breakers keep working', async () => {
    const tooMany = await beat('a', 'b', 'c');
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.message).toMatch(/^breakers: group "bounded" has 0 breakers and may have at most 2/);
    expect(await breakers()).toBe(0);

    expect((await beat('a', 'b')).status).toBe(200);
    const third = await beat('a', 'c');
    expect(third.status).toBe(409);
    expect(await breakers()).toBe(2);
    expect((await beat('b', 'a')).status).toBe(200);
  });
});

describe('instances per group', () => {
  it('refuses a new instance id past the bound with a 409 naming it, writing no row; stored instances go on', async () => {
    const fleet = 'bounded-fleet';
    const { key: fleetKey } = await createFleetKey(t, [fleet]);
    const as = (instanceId: string) =>
      heartbeat(t, fleetKey, { instanceId, group: fleet, breakers: [verdict('dep', 'closed')] });
    for (const id of ['i1', 'i2', 'i3']) expect((await as(id)).status).toBe(200);
    const fourth = await as('i4');
    expect(fourth.status).toBe(409);
    expect(fourth.body.message).toMatch(
      /^instanceId: group "bounded-fleet" has 3 instances and may have at most 3/,
    );
    const rows = await t.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM instances WHERE group_name = $1',
      [fleet],
    );
    expect(Number(rows[0]!.n)).toBe(3);
    expect((await as('i2')).status).toBe(200);
  });
});
