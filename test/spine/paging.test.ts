import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, instanceIds, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

/** Follows `next` from the first page to the last; every page at most `limit` long. */
async function walk(
  get: (query: string) => Promise<{ status: number; body: Record<string, unknown> }>,
  field: string,
  limit: number,
): Promise<{ items: unknown[]; pages: number }> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await get(`limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
    expect(res.status).toBe(200);
    const page = res.body[field] as unknown[];
    expect(page.length).toBeLessThanOrEqual(limit);
    items.push(...page);
    cursor = res.body.next as string | null;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { items, pages };
}

describe('every list pages with a cursor (issue 9)', () => {
  let t: TestApp;
  let key: string;
  const deps = Array.from({ length: 7 }, (_, i) => `dep-${i}`);
  beforeAll(async () => {
    t = await bootTestApp();
    key = (await createFleetKey(t, ['g1', 'g2'])).key;
    for (const group of ['g1', 'g2'])
      for (const instanceId of instanceIds(5)) {
        const res = await heartbeat(t, key, {
          instanceId,
          group,
          breakers: deps.map((d) => verdict(d, 'closed')),
        });
        expect(res.status).toBe(200);
      }
    for (const id of ['pool-a', 'pool-b', 'pool-c'])
      expect((await t.admin('PUT', `/v1/admin/pools/${id}`, { dependencies: [`${id}-dep`] })).status).toBe(
        200,
      );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET /v1/breakers: unpaged answers keep their shape (next null); pages cover every breaker once, in order', async () => {
    const all = await t.request('GET', '/v1/breakers', { token: key });
    expect(all.status).toBe(200);
    expect(all.body.breakers).toHaveLength(14);
    expect(all.body.next).toBeNull();
    const { items, pages } = await walk(
      (q) => t.request('GET', `/v1/breakers?${q}`, { token: key }),
      'breakers',
      3,
    );
    expect(pages).toBe(5);
    expect(items).toEqual(all.body.breakers);
    const g2 = await walk(
      (q) => t.request('GET', `/v1/breakers?group=g2&${q}`, { token: key }),
      'breakers',
      4,
    );
    expect((g2.items as { group: string }[]).every((b) => b.group === 'g2')).toBe(true);
    expect(g2.items).toHaveLength(7);
  });

  it('admin overview: totals cover every breaker while the list is paged', async () => {
    const first = await t.admin('GET', '/v1/admin/overview?limit=5');
    expect(first.status).toBe(200);
    expect(first.body.breakers).toHaveLength(5);
    expect(first.body.totals.breakers).toBe(14);
    expect(first.body.totals.byState.closed).toBe(14);
    const { items } = await walk((q) => t.admin('GET', `/v1/admin/overview?${q}`), 'breakers', 5);
    expect(items).toHaveLength(14);
    expect(new Set((items as { breakerId: string }[]).map((b) => b.breakerId)).size).toBe(14);
    const pools = (first.body.pools as { id: string; breakers: number }[]).filter((p) => p.breakers > 0);
    expect(pools.reduce((n, p) => n + p.breakers, 0)).toBe(14);
  });

  it('admin breaker detail: its instances are paged; admin transitions and pools too', async () => {
    const id = (await t.request('GET', '/v1/breakers?group=g1&limit=1', { token: key })).body.breakers[0]
      .breakerId as string;
    const detail = await t.admin('GET', `/v1/admin/breakers/${id}`);
    expect(detail.body.instances).toHaveLength(5);
    expect(detail.body.next).toBeNull();
    const { items } = await walk((q) => t.admin('GET', `/v1/admin/breakers/${id}?${q}`), 'instances', 2);
    expect(items).toEqual(detail.body.instances);

    for (let i = 0; i < 3; i++) {
      const action = i % 2 === 0 ? 'force_open' : 'force_close';
      expect(
        (await t.admin('POST', `/v1/admin/breakers/${id}/actions`, { action, reason: 'paging' })).status,
      ).toBe(200);
    }
    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${id}`);
    const one = await walk(
      (q) => t.admin('GET', `/v1/admin/transitions?breakerId=${id}&${q}`),
      'transitions',
      2,
    );
    expect(one.items).toEqual(log.body.transitions);
    const every = await t.admin('GET', '/v1/admin/transitions');
    const paged = await walk((q) => t.admin('GET', `/v1/admin/transitions?${q}`), 'transitions', 1);
    expect(paged.items).toEqual(every.body.transitions);

    const pools = await walk((q) => t.admin('GET', `/v1/admin/pools?${q}`), 'pools', 2);
    expect((pools.items as { id: string }[]).map((p) => p.id)).toEqual(['pool-a', 'pool-b', 'pool-c']);
  });

  it('a bad limit or cursor answers 400 naming the field', async () => {
    const paths = [
      (q: string) => t.request('GET', `/v1/breakers?${q}`, { token: key }),
      (q: string) => t.admin('GET', `/v1/admin/overview?${q}`),
      (q: string) => t.admin('GET', `/v1/admin/transitions?${q}`),
      (q: string) => t.admin('GET', `/v1/admin/pools?${q}`),
    ];
    const forged = Buffer.from(JSON.stringify(['a\u0000', 'b', 'c', 'd'])).toString('base64url');
    for (const get of paths) {
      for (const q of ['limit=1001', 'limit=0', 'limit=x']) {
        const res = await get(q);
        expect(res.status, q).toBe(400);
        expect(res.body.message).toMatch(/limit/);
      }
      for (const q of [
        'cursor=%21%21',
        'cursor=bm90IGpzb24',
        `cursor=${forged}`,
        'cursor=WzEsMiwzXQ',
        'cursor=',
      ]) {
        const res = await get(q);
        expect(res.status, q).toBe(400);
        expect(res.body.message).toMatch(/cursor/);
      }
    }
    const big = Buffer.from(JSON.stringify([9e15, '1'])).toString('base64url');
    expect((await t.admin('GET', `/v1/admin/transitions?cursor=${big}`)).status).toBe(400);
  });
});
