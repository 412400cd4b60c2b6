// The control layer's port contract: the same cases, run against the in-memory adapters (what the
// simulator runs) and against the Postgres/Redis adapters (what the controller runs). Both homes run
// one ControlPlane over these ports, so they behave alike only as far as the ports do: this suite is
// where a difference would show. Time is real in both (short TTLs), so the cases read the same.
import {
  isControlError,
  type ControlEvent,
  type ControlPorts,
  type ControlSettings,
  type PoolResolver,
} from '@recloser/control';
import { emptyEvidence, type BreakerVerdict, type PoolInput, type ReportedState } from '@recloser/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A home's ports, plus what a test needs to drive and observe them. */
export interface PortsHarness {
  ports: ControlPorts;
  settings: ControlSettings;
  /** PUT /v1/admin/pools/{id} */
  putPool(id: string, body: PoolInput): Promise<void>;
  /** every event a consumer of the seam has seen so far, in delivery order */
  seen(): ControlEvent[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let counter = 0;
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${(counter += 1)}`;

function verdict(dependency: string, state: ReportedState, demand?: Record<string, number>): BreakerVerdict {
  const evidence = emptyEvidence();
  evidence.attempts = 10;
  evidence.successes = state === 'open' ? 0 : 10;
  return demand ? { dependency, state, evidence, demand } : { dependency, state, evidence };
}

/** Waits until `check` holds (event delivery is asynchronous in the controller), at most 5 s. */
async function eventually<T>(read: () => T, check: (v: T) => boolean): Promise<T> {
  const until = Date.now() + 5000;
  for (;;) {
    const v = read();
    if (check(v) || Date.now() > until) return v;
    await sleep(25);
  }
}

export function portContract(home: string, make: () => Promise<PortsHarness>): void {
  describe(`control ports contract: ${home}`, () => {
    let h: PortsHarness;
    let ttl: number;
    beforeAll(async () => {
      h = await make();
      ttl = h.settings.heartbeatTtlMs;
    });
    afterAll(async () => {
      await h?.close();
    });

    const breaker = async (group: string, dependency: string, pools: PoolResolver = h.ports.pools) => {
      const pool = await pools.resolve(dependency);
      const ids = await h.ports.breakers.idsFor(
        group,
        [{ dependency, poolId: pool.id }],
        h.ports.clock.now(),
      );
      return ids.get(dependency)!;
    };
    const beat = (group: string, instanceId: string, breakerId: string, v: BreakerVerdict) =>
      h.ports.presence.record(
        { group, instanceId, region: 'eu-west' },
        [{ breakerId, verdict: v }],
        h.ports.clock.now(),
      );
    const counts = async (id: string) =>
      (await h.ports.breakers.withCounts([id], h.ports.clock.now()))[0]!.counts;

    it('creates a breaker once per (group, dependency), CLOSED, and finds it', async () => {
      const group = unique('g');
      const a = await breaker(group, 'dep');
      const b = await breaker(group, 'dep');
      expect(b).toBe(a);
      const found = await h.ports.breakers.find(group, 'dep');
      expect(found).toMatchObject({ id: a, group, dependency: 'dep', region: null });
      expect(found!.globalState.state).toBe('closed');
      expect(await h.ports.breakers.find(group, 'other')).toBeNull();
      expect((await h.ports.breakers.getMany([a])).map((r) => r.id)).toEqual([a]);
      expect((await h.ports.breakers.active()).some((r) => r.id === a)).toBe(false);
    });

    it("asks admit() before creating breakers, with the group's count, and creates nothing when it refuses", async () => {
      const group = unique('g');
      const seen: [number, number][] = [];
      const admit = (existing: number, adding: number) => {
        seen.push([existing, adding]);
        if (existing + adding > 2) throw new Error('over the bound');
      };
      const pool = (await h.ports.pools.resolve('d1')).id;
      const want = (...deps: string[]) => deps.map((dependency) => ({ dependency, poolId: pool }));
      const now = h.ports.clock.now();
      expect((await h.ports.breakers.idsFor(group, want('d1', 'd2'), now, admit)).size).toBe(2);
      await expect(h.ports.breakers.idsFor(group, want('d1', 'd3'), now, admit)).rejects.toThrow(
        'over the bound',
      );
      expect(await h.ports.breakers.find(group, 'd3')).toBeNull();
      // known breakers need no admission
      expect((await h.ports.breakers.idsFor(group, want('d2', 'd1'), now, admit)).size).toBe(2);
      expect(seen).toEqual([
        [0, 2],
        [2, 1],
      ]);
    });

    it('counts live and locally open verdicts, and forgets them one TTL after the last heartbeat', async () => {
      const group = unique('g');
      const id = await breaker(group, 'dep');
      await beat(group, 'a', id, verdict('dep', 'open'));
      await beat(group, 'b', id, verdict('dep', 'half_open'));
      await beat(group, 'c', id, verdict('dep', 'closed'));
      expect(await counts(id)).toEqual({ live: 3, open: 2 });
      expect(await h.ports.presence.closedWithLiveTrouble(h.ports.clock.now())).toContain(id);
      await sleep(ttl + 50);
      expect(await counts(id)).toEqual({ live: 0, open: 0 });
      expect(await h.ports.presence.closedWithLiveTrouble(h.ports.clock.now())).not.toContain(id);
      expect(await h.ports.presence.rows(id, h.ports.clock.now() - ttl)).toEqual([]);
      expect((await h.ports.presence.rows(id, 0)).map((r) => r.instanceId)).toEqual(['a', 'b', 'c']);
    });

    it('keeps openSince while an instance stays open and live, restarts it after silence, clears it on close', async () => {
      const group = unique('g');
      const id = await breaker(group, 'dep');
      const openSince = async () =>
        (await h.ports.presence.rows(id, 0)).find((r) => r.instanceId === 'x')!.openSince;
      await beat(group, 'x', id, verdict('dep', 'open'));
      const first = await openSince();
      expect(first).not.toBeNull();
      await sleep(30);
      await beat(group, 'x', id, verdict('dep', 'open'));
      expect(await openSince()).toBe(first);
      await sleep(ttl + 50);
      await beat(group, 'x', id, verdict('dep', 'open'));
      expect(await openSince()).toBeGreaterThan(first!);
      await beat(group, 'x', id, verdict('dep', 'closed'));
      expect(await openSince()).toBeNull();
    });

    it("reports live instances' positive demand only", async () => {
      const group = unique('g');
      const id = await breaker(group, 'dep');
      await beat(group, 'a', id, verdict('dep', 'closed', { standard: 2, long: 0 }));
      await beat(group, 'b', id, verdict('dep', 'closed'));
      const demand = await h.ports.presence.liveDemand(id, h.ports.clock.now());
      expect(demand.sort((x, y) => x.instanceId.localeCompare(y.instanceId))).toEqual([
        { instanceId: 'a', demand: { standard: 2 } },
        { instanceId: 'b', demand: {} },
      ]);
    });

    it('commits a decision under the lock with its transition events; null or no change writes nothing', async () => {
      const group = unique('g');
      const id = await breaker(group, 'dep');
      const before = h.seen().length;
      const none = await h.ports.breakers.transition(
        id,
        async () => null,
        () => {
          throw new Error('no events for a null decision');
        },
      );
      expect(none.transitions).toEqual([]);
      const committed = await h.ports.breakers.transition(
        id,
        async (state, scope) => {
          expect(scope.breaker.id).toBe(id);
          const next = { ...state, state: 'open' as const, epoch: state.epoch + 1, since: scope.now };
          const t = {
            at: scope.now,
            from: state.state,
            to: next.state,
            epoch: next.epoch,
            fromStep: null,
            step: null,
            actor: 'operator' as const,
            reason: 'contract',
            figures: {},
          };
          return { next, transitions: [t], figures: { trigger: 'contract' } };
        },
        (c) =>
          c.transitions.map((t) => ({
            type: 'breaker.transition',
            breakerId: c.breaker.id,
            at: t.at,
            data: { reason: t.reason, to: t.to },
          })),
      );
      expect(committed.breaker.globalState.state).toBe('open');
      expect(committed.transitions.map((t) => [t.reason, t.figures])).toEqual([
        ['contract', { trigger: 'contract' }],
      ]);
      expect((await h.ports.breakers.active()).map((b) => b.id)).toContain(id);
      const seen = await eventually(h.seen, (s) => s.some((e) => e.breakerId === id));
      const mine = seen.slice(before).filter((e) => e.breakerId === id);
      expect(mine.map((e) => [e.type, e.data.reason, e.data.to])).toEqual([
        ['breaker.transition', 'contract', 'open'],
      ]);
      expect(typeof mine[0]!.id).toBe('string');
    });

    it('serialises concurrent transitions of one breaker (each decides on the state the previous committed)', async () => {
      const group = unique('g');
      const id = await breaker(group, 'dep');
      const bump = () =>
        h.ports.breakers.transition(
          id,
          async (state) => {
            await sleep(5);
            return { next: { ...state, probesPassed: state.probesPassed + 1 }, transitions: [] };
          },
          () => [],
        );
      await Promise.all([bump(), bump(), bump(), bump()]);
      expect((await h.ports.breakers.get(id))!.globalState.probesPassed).toBe(4);
    });

    it('refuses a transition of an unknown breaker as not_found', async () => {
      const unknown = (await breaker(unique('g'), 'dep')).replace(/.$/, (c) => (c === '0' ? '1' : '0'));
      const err = await h.ports.breakers
        .transition(
          unknown,
          async () => null,
          () => [],
        )
        .catch((e: unknown) => e);
      expect(isControlError(err) && err.kind).toBe('not_found');
      expect(await h.ports.breakers.get(unknown)).toBeNull();
    });

    it('records a group once (its learning period starts at first sight)', async () => {
      const group = unique('g');
      expect(await h.ports.groups.get(group)).toBeNull();
      const first = await h.ports.groups.seen(group, 1_000_000);
      const again = await h.ports.groups.seen(group, 2_000_000);
      expect(again.firstSeenAt).toBe(first.firstSeenAt);
      expect(first.quorum).toEqual({ fraction: 0.5, minOpen: 2 });
    });

    it('resolves a dependency to its configured pool, else to its own default pool', async () => {
      const dep = unique('dep');
      expect((await h.ports.pools.resolve(dep)).id).toBe(`default:${dep}`);
      const id = unique('pool');
      await h.putPool(id, { dependencies: [dep], probe: { concurrency: 3 } });
      const pool = await eventually(
        () => h.ports.pools.resolve(dep),
        () => true,
      );
      expect((await pool).id).toBe(id);
      expect((await pool).probe.concurrency).toBe(3);
    });

    it('grants probe tokens within the budget, re-delivers a held one, releases and expires them', async () => {
      const pool = unique('pool');
      const breakerId = await breaker(unique('g'), 'dep');
      const budget = { concurrency: 1, ratePerSec: 10, leaseTtlMs: 300 };
      const req = (instanceId: string, epoch = 1) => ({
        pool,
        budget,
        breakerId,
        group: 'g',
        instanceId,
        epoch,
      });
      const a = await h.ports.leases.grant(req('a'));
      expect(a.kind).toBe('granted');
      if (a.kind !== 'granted') return;
      expect(a.validForMs).toBeGreaterThan(0);
      expect(a.validForMs).toBeLessThanOrEqual(300);
      const b = await h.ports.leases.grant(req('b'));
      expect(b).toMatchObject({ kind: 'refused', reason: 'concurrency' });
      expect(await h.ports.leases.held(req('a'))).toMatchObject({
        kind: 'held',
        token: a.token,
        fencing: a.fencing,
      });
      expect(await h.ports.leases.held(req('b'))).toMatchObject({ kind: 'none' });
      // a token of an older epoch is not handed back, but still counts against the budget
      expect((await h.ports.leases.grant(req('a', 2))).kind).toBe('refused');
      expect(await h.ports.leases.check(a.token)).toMatchObject({ breakerId, instanceId: 'a', epoch: 1 });
      expect(await h.ports.leases.release(a.token)).toMatchObject({ instanceId: 'a' });
      expect(await h.ports.leases.release(a.token)).toBeNull();
      const c = await h.ports.leases.grant(req('c'));
      expect(c.kind).toBe('granted');
      expect(c.kind === 'granted' && c.fencing).toBeGreaterThan(a.fencing);
      expect(await h.ports.leases.pools()).toContain(pool);
      // c never reports: its lease expires, the sweep drops it and passes c over in this epoch
      await sleep(350);
      // (the controller's own lease expiry job may have swept it first: then this sweep finds none)
      expect(await h.ports.leases.sweep(pool)).toBeLessThanOrEqual(1);
      expect(c.kind === 'granted' && (await h.ports.leases.check(c.token))).toBeNull();
      expect(await h.ports.leases.excluded(breakerId, 1)).toEqual(['c']);
      expect(await h.ports.leases.excluded(breakerId, 2)).toEqual([]);
      const d = await h.ports.leases.grant(req('d'));
      expect(d.kind).toBe('granted');
      expect(await h.ports.leases.releaseBreaker(pool, breakerId)).toBe(1);
      expect(d.kind === 'granted' && (await h.ports.leases.check(d.token))).toBeNull();
    });

    it('keeps a group within its fair share of the pool, over all its breakers, and another group gets its own', async () => {
      const pool = unique('pool');
      const [ga, gb] = [unique('ga'), unique('gb')];
      const [x, y, z] = [await breaker(ga, 'x'), await breaker(ga, 'y'), await breaker(gb, 'z')];
      const budget = { concurrency: 2, ratePerSec: 10, leaseTtlMs: 5000 };
      const req = (breakerId: string, group: string, instanceId: string) => ({
        pool,
        budget,
        breakerId,
        group,
        instanceId,
        epoch: 1,
        fairShareCap: 1,
      });
      expect((await h.ports.leases.grant(req(x, ga, 'a'))).kind).toBe('granted');
      // neither a fresh instance id nor a second dependency of the same group gets past the share
      for (const again of [req(x, ga, 'fresh-id'), req(y, ga, 'other-dep')])
        expect(await h.ports.leases.grant(again)).toMatchObject({ kind: 'refused', reason: 'fair_share' });
      expect((await h.ports.leases.grant(req(z, gb, 'b'))).kind).toBe('granted');
      expect(await h.ports.leases.releaseBreaker(pool, x)).toBe(1);
      expect(await h.ports.leases.releaseBreaker(pool, z)).toBe(1);
    });

    it('tells whether an instance is live on a breaker, and counts the groups recovering through a pool', async () => {
      const group = unique('g');
      const dep = unique('dep');
      const id = await breaker(group, dep);
      await beat(group, 'a', id, verdict(dep, 'closed'));
      expect(await h.ports.presence.isLive(id, 'a', h.ports.clock.now())).toBe(true);
      expect(await h.ports.presence.isLive(id, 'never', h.ports.clock.now())).toBe(false);
      expect(await h.ports.presence.isLive(id, 'a', h.ports.clock.now() + ttl)).toBe(false);
      await beat(group, 'b', id, verdict(dep, 'open'));
      expect(await h.ports.presence.groupInstances(group, 'a')).toEqual({ count: 2, known: true });
      expect(await h.ports.presence.groupInstances(group, 'z')).toEqual({ count: 2, known: false });
      expect(await h.ports.presence.groupInstances(unique('empty'), 'a')).toEqual({ count: 0, known: false });
      const poolId = (await h.ports.pools.resolve(dep)).id;
      expect(await h.ports.breakers.contendingGroups(poolId)).toBe(0);
      const to = (state: 'open' | 'probing' | 'ramping') =>
        h.ports.breakers.transition(
          id,
          async (s, scope) => ({ next: { ...s, state, since: scope.now }, transitions: [] }),
          () => [],
        );
      await to('open');
      expect(await h.ports.breakers.contendingGroups(poolId)).toBe(1);
      await to('probing');
      expect(await h.ports.breakers.contendingGroups(poolId)).toBe(1);
      await to('ramping');
      expect(await h.ports.breakers.contendingGroups(poolId)).toBe(0);
    });

    it('counts a step window only when the previous heartbeat came after the step began', async () => {
      const key = { breakerId: await breaker(unique('g'), 'dep'), epoch: 1, step: 0, stepSince: 1000 };
      const e = { ...emptyEvidence(), attempts: 10, successes: 9 };
      expect(await h.ports.evidence.add(key, { instanceId: 'a', at: 900 }, e)).toBe(false); // none before
      expect(await h.ports.evidence.add(key, { instanceId: 'a', at: 1500 }, e)).toBe(false); // previous 900 ≤ 1000
      expect(await h.ports.evidence.add(key, { instanceId: 'a', at: 2500 }, e)).toBe(true);
      expect(await h.ports.evidence.add(key, { instanceId: 'a', at: 3500 }, { ...emptyEvidence() })).toBe(
        false,
      );
      const sample = await h.ports.evidence.sample(key);
      expect([sample.attempts, sample.successes]).toEqual([10, 9]);
      expect((await h.ports.evidence.sample({ ...key, step: 1 })).attempts).toBe(0);
    });

    it('divides an allowance period once, however many heartbeats ask at once', async () => {
      const key = { breakerId: await breaker(unique('g'), 'dep'), epoch: 1, step: 0, period: 7 };
      let divisions = 0;
      const divide = async () => {
        divisions += 1;
        await sleep(10);
        return new Map([['a', { standard: { ratePerSec: 2, burst: 1, concurrency: 1 } }]]);
      };
      const got = await Promise.all(
        ['a', 'a', 'b'].map((i) => h.ports.divisions.allowanceOf(key, i, 5000, divide)),
      );
      expect(divisions).toBe(1);
      expect(got).toEqual([
        { standard: { ratePerSec: 2, burst: 1, concurrency: 1 } },
        { standard: { ratePerSec: 2, burst: 1, concurrency: 1 } },
        {},
      ]);
    });

    it('divides the next window ahead of its period and keeps the current period’s division meanwhile', async () => {
      const id = await breaker(unique('g'), 'dep');
      const key = (period: number) => ({ breakerId: id, epoch: 1, step: 0, period });
      const share = (ratePerSec: number) => ({ standard: { ratePerSec, burst: 1, concurrency: 1 } });
      let divisions = 0;
      const divide = (rate: number) => async () => {
        divisions += 1;
        return new Map([['a', share(rate)]]);
      };
      const of = (period: number, rate: number) =>
        h.ports.divisions.allowanceOf(key(period), 'a', 5000, divide(rate));
      expect(await of(7, 1)).toEqual(share(1));
      expect(await of(8, 2)).toEqual(share(2)); // announced within period 7
      expect(await of(7, 3)).toEqual(share(1)); // period 7 is still asked: its division stands
      expect(await of(8, 4)).toEqual(share(2)); // period 8 reads the division it announced
      expect(divisions).toBe(2);
    });

    it('announces a watched condition when it starts and when it ends', async () => {
      const id = await breaker(unique('g'), 'dep');
      expect(await h.ports.watches.swap(id, 'isolated', ['x', 'y'])).toEqual({
        joined: ['x', 'y'],
        left: [],
      });
      expect(await h.ports.watches.watched()).toContain(id);
      expect(await h.ports.watches.swap(id, 'isolated', ['y', 'z'])).toEqual({ joined: ['z'], left: ['x'] });
      expect(await h.ports.watches.swap(id, 'isolated', [])).toEqual({ joined: [], left: ['y', 'z'] });
      expect(await h.ports.watches.watched()).not.toContain(id);
    });

    it('publishes events outside a transition, numbered in order', async () => {
      const id = await breaker(unique('g'), 'dep');
      await h.ports.events.publish([
        { type: 'probe.granted', breakerId: id, at: 1, data: { n: 1 } },
        { type: 'probe.denied', breakerId: id, at: 2, data: { n: 2 } },
      ]);
      const mine = (await eventually(h.seen, (s) => s.filter((e) => e.breakerId === id).length >= 2)).filter(
        (e) => e.breakerId === id,
      );
      expect(mine.map((e) => [e.type, e.data.n])).toEqual([
        ['probe.granted', 1],
        ['probe.denied', 2],
      ]);
      expect(mine[1]!.seq).toBeGreaterThan(mine[0]!.seq);
      expect(new Set(mine.map((e) => e.id)).size).toBe(2);
    });
  });
}

/** Short timers, so the cases that wait for a TTL or a lease to pass stay quick. */
export const CONTRACT_SETTINGS: ControlSettings = {
  heartbeatIntervalMs: 100,
  heartbeatTtlMs: 400,
  isolationAfterMs: 800,
};
