// Heartbeat rows on Postgres: the control layer's PresenceStore. Liveness (core isLive: reported
// within the TTL) and openSince (core nextOpenSince) are restated in SQL here so one statement does a
// heartbeat's writes; test/control/presence-sql-equivalence.test.ts pins both to core.
import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { LiveCounts, LiveDemand, PresenceReader, PresenceStore, VerdictRow } from '@recloser/control';
import {
  isLocallyOpen,
  positiveDemand,
  REPORTED_STATES,
  upgradeGlobalState,
  type BreakerVerdict,
} from '@recloser/core';
import { DataSource, EntityManager, In, MoreThan } from 'typeorm';
import { ControllerConfig } from '../config/controller-config.js';
import { BreakerEntity } from './breaker.entity.js';
import { PresenceBatch, FLUSH_CHUNK_ROWS, WRITE_BEHIND_MS } from './presence-buffer.js';
import { VerdictEntity } from './verdict.entity.js';

/** The reported states core counts as locally open, for SQL filters. */
const LOCALLY_OPEN_STATES = REPORTED_STATES.filter(isLocallyOpen);
/**
 * The same as a literal predicate, so the planner can use the partial index IDX_verdicts_locally_open
 * (whose predicate, in migration HotPresence, a test pins to this one).
 */
export const LOCALLY_OPEN_PREDICATE = `state IN (${LOCALLY_OPEN_STATES.map((s) => `'${s}'`).join(', ')})`;

@Injectable()
export class VerdictsRepository implements PresenceStore, BeforeApplicationShutdown {
  private pending: PresenceBatch;
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: ControllerConfig,
  ) {
    this.pending = new PresenceBatch(config.heartbeatTtlMs);
  }

  /**
   * One heartbeat's writes: the instance's presence row and its verdict on each breaker, through the
   * replica's write-behind buffer (presence-buffer.ts). A routine heartbeat joins the batch written
   * within WRITE_BEHIND_MS; any other starts a write at once. Resolves when the batch is written.
   */
  record(
    heartbeat: { group: string; instanceId: string; region: string },
    verdicts: readonly { breakerId: string; verdict: BreakerVerdict }[],
    now: number,
    routine = false,
  ): Promise<void> {
    if (this.closed) return Promise.reject(new Error('presence store is shut down'));
    const batch = this.pending;
    batch.add(heartbeat, verdicts, now);
    if (!routine) batch.urgent = true;
    this.schedule();
    return batch.written;
  }

  /** Writes whatever is buffered (on shutdown: before the connection pool closes). */
  async beforeApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flushing;
    if (this.pending.size > 0) await this.flush();
  }

  private schedule(): void {
    if (this.flushing) return; // the running flush starts the next when it ends
    if (this.pending.urgent) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, WRITE_BEHIND_MS);
    }
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new PresenceBatch(this.config.heartbeatTtlMs);
    const run = this.write(batch).then(
      () => batch.resolve(),
      (err: unknown) => batch.reject(err),
    );
    this.flushing = run;
    await run;
    this.flushing = null;
    if (this.pending.size > 0) this.schedule();
  }

  /**
   * A batch in chunks of FLUSH_CHUNK_ROWS rows, each one statement, rows sorted by key so two
   * replicas lock rows in one order. open_since follows core nextOpenSince (the buffer's openAt
   * and inherit, see coalesce); a row's time never moves backwards (another replica may have
   * written a newer report); archived breakers and groups heard of again are listed again.
   */
  private async write(batch: PresenceBatch): Promise<void> {
    const presence = [...batch.presence.values()].sort(
      (a, b) => compare(a.group, b.group) || compare(a.instanceId, b.instanceId),
    );
    const verdicts = [...batch.verdicts.values()].sort(
      (a, b) => compare(a.breakerId, b.breakerId) || compare(a.instanceId, b.instanceId),
    );
    const chunks = Math.max(
      Math.ceil(presence.length / FLUSH_CHUNK_ROWS),
      Math.ceil(verdicts.length / FLUSH_CHUNK_ROWS),
    );
    for (let c = 0; c < chunks; c++) {
      const p = presence.slice(c * FLUSH_CHUNK_ROWS, (c + 1) * FLUSH_CHUNK_ROWS);
      const v = verdicts.slice(c * FLUSH_CHUNK_ROWS, (c + 1) * FLUSH_CHUNK_ROWS);
      await this.db.query(
        `WITH presence AS (
           INSERT INTO instances AS i (group_name, instance_id, region, first_seen_at, last_seen_at)
           SELECT p.group_name, p.instance_id, p.region, p.at, p.at
           FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS p (group_name, instance_id, region, at)
           ON CONFLICT (group_name, instance_id)
           DO UPDATE SET region = EXCLUDED.region, last_seen_at = EXCLUDED.last_seen_at
           WHERE i.last_seen_at <= EXCLUDED.last_seen_at
         ),
         -- heard of again: archived breakers (CLOSED when archived, and kept so) and their groups are
         -- listed again; a primary-key probe each, a write only when one was archived
         unarchived AS (
           UPDATE breakers SET archived_at = NULL WHERE id = ANY($5::uuid[]) AND archived_at IS NOT NULL
         ),
         unarchived_group AS (
           UPDATE fleet_groups SET archived_at = NULL WHERE group_name = ANY($1::text[]) AND archived_at IS NOT NULL
         ),
         rows AS (
           SELECT * FROM unnest($5::uuid[], $6::text[], $7::text[], $8::text[], $9::timestamptz[],
                                $10::boolean[], $11::text[], $12::text[], $13::text[], $14::timestamptz[],
                                $16::text[])
             AS u (breaker_id, instance_id, region, state, open_at, inherit, reported_since, evidence, demand, at,
                   routed)
         ),
         -- rows whose open run started in this batch after a close or a lapse: the stored run ends
         fresh AS (${upsertVerdicts(false)})
         ${upsertVerdicts(true)}`,
        [
          p.map((r) => r.group),
          p.map((r) => r.instanceId),
          p.map((r) => r.region),
          p.map((r) => new Date(r.at)),
          v.map((r) => r.breakerId),
          v.map((r) => r.instanceId),
          v.map((r) => r.region),
          v.map((r) => r.verdict.state),
          v.map((r) => (r.openAt === null ? null : new Date(r.openAt))),
          v.map((r) => r.inherit),
          v.map((r) => r.verdict.since ?? null),
          v.map((r) => JSON.stringify(r.verdict.evidence)),
          v.map((r) => (r.verdict.demand ? JSON.stringify(r.verdict.demand) : null)),
          v.map((r) => new Date(r.at)),
          this.config.heartbeatTtlMs,
          v.map((r) => (r.verdict.routed ? JSON.stringify(r.verdict.routed) : null)),
        ],
      );
    }
  }

  /**
   * Breakers with their live and locally-open verdict counts, without reading verdict rows (an
   * index range scan each): what a heartbeat needs to show the figures and to see whether core
   * must decide at all. One round trip for all breakers of a heartbeat.
   */
  async breakersWithCounts(
    breakerIds: string[],
    now: number,
  ): Promise<{ breaker: BreakerEntity; live: number; open: number }[]> {
    if (breakerIds.length === 0) return [];
    const rows: (RawBreaker & { live: number; open: number })[] = await this.db.query(
      `SELECT b.*, c.live, c.open FROM breakers b
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS live, count(*) FILTER (WHERE v.state = ANY($3))::int AS open
         FROM verdicts v WHERE v.breaker_id = b.id AND v.reported_at > $2
       ) c
       WHERE b.id = ANY($1)`,
      [breakerIds, new Date(now - this.config.heartbeatTtlMs), LOCALLY_OPEN_STATES],
    );
    return rows.map((r) => ({ breaker: fromRaw(r), live: r.live, open: r.open }));
  }

  /** Presence reads through a transaction's manager (inside a locked transition). */
  reader(manager: EntityManager): PresenceReader {
    return { rows: (breakerId, since) => this.rows(breakerId, since, manager) };
  }

  async groupInstances(group: string, instanceId: string): Promise<{ count: number; known: boolean }> {
    const [row] = (await this.db.query(
      `SELECT count(*)::int AS count, coalesce(bool_or(instance_id = $2), false) AS known
       FROM instances WHERE group_name = $1`,
      [group, instanceId],
    )) as { count: number; known: boolean }[];
    return { count: row?.count ?? 0, known: row?.known ?? false };
  }

  async isLive(breakerId: string, instanceId: string, now: number): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `SELECT 1 FROM verdicts WHERE breaker_id = $1 AND instance_id = $2 AND reported_at > $3`,
      [breakerId, instanceId, new Date(now - this.config.heartbeatTtlMs)],
    );
    return rows.length > 0;
  }

  /** The live instances' demand. */
  async liveDemand(breakerId: string, now: number): Promise<LiveDemand[]> {
    const rows = await this.rows(breakerId, now - this.config.heartbeatTtlMs);
    return rows.map((r) => ({ instanceId: r.instanceId, demand: r.demand }));
  }

  async closedWithLiveTrouble(now: number): Promise<string[]> {
    return this.breakersWithLiveTrouble(now - this.config.heartbeatTtlMs);
  }

  /** Verdicts of one breaker reported after `since` (ms); all of them when `since` is null. */
  async rows(
    breakerId: string,
    since: number | null,
    manager: EntityManager = this.db.manager,
  ): Promise<VerdictRow[]> {
    const found = await manager.getRepository(VerdictEntity).find({
      where: since === null ? { breakerId } : { breakerId, reportedAt: MoreThan(new Date(since)) },
      order: { instanceId: 'ASC' },
    });
    return found.map(toRow);
  }

  /** Verdicts of several breakers reported after `since` (ms), in one read, by breaker id. */
  async rowsOf(breakerIds: readonly string[], since: number): Promise<Map<string, VerdictRow[]>> {
    const out = new Map<string, VerdictRow[]>(breakerIds.map((id) => [id, []]));
    if (breakerIds.length === 0) return out;
    const found = await this.db.getRepository(VerdictEntity).find({
      where: { breakerId: In([...breakerIds]), reportedAt: MoreThan(new Date(since)) },
      order: { instanceId: 'ASC' },
    });
    for (const v of found) out.get(v.breakerId)?.push(toRow(v));
    return out;
  }

  /** Up to `take` verdicts of one breaker after instance `after`, by instance id (a keyset on PK_verdicts). */
  async page(breakerId: string, after: string | null, take: number): Promise<VerdictRow[]> {
    const found = await this.db.getRepository(VerdictEntity).find({
      where: after === null ? { breakerId } : { breakerId, instanceId: MoreThan(after) },
      order: { instanceId: 'ASC' },
      take,
    });
    return found.map(toRow);
  }

  /** Live and locally-open verdict counts of many breakers at once (breakers without live verdicts: zeros). */
  async countsByBreaker(breakerIds: string[], since: number): Promise<Map<string, LiveCounts>> {
    const counts = new Map<string, LiveCounts>(breakerIds.map((id) => [id, { live: 0, open: 0 }]));
    if (breakerIds.length === 0) return counts;
    const rows: ({ breaker_id: string } & LiveCounts)[] = await this.db.query(
      `SELECT breaker_id, count(*)::int AS live, count(*) FILTER (WHERE state = ANY($3))::int AS open
       FROM verdicts WHERE breaker_id = ANY($1) AND reported_at > $2 GROUP BY breaker_id`,
      [breakerIds, new Date(since), LOCALLY_OPEN_STATES],
    );
    for (const r of rows) counts.set(r.breaker_id, { live: r.live, open: r.open });
    return counts;
  }

  /** Closed breakers with a live, locally open verdict: the only ones a quorum could open. */
  private async breakersWithLiveTrouble(since: number): Promise<string[]> {
    const rows: { breaker_id: string }[] = await this.db.query(
      `SELECT DISTINCT v.breaker_id FROM verdicts v JOIN breakers b ON b.id = v.breaker_id
       WHERE b.state = 'closed' AND v.reported_at > $1 AND v.${LOCALLY_OPEN_PREDICATE}`,
      [new Date(since)],
    );
    return rows.map((r) => r.breaker_id);
  }
}

/**
 * The verdict upsert of a flush, for the rows with `inherit` as given: an inheriting row keeps the
 * stored row's open_since while that row is open and was live when the buffered run began (core
 * nextOpenSince); a row never overwrites a newer report.
 */
function upsertVerdicts(inherit: boolean): string {
  const keep = inherit
    ? `WHEN v.open_since IS NOT NULL AND v.reported_at > EXCLUDED.open_since - $15 * interval '1 millisecond'
       THEN v.open_since`
    : '';
  return `INSERT INTO verdicts AS v
      (breaker_id, instance_id, region, state, open_since, reported_since, evidence, demand, routed, reported_at)
    SELECT breaker_id, instance_id, region, state, open_at, reported_since, evidence::jsonb, demand::jsonb,
           routed::jsonb, at
    FROM rows WHERE ${inherit ? '' : 'NOT '}inherit
    ON CONFLICT (breaker_id, instance_id) DO UPDATE SET
      region = EXCLUDED.region,
      state = EXCLUDED.state,
      open_since = CASE WHEN EXCLUDED.open_since IS NULL THEN NULL ${keep} ELSE EXCLUDED.open_since END,
      reported_since = EXCLUDED.reported_since,
      evidence = EXCLUDED.evidence,
      demand = EXCLUDED.demand,
      routed = EXCLUDED.routed,
      reported_at = EXCLUDED.reported_at
    WHERE v.reported_at <= EXCLUDED.reported_at`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function toRow(v: VerdictEntity): VerdictRow {
  return {
    instanceId: v.instanceId,
    region: v.region,
    state: v.state,
    lastSeenAt: v.reportedAt.getTime(),
    openSince: v.openSince ? v.openSince.getTime() : null,
    evidence: v.evidence,
    demand: positiveDemand(v.demand ?? undefined),
    reportedSince: v.reportedSince,
    ...(v.routed ? { routed: v.routed } : {}),
  };
}

interface RawBreaker {
  id: string;
  group_name: string;
  dependency: string;
  scope_kind: BreakerEntity['scopeKind'];
  scope_value: string;
  region: string | null;
  pool_id: string;
  state: BreakerEntity['state'];
  epoch: number;
  /** as stored: any schema version up to the current one */
  global_state: unknown;
  quorum: BreakerEntity['quorum'];
  formed_by: string[];
  version: number;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function fromRaw(r: RawBreaker): BreakerEntity {
  return Object.assign(new BreakerEntity(), {
    id: r.id,
    group: r.group_name,
    dependency: r.dependency,
    scopeKind: r.scope_kind,
    scopeValue: r.scope_value,
    region: r.region,
    poolId: r.pool_id,
    state: r.state,
    epoch: r.epoch,
    // raw SQL bypasses the entity's column transformer: upgrade as it would
    globalState: upgradeGlobalState(r.global_state),
    quorum: r.quorum,
    formedBy: r.formed_by,
    version: r.version,
    archivedAt: r.archived_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
}
