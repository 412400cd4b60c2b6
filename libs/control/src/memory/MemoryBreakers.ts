// Breakers and their global state in memory, with the Postgres store's semantics: one writer per
// breaker at a time (a promise chain stands in for SELECT … FOR UPDATE), transition records and
// their events committed together, events published after the commit.
import { initialGlobalState, type Clock, type TransitionRecord } from '@recloser/core';
import type { ControlEventDraft } from '../events.js';
import { ControlError } from '../ControlError.js';
import { sameState } from '../ControlPlane.js';
import { withAudit } from '../withAudit.js';
import type {
  BreakerDecision,
  BreakerRecord,
  BreakerStore,
  CommittedTransition,
  EventSink,
  LiveCounts,
  PresenceReader,
  TransitionScope,
} from '../ports.js';
import type { GlobalBreakerState } from '@recloser/core';

export class MemoryBreakers implements BreakerStore {
  private readonly byId = new Map<string, BreakerRecord>();
  private readonly idByKey = new Map<string, string>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** every committed transition, in commit order (what the transition log holds) */
  readonly log: (TransitionRecord & { breakerId: string })[] = [];
  private counter = 0;

  constructor(
    private readonly clock: Clock,
    private readonly presence: PresenceReader & { counts(breakerId: string, now: number): LiveCounts },
    private readonly sink: EventSink,
  ) {}

  /** The stored record, read synchronously (the simulator samples states between events). */
  peek(breakerId: string): Readonly<BreakerRecord> | undefined {
    return this.byId.get(breakerId);
  }

  isClosed(breakerId: string): boolean {
    return this.byId.get(breakerId)?.globalState.state === 'closed';
  }

  async idsFor(
    group: string,
    wanted: readonly { dependency: string; poolId: string }[],
    now: number,
    admit?: (existing: number, adding: number) => void,
  ): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    const adding = new Set(
      wanted.filter((w) => !this.idByKey.has(`${group}\u0000${w.dependency}`)).map((w) => w.dependency),
    );
    if (adding.size > 0 && admit) {
      let existing = 0;
      for (const b of this.byId.values()) if (b.group === group) existing += 1;
      admit(existing, adding.size);
    }
    for (const w of wanted) {
      const key = `${group}\u0000${w.dependency}`;
      let id = this.idByKey.get(key);
      if (!id) {
        this.counter += 1;
        id = `${group}:${w.dependency}`;
        if (this.byId.has(id)) id = `${id}#${this.counter}`;
        this.idByKey.set(key, id);
        this.byId.set(id, {
          id,
          group,
          dependency: w.dependency,
          scopeKind: 'group',
          scopeValue: '',
          region: null,
          poolId: w.poolId,
          globalState: initialGlobalState(now),
          quorum: { open: 0, live: 0, threshold: 0 },
          formedBy: [],
        });
      }
      const b = this.byId.get(id)!;
      if (b.poolId !== w.poolId) b.poolId = w.poolId; // the operator moved the dependency to another pool
      ids.set(w.dependency, id);
    }
    return ids;
  }

  async get(breakerId: string): Promise<BreakerRecord | null> {
    const b = this.byId.get(breakerId);
    return b ? copy(b) : null;
  }

  async getMany(breakerIds: readonly string[]): Promise<BreakerRecord[]> {
    return breakerIds.flatMap((id) => {
      const b = this.byId.get(id);
      return b ? [copy(b)] : [];
    });
  }

  async withCounts(
    breakerIds: readonly string[],
    now: number,
  ): Promise<{ breaker: BreakerRecord; counts: LiveCounts }[]> {
    return (await this.getMany(breakerIds)).map((breaker) => ({
      breaker,
      counts: this.presence.counts(breaker.id, now),
    }));
  }

  async find(group: string, dependency: string): Promise<BreakerRecord | null> {
    const id = this.idByKey.get(`${group}\u0000${dependency}`);
    return id ? this.get(id) : null;
  }

  async regionBreaker(
    group: string,
    dependency: string,
    region: string,
    poolId: string,
    now: number,
  ): Promise<BreakerRecord> {
    const key = `${group}\u0000${dependency}\u0000region\u0000${region}`;
    let id = this.idByKey.get(key);
    if (!id) {
      id = `${group}:${dependency}@region:${region}`;
      this.idByKey.set(key, id);
      this.byId.set(id, {
        id,
        group,
        dependency,
        scopeKind: 'region',
        scopeValue: region,
        region,
        poolId,
        globalState: initialGlobalState(now),
        quorum: { open: 0, live: 0, threshold: 0 },
        formedBy: [],
      });
    }
    return copy(this.byId.get(id)!);
  }

  async regionBreakers(group: string, dependency: string): Promise<BreakerRecord[]> {
    return [...this.byId.values()]
      .filter((b) => b.group === group && b.dependency === dependency && b.scopeKind === 'region')
      .map(copy);
  }

  async active(): Promise<BreakerRecord[]> {
    return [...this.byId.values()].filter((b) => b.globalState.state !== 'closed').map(copy);
  }

  async contendingGroups(poolId: string): Promise<number> {
    const groups = new Set<string>();
    for (const b of this.byId.values())
      if (b.poolId === poolId && (b.globalState.state === 'open' || b.globalState.state === 'probing'))
        groups.add(b.group);
    return groups.size;
  }

  async transition(
    breakerId: string,
    decide: (state: GlobalBreakerState, scope: TransitionScope) => Promise<BreakerDecision | null>,
    events: (committed: CommittedTransition) => ControlEventDraft[],
  ): Promise<CommittedTransition> {
    let drafts: ControlEventDraft[] = [];
    const run = async (): Promise<CommittedTransition> => {
      const stored = this.byId.get(breakerId);
      if (!stored) throw new ControlError('not_found', `breaker ${breakerId} not found`);
      const now = this.clock.now();
      const decision = await decide(stored.globalState, {
        breaker: copy(stored),
        now,
        presence: this.presence,
      });
      if (!decision) return { breaker: copy(stored), transitions: [] };
      if (sameState(decision.next, stored.globalState) && decision.transitions.length === 0)
        return { breaker: copy(stored), transitions: [] };
      stored.globalState = decision.next;
      if (decision.quorum) stored.quorum = { ...decision.quorum };
      if (decision.formedBy) stored.formedBy = [...decision.formedBy];
      const transitions = decision.transitions.map((t) => withAudit(t, decision));
      for (const t of transitions) this.log.push({ ...t, breakerId });
      const committed = { breaker: copy(stored), transitions };
      drafts = events(committed);
      return committed;
    };
    const previous = this.locks.get(breakerId) ?? Promise.resolve();
    const mine = previous.then(run, run);
    const settled = mine.catch(() => undefined);
    this.locks.set(breakerId, settled);
    const committed = await mine;
    if (this.locks.get(breakerId) === settled) this.locks.delete(breakerId);
    // published after the commit, outside the lock (the controller's relay runs after commit too)
    if (drafts.length > 0) await this.sink.publish(drafts);
    return committed;
  }
}

function copy(b: BreakerRecord): BreakerRecord {
  return { ...b, globalState: { ...b.globalState }, quorum: { ...b.quorum }, formedBy: [...b.formedBy] };
}
