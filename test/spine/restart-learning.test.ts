import { afterAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const TIMERS = { RECLOSER_HEARTBEAT_TTL_MS: '3000', RECLOSER_HEARTBEAT_INTERVAL_MS: '200' };

describe('a restarted controller learns the fleet again before declaring a quorum', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
  });

  it('no quorum open for one TTL after the restart, even for a group known for long; then it opens', async () => {
    const before = await bootTestApp(TIMERS);
    apps.push(before);
    const group = `g-restart-${randomSuffix()}`;
    const { key } = await createFleetKey(before, [group]);
    const ids = instanceIds(10);
    await heartbeatRound(before, key, group, 'dep', ids, () => 'closed');
    await sleep(3200); // the group's own learning period (one TTL) is over
    await before.stop();

    const after = await bootTestApp(TIMERS, before.db); // the restart: same database, same Redis prefix
    apps.push(after);
    const first = await heartbeatRound(after, key, group, 'dep', ids, (i) => (i < 6 ? 'open' : 'closed'));
    expect(first.map((r) => r.body.breakers[0].global.state)).toEqual(Array(10).fill('closed'));
    const shown = (await after.request('GET', `/v1/breakers?group=${group}`, { token: key })).body
      .breakers[0];
    expect(shown).toMatchObject({ state: 'closed', quorum: { open: 6, live: 10, threshold: 5 } });

    const opened = await pollUntil(
      async () =>
        (await heartbeatRound(after, key, group, 'dep', ids, (i) => (i < 6 ? 'open' : 'closed')))[0]!,
      (r) => r.body.breakers[0].global.state === 'open',
      { attempts: 60, everyMs: 100 },
    );
    expect(opened.body.breakers[0].global).toMatchObject({
      state: 'open',
      epoch: 1,
      quorum: { open: 6, live: 10, threshold: 5 },
    });
  });
});
