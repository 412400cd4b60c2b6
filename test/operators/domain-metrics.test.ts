// The domain gauges agree with each other within one scrape, even when a breaker changes state
// between the reads a scrape makes (CI once saw recloser_breaker_state 1 beside
// recloser_breakers{state="open"} 0). The interleaving is forced, not waited for: the breaker is
// flipped to open in Postgres just before the per-breaker rows are read.
import type { ObservableGauge } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BreakerStateService } from '../../apps/controller/src/breakers/breaker-state.service.js';
import { DomainMetrics } from '../../apps/controller/src/telemetry/domain-metrics.js';
import { heartbeatRound, instanceIds } from '../support/fleet.js';
import { createFleetKey } from '../support/fleet-key.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await bootTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Observed = { gauge: string; value: number; labels: Record<string, unknown> };
const GAUGES = ['byState', 'state', 'live', 'open', 'threshold', 'step', 'admitted', 'isolated'] as const;

/** One scrape's observations, through the batch callback /metrics runs (gauges named by their key). */
async function scrape(metrics: DomainMetrics): Promise<Observed[]> {
  const seen: Observed[] = [];
  const gauges = Object.fromEntries(GAUGES.map((g) => [g, { name: g } as unknown as ObservableGauge]));
  const obs = {
    observe: (gauge: { name: string }, value: number, labels: Record<string, unknown> = {}) =>
      seen.push({ gauge: gauge.name, value, labels }),
  };
  await (metrics as unknown as { observe: (o: unknown, g: unknown) => Promise<void> }).observe(obs, gauges);
  return seen;
}

describe('domain metrics within one scrape', () => {
  it('a breaker that opens between a scrape’s reads (forced: flipped in Postgres as its rows are read) is counted open by recloser_breakers, as its own series shows', async () => {
    const { key } = await createFleetKey(t, ['race']);
    await heartbeatRound(t, key, 'race', 'race-dep', instanceIds(3), () => 'closed');
    const metrics = t.app.get(DomainMetrics);
    const state = t.app.get(BreakerStateService);

    const calm = await scrape(metrics);
    expect(calm.find((o) => o.gauge === 'byState' && o.labels.state === 'closed')?.value).toBe(1);

    const getMany = state.getMany.bind(state);
    state.getMany = async (ids) => {
      await t.db.query(`UPDATE breakers SET state = 'open' WHERE dependency = 'race-dep'`);
      return getMany(ids);
    };
    try {
      const seen = await scrape(metrics);
      const own = seen.find((o) => o.gauge === 'state' && o.labels.dependency === 'race-dep');
      expect(own?.value).toBe(1);
      const count = (s: string) => seen.find((o) => o.gauge === 'byState' && o.labels.state === s)?.value;
      expect([count('open'), count('closed')]).toEqual([1, 0]);
    } finally {
      state.getMany = getMany;
    }
  });
});
