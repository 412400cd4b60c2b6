// A group's breakers are bounded: a fleet inventing dependency names (buggy or hostile) is refused
// with a 409 naming the limit once its group has RECLOSER_MAX_BREAKERS_PER_GROUP breakers, and the
// refused heartbeat creates none. Known dependencies keep working.
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
  t = await bootTestApp({ RECLOSER_MAX_BREAKERS_PER_GROUP: '2' });
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
