import { useEffect, useState } from 'preact/hooks';
import { api, type Delivery, q, type Webhook } from '../api.js';
import { ago, ErrorLine } from '../ui.js';

const STATUSES = ['', 'pending', 'retrying', 'delivered', 'dead'] as const;

/** Subscriptions, recent deliveries with their status (dead = dead letters), retry of a failed one. */
export function Webhooks({ onError }: { onError: (e: unknown) => void }) {
  const [hooks, setHooks] = useState<{ webhooks: Webhook[]; events: string[] } | null>(null);
  const [deliveries, setDeliveries] = useState<{
    deliveries: Delivery[];
    counts: Record<string, number>;
  } | null>(null);
  const [status, setStatus] = useState('');
  const [form, setForm] = useState({
    url: '',
    secret: '',
    format: 'json',
    events: new Set<string>(['breaker.opened', 'breaker.recovered']),
  });
  const [error, setError] = useState<string | null>(null);

  const load = async () => {
    try {
      const [h, d] = await Promise.all([
        api<{ webhooks: Webhook[]; events: string[] }>('GET', '/v1/admin/webhooks'),
        api<{ deliveries: Delivery[]; counts: Record<string, number> }>(
          'GET',
          `/v1/admin/webhooks/deliveries${q({ limit: 100, status })}`,
        ),
      ]);
      setHooks(h);
      setDeliveries(d);
    } catch (err) {
      onError(err);
      setError((err as Error).message);
    }
  };
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), 3000);
    return () => clearInterval(timer);
  }, [status]);

  const subscribe = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST', '/v1/admin/webhooks', {
        url: form.url,
        secret: form.secret,
        format: form.format,
        events: [...form.events],
      });
      setForm({ ...form, url: '', secret: '' });
      setError(null);
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const act = async (method: 'POST' | 'DELETE', path: string) => {
    try {
      await api(method, path);
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <section>
      <h2>Webhooks</h2>
      <ErrorLine error={error} />
      <table data-testid="webhooks">
        <thead>
          <tr>
            <th>url</th>
            <th>events</th>
            <th>format</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {hooks?.webhooks.map((h) => (
            <tr key={h.id}>
              <td class="mono">{h.url}</td>
              <td>{h.events.join(', ')}</td>
              <td>{h.format}</td>
              <td>
                <button
                  onClick={() =>
                    confirm(`Unsubscribe ${h.url}?`) && void act('DELETE', `/v1/admin/webhooks/${h.id}`)
                  }
                >
                  Unsubscribe
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <form class="editor" onSubmit={subscribe}>
        <h3>Subscribe</h3>
        <div class="grid">
          <label>
            URL
            <input
              name="url"
              required
              value={form.url}
              onInput={(e) => setForm({ ...form, url: (e.target as HTMLInputElement).value })}
            />
          </label>
          <label>
            secret (signs each delivery)
            <input
              name="secret"
              type="password"
              required
              minLength={8}
              value={form.secret}
              onInput={(e) => setForm({ ...form, secret: (e.target as HTMLInputElement).value })}
            />
          </label>
          <label>
            format
            <select
              value={form.format}
              onChange={(e) => setForm({ ...form, format: (e.target as HTMLSelectElement).value })}
            >
              <option value="json">JSON</option>
              <option value="slack">Slack incoming webhook</option>
            </select>
          </label>
        </div>
        <fieldset class="events">
          {hooks?.events.map((ev) => (
            <label key={ev}>
              <input
                type="checkbox"
                data-event={ev}
                checked={form.events.has(ev)}
                onChange={(e) => {
                  const events = new Set(form.events);
                  if ((e.target as HTMLInputElement).checked) events.add(ev);
                  else events.delete(ev);
                  setForm({ ...form, events });
                }}
              />{' '}
              {ev}
            </label>
          ))}
        </fieldset>
        <button type="submit">Subscribe</button>
      </form>

      <h3>Recent deliveries</h3>
      <div class="row">
        {STATUSES.map((s) => (
          <button key={s} class={s === status ? 'selected' : ''} onClick={() => setStatus(s)}>
            {s || 'all'} {s && deliveries ? `(${deliveries.counts[s] ?? 0})` : ''}
          </button>
        ))}
      </div>
      <table data-testid="deliveries">
        <thead>
          <tr>
            <th>when</th>
            <th>event</th>
            <th>status</th>
            <th>attempts</th>
            <th>last answer</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {deliveries?.deliveries.map((d) => (
            <tr key={d.id} data-status={d.status} data-event={d.eventType}>
              <td>{ago(d.createdAt)}</td>
              <td>
                {d.eventType} {d.breakerId ? <a href={`#/breakers/${d.breakerId}`}>breaker</a> : null}
              </td>
              <td class={`status ${d.status}`}>{d.status}</td>
              <td>{d.attempts}</td>
              <td>{d.lastStatusCode ?? d.lastError ?? ''}</td>
              <td>
                {(d.status === 'dead' || d.status === 'retrying') && (
                  <button onClick={() => void act('POST', `/v1/admin/webhooks/deliveries/${d.id}/retry`)}>
                    Retry now
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
