// Shift states on Postgres (issue 14): one row per region breaker in region_shifts, stepped by any
// replica under that row's lock (SELECT … FOR UPDATE), so one authoritative shift state exists per
// region whatever replica a heartbeat reaches. A step's events go to the outbox and a phase change's
// log leaf to the transparency log in the same transaction (the log appends under log_head's lock).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ShiftRecord, ShiftStepWrite, ShiftStore } from '@recloser/control';
import type { ShiftMode, ShiftPlan, ShiftState } from '@recloser/core';
import { DataSource } from 'typeorm';
import { OutboxService } from '../outbox/outbox.service.js';
import { TransparencyLogService } from '../receipts/transparency-log.service.js';

interface ShiftRow {
  breaker_id: string;
  group_breaker_id: string;
  source: string;
  mode: ShiftMode;
  state: ShiftState;
  plan: ShiftPlan;
  allowed: Record<string, number>;
  throttled: string[];
  seq: number;
  updated_at: Date;
}

const toRecord = (r: ShiftRow): ShiftRecord => ({
  breakerId: r.breaker_id,
  groupBreakerId: r.group_breaker_id,
  source: r.source,
  mode: r.mode,
  state: r.state,
  plan: r.plan,
  allowed: r.allowed,
  throttled: r.throttled,
  seq: r.seq,
  updatedAt: r.updated_at.getTime(),
});

@Injectable()
export class RegionShiftsStore implements ShiftStore {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly outbox: OutboxService,
    private readonly log: TransparencyLogService,
  ) {}

  async step(
    breakerId: string,
    groupBreakerId: string,
    next: (prev: ShiftRecord | null, others: readonly ShiftRecord[]) => ShiftStepWrite | null,
  ): Promise<ShiftRecord | null> {
    let announced = false;
    const out = await this.db.transaction(async (m) => {
      const [locked] = (await m.query(`SELECT * FROM region_shifts WHERE breaker_id = $1 FOR UPDATE`, [
        breakerId,
      ])) as ShiftRow[];
      const others = (await m.query(
        `SELECT * FROM region_shifts WHERE group_breaker_id = $1 AND breaker_id <> $2`,
        [groupBreakerId, breakerId],
      )) as ShiftRow[];
      const prev = locked ? toRecord(locked) : null;
      const write = next(prev, others.map(toRecord));
      if (write === null) return prev;
      const r = write.record;
      // a first step of two replicas at once: the second waits on the first's insert, then finds it
      // stored (ON CONFLICT … WHERE: the row is only replaced by the step that read it)
      const stored = (await m.query(
        `INSERT INTO region_shifts AS s
           (breaker_id, group_breaker_id, source, mode, state, plan, allowed, throttled, seq, updated_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::text[], $9, $10)
         ON CONFLICT (breaker_id) DO UPDATE SET
           mode = EXCLUDED.mode, state = EXCLUDED.state, plan = EXCLUDED.plan, allowed = EXCLUDED.allowed,
           throttled = EXCLUDED.throttled, seq = EXCLUDED.seq, updated_at = EXCLUDED.updated_at
         WHERE s.seq = $11
         RETURNING breaker_id`,
        [
          r.breakerId,
          r.groupBreakerId,
          r.source,
          r.mode,
          JSON.stringify(r.state),
          JSON.stringify(r.plan),
          JSON.stringify(r.allowed),
          r.throttled,
          r.seq,
          new Date(r.updatedAt),
          prev?.seq ?? 0,
        ],
      )) as unknown[];
      if (stored.length === 0) return prev; // another replica's first step won: this one changes nothing
      if (write.events.length > 0) await this.outbox.append(m, write.events);
      announced = write.events.length > 0;
      if (write.leaf) await this.log.appendShift(m, write.leaf);
      return r;
    });
    if (announced) this.outbox.kick(); // the relay delivers after commit
    return out;
  }

  /** Shifts not idle, most recently stepped first (the dashboard's overview). */
  async active(limit: number): Promise<ShiftRecord[]> {
    const rows = (await this.db.query(
      `SELECT * FROM region_shifts WHERE mode <> 'idle' ORDER BY updated_at DESC LIMIT $1`,
      [limit],
    )) as ShiftRow[];
    return rows.map(toRecord);
  }

  async ofGroups(groupBreakerIds: readonly string[]): Promise<ShiftRecord[]> {
    if (groupBreakerIds.length === 0) return [];
    const rows = (await this.db.query(
      `SELECT * FROM region_shifts WHERE group_breaker_id = ANY($1::uuid[]) ORDER BY source`,
      [[...groupBreakerIds]],
    )) as ShiftRow[];
    return rows.map(toRecord);
  }
}
