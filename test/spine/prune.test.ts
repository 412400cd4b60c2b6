import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PruneSilentInstancesJob } from '../../apps/controller/src/heartbeats/prune-silent-instances.job.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

describe('pruning instances silent for longer than the retention', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('deletes their presence and verdict rows, and nothing of the others', async () => {
    const { key } = await createFleetKey(t, ['g']);
    await heartbeatRound(t, key, 'g', 'dep', instanceIds(4), () => 'closed');
    // two instances fell silent two hours ago (their rows are aged by hand: the test's fake of time)
    await t.db.query(
      `UPDATE instances SET last_seen_at = now() - interval '2 hours' WHERE instance_id IN ('i0', 'i1')`,
    );
    await t.db.query(
      `UPDATE verdicts SET reported_at = now() - interval '2 hours' WHERE instance_id IN ('i0', 'i1')`,
    );

    const pruned = await t.app.get(PruneSilentInstancesJob).handle();
    expect(pruned).toEqual({ verdicts: 2, instances: 2 });
    const left = await t.db.query<{ instance_id: string }>('SELECT instance_id FROM verdicts ORDER BY 1');
    expect(left.map((r) => r.instance_id)).toEqual(['i2', 'i3']);
    expect(await t.db.query('SELECT instance_id FROM instances ORDER BY 1')).toEqual([
      { instance_id: 'i2' },
      { instance_id: 'i3' },
    ]);
  });
});
