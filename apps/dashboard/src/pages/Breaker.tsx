import { useEffect, useMemo, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { api, ApiError, type BreakerDetail, type InstanceRow, q, type TimelinePoint } from '../api.js';
import { Chart } from '../chart.js';
import { learnedFacts } from '../learned.js';
import { useLive, useThrottled } from '../live.js';
import { ago, ConfirmDialog, ErrorLine, StateBadge } from '../ui.js';

const ACTIONS = [
  { action: 'force_open', label: 'Force open' },
  { action: 'force_close', label: 'Force close' },
  { action: 'pause_ramp', label: 'Pause ramp' },
  { action: 'resume_ramp', label: 'Resume ramp' },
] as const;
type Action = (typeof ACTIONS)[number]['action'];
const CLASS_COLOURS = ['#1565c0', '#6a1b9a', '#00838f', '#9e9d24', '#4e342e'];
/** live points kept while the page is open (one per refresh) */
const MAX_LIVE_POINTS = 2000;

interface PoolView {
  id: string;
  dependencies: string[];
  groups?: string[];
  fallback: unknown;
  probe: { concurrency: number; ratePerSec: number; leaseTtlMs: number; cooldownMs: number };
  capacity: Record<string, { ratePerSec: number; concurrency: number }>;
  ramp: { steps: number[]; dwellMs: number; shedsCleanly: boolean };
}

export function Breaker({ id, onError }: { id: string; onError: (e: unknown) => void }) {
  const [detail, setDetail] = useState<BreakerDetail | null>(null);
  const [timeline, setTimeline] = useState<{ points: TimelinePoint[]; classes: string[] } | null>(null);
  const [livePoints, setLivePoints] = useState<TimelinePoint[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [acting, setActing] = useState<Action | null>(null);
  /** bumped by each reload, so the instance table reloads with the rest of the page */
  const [version, setVersion] = useState(0);

  const load = async () => {
    try {
      const [d, t] = await Promise.all([
        api<BreakerDetail>('GET', `/v1/admin/breakers/${id}?limit=1`),
        api<{ points: TimelinePoint[]; classes: string[] }>('GET', `/v1/admin/breakers/${id}/timeline`),
      ]);
      setDetail(d);
      setTimeline(t);
      setVersion((v) => v + 1);
      const now = t.points[t.points.length - 1];
      if (now) setLivePoints((ps) => [...ps, now].slice(-MAX_LIVE_POINTS));
      setError(null);
    } catch (err) {
      onError(err);
      setError((err as Error).message);
    }
  };
  const refresh = useThrottled(() => void load(), 250);
  const live = useLive((e) => {
    if (e.breakerId === id) refresh();
  });
  useEffect(() => {
    setLivePoints([]);
    void load();
    const timer = setInterval(() => void load(), 2000);
    return () => clearInterval(timer);
  }, [id]);

  if (!detail || !timeline) return <p>Loading…{error ? ` (${error})` : ''}</p>;
  const b = detail.breaker;
  const act = async (action: Action, reason: string) => {
    await api('POST', `/v1/admin/breakers/${id}/actions`, { action, reason });
    await load();
  };

  return (
    <section>
      <header class="row">
        <h2>
          <StateBadge state={b.state} /> {b.group} / {b.dependency}
          {b.region ? ` (${b.region})` : ''}
        </h2>
        <span class={`live ${live}`}>● {live}</span>
      </header>
      <ErrorLine error={error} />
      <p class="facts">
        epoch {b.epoch} · quorum: <b>{b.quorum.open}</b> open of <b>{b.quorum.live}</b> live, threshold{' '}
        <b>{b.quorum.threshold}</b> (max({detail.quorumPolicy.minOpen}, ⌈{detail.quorumPolicy.fraction} ×
        live⌉)) · ramp: {b.state === 'ramping' && b.step !== null ? `step ${b.step + 1} of ${b.steps}` : '—'}
        {detail.globalState.rampPaused ? ' (paused)' : ''}
        {detail.globalState.operatorHold ? ' · held open by an operator' : ''} · pool {b.pool} · log chain{' '}
        {detail.chain.ok ? 'verified' : 'BROKEN'}
      </p>
      <p class="facts" data-testid="learned">
        {learnedFacts(detail.globalState)}
      </p>

      <div class="row actions">
        {ACTIONS.map((a) => (
          <button key={a.action} data-action={a.action} onClick={() => setActing(a.action)}>
            {a.label}
          </button>
        ))}
      </div>
      {acting && (
        <ConfirmDialog
          title={`${ACTIONS.find((a) => a.action === acting)!.label}: ${b.group} / ${b.dependency}`}
          confirmLabel={ACTIONS.find((a) => a.action === acting)!.label}
          onConfirm={(reason) => act(acting, reason)}
          onClose={() => setActing(null)}
        >
          <p>This changes the breaker for the whole fleet now and is recorded in its transition log.</p>
        </ConfirmDialog>
      )}

      <Timeline points={timeline.points} live={livePoints} classes={timeline.classes} />
      {b.shifts && b.shifts.length > 0 && <Shifts shifts={b.shifts} />}
      <Instances id={id} version={version} />
      <Transitions transitions={detail.transitions} />
      <PoolEditor breakerId={id} dependency={b.dependency} onSaved={load} />
      <QuorumEditor group={b.group} onSaved={load} />
      <ConfigLog targets={[b.pool.startsWith('default:') ? b.dependency : b.pool, b.group]} />
    </section>
  );
}

/** The recorded transitions plus the live points gathered while the page is open, by time. */
function Timeline({
  points,
  live,
  classes,
}: {
  points: TimelinePoint[];
  live: TimelinePoint[];
  classes: string[];
}) {
  const all = useMemo(() => {
    const recorded = points.slice(0, -1);
    const byAt = new Map<number, TimelinePoint>();
    for (const p of [...recorded, ...live]) byAt.set(p.at, p);
    return [...byAt.values()].sort((a, b) => a.at - b.at);
  }, [points, live]);
  const xs = all.map((p) => p.at / 1000);
  const bands = all.map((p, i) => ({
    from: p.at / 1000,
    to: (all[i + 1]?.at ?? p.at + 1000) / 1000,
    state: p.state,
  }));
  const num = (v: number | null) => (v === null ? null : v);
  const quorum: uPlot.AlignedData = [
    xs,
    all.map((p) => num(p.open)),
    all.map((p) => num(p.live)),
    all.map((p) => num(p.threshold)),
  ];
  const ramp: uPlot.AlignedData = [
    xs,
    ...classes.map((c) => all.map((p) => p.admitted[c] ?? null)),
    all.map((p) => (p.successRate === null ? null : p.successRate * 100)),
  ];
  const health: uPlot.AlignedData = [
    xs,
    all.map((p) => p.latencyP95Ms),
    all.map((p) => (p.probe === 'pass' ? (p.latencyP95Ms ?? 0) : null)),
    all.map((p) => (p.probe === 'fail' ? (p.latencyP95Ms ?? 0) : null)),
  ];
  // a value holds until the next point (a state, a count, a step): drawn as steps, not slopes
  const stepped = { paths: uPlot.paths.stepped!({ align: 1 }), spanGaps: true };
  return (
    <div class="charts" data-testid="timeline">
      <Chart
        title="Quorum (state bands behind)"
        bands={bands}
        data={quorum}
        series={[
          { label: 'open', stroke: '#c62828', width: 2, ...stepped },
          { label: 'live', stroke: '#2e7d32', width: 2, ...stepped },
          { label: 'threshold K', stroke: '#555', dash: [6, 4], ...stepped },
        ]}
      />
      <Chart
        title="Ramp: admitted rate per class (req/s) and success rate (%)"
        bands={bands}
        data={ramp}
        scales={{ pct: { range: [0, 100] } }}
        axes={[{}, { label: 'req/s' }, { scale: 'pct', side: 1, label: '%', grid: { show: false } }]}
        series={[
          ...classes.map((c, i) => ({
            label: c,
            stroke: CLASS_COLOURS[i % CLASS_COLOURS.length]!,
            width: 2,
            ...stepped,
          })),
          { label: 'success %', stroke: '#2e7d32', scale: 'pct', spanGaps: true, points: { show: true } },
        ]}
      />
      <Chart
        title="p95 latency (ms) and probe outcomes"
        bands={bands}
        data={health}
        series={[
          { label: 'p95 ms', stroke: '#ef6c00', spanGaps: true, points: { show: true } },
          { label: 'probe passed', stroke: '#2e7d32', width: 0, points: { show: true, size: 9 } },
          { label: 'probe failed', stroke: '#c62828', width: 0, points: { show: true, size: 9 } },
        ]}
      />
    </div>
  );
}

function Instances({ id, version }: { id: string; version: number }) {
  const [filter, setFilter] = useState({ state: '', region: '', prefix: '', live: false, isolated: false });
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<{ instances: InstanceRow[]; next: string | null; total: number } | null>(
    null,
  );
  const [error, setError] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1] ?? null;
  useEffect(() => {
    let gone = false;
    const load = () =>
      api<{ instances: InstanceRow[]; next: string | null; total: number }>(
        'GET',
        `/v1/admin/breakers/${id}/instances${q({ limit: 50, cursor, state: filter.state, region: filter.region, prefix: filter.prefix, live: filter.live && 'true', isolated: filter.isolated && 'true' })}`,
      ).then(
        (p) => !gone && (setPage(p), setError(null)),
        (err: Error) => !gone && setError(err.message),
      );
    void load();
    return () => {
      gone = true;
    };
  }, [id, cursor, filter, version]);
  const set = (patch: Partial<typeof filter>) => {
    setFilter({ ...filter, ...patch });
    setCursors([null]);
  };
  return (
    <div>
      <h3>Instances {page ? `(${page.total} matching)` : ''}</h3>
      <div class="row filters">
        <select value={filter.state} onChange={(e) => set({ state: (e.target as HTMLSelectElement).value })}>
          <option value="">any state</option>
          {['closed', 'open', 'half_open', 'paused', 'fallback'].map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <input
          placeholder="region"
          value={filter.region}
          onChange={(e) => set({ region: (e.target as HTMLInputElement).value })}
        />
        <input
          placeholder="instance id starts with"
          value={filter.prefix}
          onChange={(e) => set({ prefix: (e.target as HTMLInputElement).value })}
        />
        <label>
          <input
            type="checkbox"
            checked={filter.live}
            onChange={(e) => set({ live: (e.target as HTMLInputElement).checked })}
          />{' '}
          live
        </label>
        <label>
          <input
            type="checkbox"
            checked={filter.isolated}
            onChange={(e) => set({ isolated: (e.target as HTMLInputElement).checked })}
          />{' '}
          isolated
        </label>
      </div>
      <ErrorLine error={error} />
      <table data-testid="instances">
        <thead>
          <tr>
            <th>instance</th>
            <th>region</th>
            <th>local state</th>
            <th>last heartbeat</th>
            <th>evidence</th>
            <th>isolated</th>
          </tr>
        </thead>
        <tbody>
          {page?.instances.map((i) => (
            <tr key={i.instanceId} class={i.live ? '' : 'stale'}>
              <td>{i.instanceId}</td>
              <td>{i.region}</td>
              <td>{i.state}</td>
              <td>{ago(i.lastSeenAt)}</td>
              <td>
                {i.evidence?.successes ?? 0}/{i.evidence?.attempts ?? 0} ok
                {i.evidence?.latencyP95Ms != null ? `, p95 ${i.evidence.latencyP95Ms} ms` : ''}
              </td>
              <td>{i.isolated ? 'ISOLATED' : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="row">
        {cursors.length > 1 && (
          <button onClick={() => setCursors(cursors.slice(0, -1))}>Previous page</button>
        )}
        {page?.next && <button onClick={() => setCursors([...cursors, page.next])}>Next page</button>}
      </div>
    </div>
  );
}

/**
 * Traffic moved between regions (issue 14): per source region's shift, each receiver with the rate
 * the plan allows and the rate moved into it now (heartbeats' routed rates); a receiver getting
 * more than allowed is shift_throttled.
 */
function Shifts({ shifts }: { shifts: NonNullable<BreakerDetail['breaker']['shifts']> }) {
  return (
    <div>
      <h3>Shifts between regions</h3>
      <table data-testid="shifts">
        <thead>
          <tr>
            <th>source</th>
            <th>phase</th>
            <th>receiver</th>
            <th title="requests/s the shift plans allow into the receiver">allowed /s</th>
            <th title="requests/s moved into the receiver now (heartbeats' routed rates)">moved /s</th>
            <th>state</th>
            <th>expires</th>
          </tr>
        </thead>
        <tbody>
          {shifts.flatMap((s) =>
            (s.receivers.length > 0 ? s.receivers : [null]).map((r, i) => (
              <tr
                key={`${s.source}:${r?.region ?? '-'}`}
                data-source={s.source}
                data-receiver={r?.region ?? ''}
              >
                <td>{i === 0 ? s.source : ''}</td>
                <td title={s.reason}>{i === 0 ? s.mode : ''}</td>
                <td>{r?.region ?? '—'}</td>
                <td>{r ? r.allowedPerSec : '—'}</td>
                <td class={r?.throttled ? 'over' : ''}>{r ? r.movedPerSec : '—'}</td>
                <td class={r?.throttled ? 'over' : ''}>
                  {r ? (r.throttled ? 'shift_throttled' : 'within plan') : '—'}
                </td>
                <td title={s.expiresAt ?? ''}>
                  {i === 0 && s.expiresAt ? new Date(s.expiresAt).toLocaleTimeString() : ''}
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}

function Transitions({ transitions }: { transitions: BreakerDetail['transitions'] }) {
  return (
    <div>
      <h3>Transitions (newest first)</h3>
      <table data-testid="transitions">
        <thead>
          <tr>
            <th>at</th>
            <th>from → to</th>
            <th>step</th>
            <th>actor</th>
            <th>reason</th>
            <th>hash</th>
          </tr>
        </thead>
        <tbody>
          {transitions.map((t) => (
            <tr key={t.id} data-to={t.to} data-actor={t.actor}>
              <td title={t.at}>{new Date(t.at).toLocaleTimeString()}</td>
              <td>
                {t.from} → {t.to}
              </td>
              <td>{t.step === null ? '—' : t.step + 1}</td>
              <td>{t.actor}</td>
              <td class="reason">{t.reason}</td>
              <td class="mono">{t.hash.slice(0, 10)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A pool's probe budget, ramp steps and capacities (PUT /v1/admin/pools/{id}), with a reason. */
function PoolEditor({
  breakerId,
  dependency,
  onSaved,
}: {
  breakerId: string;
  dependency: string;
  onSaved: () => Promise<void>;
}) {
  const [pool, setPool] = useState<(PoolView & { configured: boolean }) | null>(null);
  const [form, setForm] = useState({
    concurrency: '',
    ratePerSec: '',
    cooldownMs: '',
    steps: '',
    dwellMs: '',
    capacity: '',
  });
  /** the operator's word that the provider answers overload with quick errors (ramp.shedsCleanly) */
  const [sheds, setSheds] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<PoolView & { configured: boolean }>('GET', `/v1/admin/breakers/${breakerId}/pool`).then(
      (p) => {
        setPool(p);
        setForm({
          concurrency: String(p.probe.concurrency),
          ratePerSec: String(p.probe.ratePerSec),
          cooldownMs: String(p.probe.cooldownMs),
          steps: p.ramp.steps.join(', '),
          dwellMs: String(p.ramp.dwellMs),
          capacity: JSON.stringify(p.capacity),
        });
        setSheds(p.ramp.shedsCleanly);
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => void load(), [breakerId]);
  // an unconfigured dependency's defaults become a pool named after it
  const targetId = pool?.configured ? pool.id : dependency;
  const save = async (reason: string) => {
    if (!pool) return;
    let capacity: unknown;
    try {
      capacity = JSON.parse(form.capacity);
    } catch {
      throw new Error('capacity must be JSON, e.g. {"standard":{"ratePerSec":500,"concurrency":200}}');
    }
    await api('PUT', `/v1/admin/dashboard/pools/${encodeURIComponent(targetId)}`, {
      reason,
      pool: {
        dependencies: pool.configured ? pool.dependencies : [dependency],
        ...(pool.groups ? { groups: pool.groups } : {}),
        probe: {
          ...pool.probe,
          concurrency: Number(form.concurrency),
          ratePerSec: Number(form.ratePerSec),
          cooldownMs: Number(form.cooldownMs),
        },
        capacity,
        ramp: {
          ...pool.ramp,
          steps: form.steps.split(',').map((s) => Number(s.trim())),
          dwellMs: Number(form.dwellMs),
          shedsCleanly: sheds,
        },
        fallback: pool.fallback,
      },
    });
    await load();
    await onSaved();
  };
  const field = (k: keyof typeof form, label: string) => (
    <label>
      {label}
      <input
        name={k}
        value={form[k]}
        onInput={(e) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );
  return (
    <div class="editor">
      <h3>
        Pool {targetId} {pool && !pool.configured ? '(defaults; saving configures it)' : ''}
      </h3>
      <ErrorLine error={error} />
      <div class="grid">
        {field('concurrency', 'probe concurrency')}
        {field('ratePerSec', 'probes per second')}
        {field('cooldownMs', 'cooldown (ms)')}
        {field('steps', 'ramp steps (fractions)')}
        {field('dwellMs', 'dwell per step (ms)')}
        {field('capacity', 'capacity per class (JSON)')}
        <label>
          provider sheds cleanly (quick errors past its capacity)
          <input
            type="checkbox"
            name="shedsCleanly"
            checked={sheds}
            onChange={(e) => setSheds((e.target as HTMLInputElement).checked)}
          />
        </label>
      </div>
      <button onClick={() => setConfirming(true)}>Save pool…</button>
      {confirming && (
        <ConfirmDialog
          title={`Change pool ${targetId}`}
          confirmLabel="Save pool"
          onConfirm={save}
          onClose={() => setConfirming(false)}
        />
      )}
    </div>
  );
}

function QuorumEditor({ group, onSaved }: { group: string; onSaved: () => Promise<void> }) {
  const [form, setForm] = useState({ fraction: '', minOpen: '' });
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    api<{ fraction: number; minOpen: number }>(
      'GET',
      `/v1/admin/groups/${encodeURIComponent(group)}/quorum`,
    ).then(
      (p) => setForm({ fraction: String(p.fraction), minOpen: String(p.minOpen) }),
      () => undefined,
    );
  }, [group]);
  const save = async (reason: string) => {
    await api('PUT', `/v1/admin/dashboard/groups/${encodeURIComponent(group)}/quorum`, {
      reason,
      fraction: Number(form.fraction),
      minOpen: Number(form.minOpen),
    }).catch((e: unknown) => {
      throw e instanceof ApiError ? new Error(e.message) : e;
    });
    await onSaved();
  };
  return (
    <div class="editor">
      <h3>Quorum of group {group}</h3>
      <div class="grid">
        <label>
          fraction of live instances
          <input
            name="fraction"
            value={form.fraction}
            onInput={(e) => setForm({ ...form, fraction: (e.target as HTMLInputElement).value })}
          />
        </label>
        <label>
          at least (minOpen)
          <input
            name="minOpen"
            value={form.minOpen}
            onInput={(e) => setForm({ ...form, minOpen: (e.target as HTMLInputElement).value })}
          />
        </label>
      </div>
      <button onClick={() => setConfirming(true)}>Save quorum…</button>
      {confirming && (
        <ConfirmDialog
          title={`Change the quorum of ${group}`}
          confirmLabel="Save quorum"
          onConfirm={save}
          onClose={() => setConfirming(false)}
        />
      )}
    </div>
  );
}

interface LogEntry {
  seq: number;
  at: string;
  kind: string;
  target: string;
  reason: string;
  change: unknown;
}

/** The operator log's configuration changes to this breaker's pool and group. */
function ConfigLog({ targets }: { targets: string[] }) {
  const [entries, setEntries] = useState<LogEntry[]>([]);
  useEffect(() => {
    Promise.all(
      targets.map((target) =>
        api<{ entries: LogEntry[] }>('GET', `/v1/admin/dashboard/operator-log${q({ target, limit: 20 })}`),
      ),
    ).then(
      (lists) => setEntries(lists.flatMap((l) => l.entries).sort((a, b) => b.seq - a.seq)),
      () => undefined,
    );
  }, [targets.join('|')]);
  if (entries.length === 0) return null;
  return (
    <div>
      <h3>Configuration changes</h3>
      <table data-testid="operator-log">
        <thead>
          <tr>
            <th>at</th>
            <th>what</th>
            <th>reason</th>
            <th>change</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.seq}>
              <td>{new Date(e.at).toLocaleString()}</td>
              <td>
                {e.kind} {e.target}
              </td>
              <td class="reason">{e.reason}</td>
              <td class="mono">{JSON.stringify(e.change).slice(0, 200)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
