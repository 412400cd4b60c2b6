// The Postgres presence store restates two core rules in SQL, so one statement does a heartbeat's
// writes: liveness (core isLive: reported within the TTL) in its counts, and openSince (core
// nextOpenSince: kept while the instance stays open and live) in its upsert. This property drives
// random heartbeat sequences through the SQL and through the in-memory store (which calls core) and
// compares every row's openSince and the live/open counts after each step.
import { MemoryPresence } from '@recloser/control';
import { emptyEvidence, initialGlobalState, REPORTED_STATES, type ReportedState } from '@recloser/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { BreakerEntity } from '../../apps/controller/src/breakers/breaker.entity.js';
import { VerdictEntity } from '../../apps/controller/src/breakers/verdict.entity.js';
import { VerdictsRepository } from '../../apps/controller/src/breakers/verdicts.repository.js';
import type { ControllerConfig } from '../../apps/controller/src/config/controller-config.js';
import { createMigratedDatabase, type MigratedDatabase } from '../recovery/support/services.js';

const TTL = 1000;
const INSTANCES = ['a', 'b', 'c'];

let db: MigratedDatabase;
let withEntities: DataSource;
let sql: VerdictsRepository;

beforeAll(async () => {
  db = await createMigratedDatabase('presence_eq');
  withEntities = new DataSource({ type: 'postgres', url: db.url, entities: [BreakerEntity, VerdictEntity] });
  await withEntities.initialize();
  sql = new VerdictsRepository(withEntities, { heartbeatTtlMs: TTL } as ControllerConfig);
});

afterAll(async () => {
  await withEntities?.destroy();
  await db?.drop();
});

async function newBreaker(n: number): Promise<string> {
  const rows: { id: string }[] = await db.dataSource.query(
    `INSERT INTO breakers (group_name, dependency, pool_id, state, global_state)
     VALUES ('g', $1, 'p', 'closed', $2) RETURNING id`,
    [`dep-${n}`, JSON.stringify(initialGlobalState(0))],
  );
  return rows[0]!.id;
}

const step = fc.record({
  instance: fc.constantFrom(...INSTANCES),
  state: fc.constantFrom<ReportedState>(...REPORTED_STATES),
  // gaps around the TTL edge: within it, exactly on it, just past it
  gapMs: fc.oneof(
    fc.integer({ min: 1, max: 400 }),
    fc.constantFrom(TTL - 1, TTL, TTL + 1),
    fc.integer({ min: 0, max: 3 * TTL }),
  ),
});

describe('presence rules in SQL equal core (isLive, nextOpenSince)', () => {
  it('property: openSince and live/open counts agree after every heartbeat', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        n += 1;
        const id = await newBreaker(n);
        const memory = new MemoryPresence(TTL, () => true);
        let now = 1_700_000_000_000;
        for (const s of steps) {
          now += s.gapMs;
          const verdict = { dependency: 'd', state: s.state, evidence: emptyEvidence() };
          const hb = { group: 'g', instanceId: s.instance, region: 'r' };
          await sql.record(hb, [{ breakerId: id, verdict }], now);
          await memory.record(hb, [{ breakerId: id, verdict }], now);
          const inSql = (await sql.rows(id, null)).map((r) => [r.instanceId, r.openSince, r.lastSeenAt]);
          const inMemory = (await memory.rows(id, 0)).map((r) => [r.instanceId, r.openSince, r.lastSeenAt]);
          expect(inSql).toEqual(inMemory);
          for (const probe of [now, now + TTL - 1, now + TTL]) {
            const [row] = await sql.breakersWithCounts([id], probe);
            expect({ live: row!.live, open: row!.open }).toEqual(memory.counts(id, probe));
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a close buffered between two open reports ends the stored open run (open 0, closed 100, open 200 → since 200)', async () => {
    const id = await newBreaker(999);
    const hb = { group: 'g', instanceId: 'a', region: 'r' };
    const at = 1_700_000_000_000;
    const report = (state: ReportedState, t: number, routine: boolean) =>
      sql.record(
        hb,
        [{ breakerId: id, verdict: { dependency: 'd', state, evidence: emptyEvidence() } }],
        t,
        routine,
      );
    await report('open', at, false);
    const closed = report('closed', at + 100, true);
    await report('open', at + 200, false);
    await closed;
    expect((await sql.rows(id, null)).map((r) => r.openSince)).toEqual([at + 200]);
  });

  it('property: heartbeats coalesced in the write-behind buffer leave the rows single writes would', async () => {
    let n = 1000;
    let coalesced = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            s: step,
            flush: fc.oneof(
              { weight: 1, arbitrary: fc.constant(true) },
              { weight: 3, arbitrary: fc.constant(false) },
            ),
          }),
          { minLength: 1, maxLength: 16 },
        ),
        async (steps) => {
          n += 1;
          const id = await newBreaker(n);
          const memory = new MemoryPresence(TTL, () => true);
          let now = 1_700_000_000_000;
          let pending: Promise<void>[] = [];
          for (const { s, flush } of steps) {
            now += s.gapMs;
            const verdict = { dependency: 'd', state: s.state, evidence: emptyEvidence() };
            const hb = { group: 'g', instanceId: s.instance, region: 'r' };
            // routine: buffered until a later urgent write (or the end) flushes the batch
            pending.push(sql.record(hb, [{ breakerId: id, verdict }], now, !flush));
            await memory.record(hb, [{ breakerId: id, verdict }], now);
            if (flush) {
              coalesced += pending.length - 1;
              await Promise.all(pending);
              pending = [];
              const inSql = (await sql.rows(id, null)).map((r) => [r.instanceId, r.openSince, r.lastSeenAt]);
              const inMemory = (await memory.rows(id, 0)).map((r) => [
                r.instanceId,
                r.openSince,
                r.lastSeenAt,
              ]);
              expect(inSql).toEqual(inMemory);
            }
          }
          await Promise.all(pending);
          const inSql = (await sql.rows(id, null)).map((r) => [r.instanceId, r.openSince, r.lastSeenAt]);
          const inMemory = (await memory.rows(id, 0)).map((r) => [r.instanceId, r.openSince, r.lastSeenAt]);
          expect(inSql).toEqual(inMemory);
        },
      ),
      { numRuns: 150, seed: 20261203 },
    );
    // batches did hold several reports of one instance, not one write each
    expect(coalesced).toBeGreaterThan(50);
  });
});
