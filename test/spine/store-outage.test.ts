import { BREAKER_VIEW_MS } from '@recloser/control';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, pollUntil, verdict } from '../support/fleet.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';
import { TEST_POSTGRES_URL, testDatabase } from '../support/test-database.js';

// the app reaches the shared Postgres through a proxy the test can cut (faked outage: the proxy, not Postgres, goes away)
describe('Postgres going away mid-run (faked by cutting a TCP proxy)', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let key: string;
  const group = `g-outage-${randomSuffix()}`;

  beforeAll(async () => {
    proxy = await startTcpProxy(Number(new URL(TEST_POSTGRES_URL).port || 5432));
    const direct = testDatabase('outage');
    const viaProxy = { ...direct, url: direct.url.replace(/:\d+\//, `:${proxy.port}/`) };
    t = await bootTestApp({}, viaProxy);
    key = (await createFleetKey(t, [group])).key;
  });
  afterAll(async () => {
    proxy?.restore();
    await t?.close();
    await proxy?.close();
  });

  it('answers 503 with Retry-After (never a 500), readiness says not ready, and recovers when Postgres is back', async () => {
    const beat = () => heartbeat(t, key, { instanceId: 'i0', group, breakers: [verdict('dep', 'closed')] });
    expect((await beat()).status).toBe(200);

    proxy.cut();
    // a locally open verdict is written through before the answer: with Postgres gone, 503
    const open = () => heartbeat(t, key, { instanceId: 'i0', group, breakers: [verdict('dep', 'open')] });
    const during = await open();
    expect(during.status).toBe(503);
    expect(during.headers['retry-after']).toBe('1');
    expect(during.body).toMatchObject({
      statusCode: 503,
      retryAfterMs: 1000,
      message: expect.stringMatching(/unavailable/),
    });
    const ready = await t.request('GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.postgres.status).toBe('down');
    expect(ready.body.redis.status).toBe('up');
    // a routine heartbeat is answered from the replica's view only while it is fresh (BREAKER_VIEW_MS)
    await new Promise((r) => setTimeout(r, BREAKER_VIEW_MS + 50));
    expect((await beat()).status).toBe(503);

    proxy.restore();
    const after = await pollUntil(beat, (r) => r.status === 200, { attempts: 50, everyMs: 100 });
    expect(after.status).toBe(200);
  });
});
