import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { GroupStore, GroupView } from '@recloser/control';
import { DEFAULT_QUORUM, type QuorumPolicy } from '@recloser/core';
import { IsNull, Repository } from 'typeorm';
import { FleetGroupEntity } from './fleet-group.entity.js';

// Groups: first sight (which starts the group's learning period) and the quorum policy; the
// control layer's GroupStore.
// each replica re-reads a group at most this often: a quorum policy PUT reaches every replica within it
const CACHE_MS = 1000;

@Injectable()
export class FleetGroupsService implements GroupStore {
  private readonly cache = new Map<string, { view: GroupView; at: number }>();

  constructor(@InjectRepository(FleetGroupEntity) private readonly groups: Repository<FleetGroupEntity>) {}

  /** The group, recorded as first seen at `now` if the controller never heard from it. */
  async seen(group: string, now: number): Promise<GroupView> {
    const cached = this.cached(group);
    if (cached) return cached;
    let row = await this.groups.findOneBy({ group });
    if (!row) {
      await this.groups
        .createQueryBuilder()
        .insert()
        .values({ group, firstSeenAt: new Date(now), quorumFraction: null, quorumMinOpen: null })
        .orIgnore()
        .execute();
      row = await this.groups.findOneByOrFail({ group });
    }
    return this.remember(toView(row));
  }

  async get(group: string): Promise<GroupView | null> {
    const cached = this.cached(group);
    if (cached) return cached;
    const row = await this.groups.findOneBy({ group });
    return row ? this.remember(toView(row)) : null;
  }

  private cached(group: string): GroupView | null {
    const hit = this.cache.get(group);
    return hit && Date.now() - hit.at < CACHE_MS ? hit.view : null;
  }

  private remember(view: GroupView): GroupView {
    this.cache.set(view.group, { view, at: Date.now() });
    return view;
  }

  async all(): Promise<GroupView[]> {
    return (await this.groups.find({ order: { group: 'ASC' } })).map(toView);
  }

  /** The groups the overview lists: not archived. */
  async listed(): Promise<GroupView[]> {
    return (await this.groups.find({ where: { archivedAt: IsNull() }, order: { group: 'ASC' } })).map(toView);
  }

  async setQuorum(group: string, policy: QuorumPolicy, now: number): Promise<GroupView> {
    await this.groups
      .createQueryBuilder()
      .insert()
      .values({
        group,
        firstSeenAt: new Date(now),
        quorumFraction: policy.fraction,
        quorumMinOpen: policy.minOpen,
        archivedAt: null,
      })
      // an operator's policy brings an archived group back into view
      .orUpdate(['quorum_fraction', 'quorum_min_open', 'archived_at', 'updated_at'], ['group_name'])
      .execute();
    return this.remember(toView(await this.groups.findOneByOrFail({ group })));
  }
}

function toView(row: FleetGroupEntity): GroupView {
  return {
    group: row.group,
    firstSeenAt: row.firstSeenAt.getTime(),
    quorum: {
      fraction: row.quorumFraction ?? DEFAULT_QUORUM.fraction,
      minOpen: row.quorumMinOpen ?? DEFAULT_QUORUM.minOpen,
    },
  };
}
