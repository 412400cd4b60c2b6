import { useEffect, useState } from 'preact/hooks';
import { api, type Extras, type Overview as OverviewData, q } from '../api.js';
import { useLive, useThrottled } from '../live.js';
import { ErrorLine, StateBadge } from '../ui.js';

const PAGE = 200;

/** Every pool and breaker: state, live/open against the quorum threshold, ramp step, probes, isolated. */
export function Overview({ onError }: { onError: (e: unknown) => void }) {
  const [data, setData] = useState<OverviewData | null>(null);
  const [extras, setExtras] = useState<Extras>({ probesInFlight: {}, isolated: {} });
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async () => {
    try {
      const o = await api<OverviewData>('GET', `/v1/admin/overview${q({ limit: PAGE, cursor })}`);
      setData(o);
      const pools = [...new Set(o.breakers.map((b) => b.pool))].join(',');
      setExtras(await api<Extras>('GET', `/v1/admin/dashboard/extras${q({ pools })}`));
      setError(null);
    } catch (err) {
      onError(err);
      setError((err as Error).message);
    }
  };
  const refresh = useThrottled(() => void load(), 300);
  const live = useLive(() => refresh());
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), 5000); // live/open counts move without events
    return () => clearInterval(timer);
  }, [cursor]);

  if (!data) return <p>Loading…{error ? ` (${error})` : ''}</p>;
  const t = data.totals;
  return (
    <section>
      <header class="row">
        <h2>Overview</h2>
        <span class={`live ${live}`} data-testid="live-status">
          ● {live}
        </span>
      </header>
      <ErrorLine error={error} />
      <div class="cards">
        <div class="card">
          <b>{t.breakers}</b> breakers
        </div>
        {(['closed', 'open', 'probing', 'ramping'] as const).map((s) => (
          <div class="card" key={s}>
            <StateBadge state={s} /> <b>{t.byState[s]}</b>
          </div>
        ))}
        <div class="card">
          <b>{t.liveInstances}</b> live instances
        </div>
        <div class="card">
          <b>{t.openInstances}</b> locally open
        </div>
      </div>

      <h3>Breakers</h3>
      <table class="breakers" data-testid="breakers">
        <thead>
          <tr>
            <th>state</th>
            <th>group</th>
            <th>dependency</th>
            <th>scope</th>
            <th title="locally open / live instances, and the threshold K that opens the breaker">
              open / live (K)
            </th>
            <th>ramp step</th>
            <th>pool</th>
            <th>probes in flight</th>
            <th>isolated</th>
            <th>fallback regions</th>
            <th title="a region breaker's shift: its phase and what each receiving region may take (requests/s)">
              shift
            </th>
          </tr>
        </thead>
        <tbody>
          {data.breakers.map((b) => (
            <tr
              key={b.breakerId}
              data-breaker={b.breakerId}
              data-dependency={b.dependency}
              data-state={b.state}
            >
              <td>
                <StateBadge state={b.state} />
              </td>
              <td>{b.group}</td>
              <td>
                <a href={`#/breakers/${b.breakerId}`}>{b.dependency}</a>
              </td>
              <td>{b.region ?? 'group'}</td>
              <td class={b.open >= b.quorum.threshold ? 'over' : b.open > 0 ? 'near' : ''}>
                {b.open} / {b.live} ({b.quorum.threshold})
              </td>
              <td>{b.state === 'ramping' && b.step !== null ? `${b.step + 1} of ${b.steps}` : '—'}</td>
              <td>{b.pool}</td>
              <td>{extras.probesInFlight[b.pool] ?? 0}</td>
              <td>{extras.isolated[b.breakerId] ?? 0}</td>
              <td title="regional fallback shares are not modelled yet">—</td>
              <td data-shift={extras.shifts?.[b.breakerId]?.mode ?? ''}>
                {shiftCell(extras.shifts?.[b.breakerId])}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="row">
        {cursor !== null && <button onClick={() => setCursor(null)}>First page</button>}
        {data.next !== null && <button onClick={() => setCursor(data.next)}>Next page</button>}
      </div>

      <h3>Pools</h3>
      <table>
        <thead>
          <tr>
            <th>pool</th>
            <th>dependencies</th>
            <th>breakers</th>
            <th>configured</th>
          </tr>
        </thead>
        <tbody>
          {data.pools.map((p) => (
            <tr key={p.id}>
              <td>{p.id}</td>
              <td>{p.dependencies.join(', ')}</td>
              <td>{p.breakers}</td>
              <td>{p.configured ? 'yes' : 'defaults'}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3>Groups</h3>
      <table>
        <thead>
          <tr>
            <th>group</th>
            <th>quorum</th>
          </tr>
        </thead>
        <tbody>
          {data.groups.map((g) => (
            <tr key={g.group}>
              <td>{g.group}</td>
              <td>
                max({g.quorum.minOpen}, ⌈{g.quorum.fraction} × live⌉)
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A region breaker's shift in one cell: its phase and each receiver's allowance, or a dash. */
function shiftCell(shift: NonNullable<Extras['shifts']>[string] | undefined): string {
  if (!shift) return '—';
  const to = shift.receivers.map((r) => `${r.region} ≤ ${r.allowedPerSec}/s`).join(', ');
  return to ? `${shift.mode}: ${to}` : shift.mode;
}
