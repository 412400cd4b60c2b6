// The verdicts trigger of migration Ledger copies, in SQL, what MemoryPresence records in TypeScript
// when an instance's local open run ends (a close, or open again after a lapse past the TTL): its
// first-seen time, its last open report, the next report. Core endedRun reads those facts on both
// sides; this property drives random heartbeat sequences through both stores and compares the runs.
import { MemoryPresence, type StoredRun } from '@recloser/control';
import { emptyEvidence, initialGlobalState, REPORTED_STATES, type ReportedState } from '@recloser/core';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BreakerEntity } from '../../apps/controller/src/breakers/breaker.entity.js';
import { VerdictEntity } from '../../apps/controller/src/breakers/verdict.entity.js';
import { VerdictsRepository } from '../../apps/controller/src/breakers/verdicts.repository.js';
import type { ControllerConfig } from '../../apps/controller/src/config/controller-config.js';
import { BreakerHistoryRepository } from '../../apps/controller/src/ledger/breaker-history.repository.js';
import { createMigratedDatabase, type MigratedDatabase } from '../recovery/support/services.js';

const TTL = 1000;
const INSTANCES = ['a', 'b'];

let db: MigratedDatabase;
let withEntities: DataSource;
let sql: VerdictsRepository;
let history: BreakerHistoryRepository;

beforeAll(async () => {
  db = await createMigratedDatabase('local_runs_eq');
  withEntities = new DataSource({ type: 'postgres', url: db.url, entities: [BreakerEntity, VerdictEntity] });
  await withEntities.initialize();
  sql = new VerdictsRepository(withEntities, { heartbeatTtlMs: TTL } as ControllerConfig);
  history = new BreakerHistoryRepository(withEntities);
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
  gapMs: fc.oneof(
    fc.integer({ min: 1, max: 400 }),
    fc.constantFrom(TTL - 1, TTL, TTL + 1),
    fc.integer({ min: 0, max: 3 * TTL }),
  ),
});

const sorted = (runs: StoredRun[]) => [...runs].sort((x, y) => x.openSince - y.openSince);

describe('ended local open runs: the SQL trigger equals the memory store', () => {
  it('property: the same runs (and the same current row) after any heartbeat sequence', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
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
        }
        for (const instance of INSTANCES) {
          const got = await history.localRuns(id, instance, 0, now + TTL);
          expect(sorted(got.ended)).toEqual(sorted(memory.endedRuns.get(`${id}\u0000${instance}`) ?? []));
          const row = memory.row(id, instance);
          expect(got.current).toEqual(row ? { openSince: row.openSince, lastSeenAt: row.lastSeenAt } : null);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a pruned open row leaves its run with no next report (bounded by core endedRun to a TTL)', async () => {
    const id = await newBreaker(9999);
    const at = 1_700_000_000_000;
    const verdict = { dependency: 'd', state: 'open' as const, evidence: emptyEvidence() };
    await sql.record({ group: 'g', instanceId: 'a', region: 'r' }, [{ breakerId: id, verdict }], at);
    await db.dataSource.query(`DELETE FROM verdicts WHERE breaker_id = $1`, [id]);
    const got = await history.localRuns(id, 'a', 0, at + 10 * TTL);
    expect(got).toEqual({ ended: [{ openSince: at, lastSeenAt: at, nextSeenAt: null }], current: null });
  });
});
