import { DEFAULT_QUORUM, type QuorumPolicy } from '@recloser/core';
import type { GroupStore, GroupView } from '../ports.js';

/** Groups in memory: first sight (which starts the group's learning period) and the quorum policy. */
export class MemoryGroups implements GroupStore {
  private readonly groups = new Map<string, GroupView>();

  constructor(private readonly defaultPolicy: QuorumPolicy = DEFAULT_QUORUM) {}

  async seen(group: string, now: number): Promise<GroupView> {
    let view = this.groups.get(group);
    if (!view)
      this.groups.set(group, (view = { group, firstSeenAt: now, quorum: { ...this.defaultPolicy } }));
    return { ...view };
  }

  async get(group: string): Promise<GroupView | null> {
    const view = this.groups.get(group);
    return view ? { ...view } : null;
  }

  /** PUT /v1/admin/groups/{group}/quorum */
  setQuorum(group: string, policy: QuorumPolicy, now: number): GroupView {
    const view = this.groups.get(group) ?? { group, firstSeenAt: now, quorum: policy };
    view.quorum = { ...policy };
    this.groups.set(group, view);
    return { ...view };
  }
}
