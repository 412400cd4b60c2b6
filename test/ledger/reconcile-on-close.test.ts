// Reconciliation runs again when a breaker closes: the ledger's consumer of the event seam (outbox)
// enqueues the reconcile job, delayed by the time events around the close need to settle.
import type { ControlEvent } from '@recloser/control';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedBreaker } from '../../apps/controller/src/ledger/ledger.consumer.js';
import { JobName, QueueName } from '../../apps/controller/src/queues/queue.constants.js';
import { QueueService } from '../../apps/controller/src/queues/queue.service.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const GROUP = `close-${randomSuffix()}`;

const transition = (from: string, to: string): ControlEvent => ({
  id: '1',
  seq: 1,
  type: 'breaker.transition',
  breakerId: 'b',
  at: 0,
  data: { from, to },
});

describe('closedBreaker', () => {
  it('is a transition into CLOSED from another state, nothing else', () => {
    expect(closedBreaker(transition('ramping', 'closed'))).toBe(true);
    expect(closedBreaker(transition('open', 'closed'))).toBe(true);
    expect(closedBreaker(transition('closed', 'open'))).toBe(false);
    expect(closedBreaker({ ...transition('open', 'closed'), type: 'probe.granted' })).toBe(false);
  });
});

describe('a breaker that closes enqueues reconciliation', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await bootTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('one delayed reconcile job per close, named after the transition event', async () => {
    const key = (await createFleetKey(app, [GROUP])).key;
    const ids = instanceIds(4);
    const first = await heartbeatRound(app, key, GROUP, 'llm', ids, () => 'closed');
    const breakerId = first[0]!.body.breakers[0].breakerId as string;
    await sleep(1100); // learning period
    await heartbeatRound(app, key, GROUP, 'llm', ids, () => 'open');
    const closed = await app.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_close',
      reason: 'test',
    });
    expect(closed.status).toBeLessThan(300);
    const queue = app.app.get(QueueService).queue(QueueName.Ledger);
    const jobs = await pollUntil(
      async () =>
        (await queue.getJobs(['delayed', 'waiting', 'active', 'completed'])).filter((j) =>
          j?.id?.startsWith('reconcile-after-close-'),
        ),
      (found) => found.length > 0,
      { attempts: 50, everyMs: 100 },
    );
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.name).toBe(JobName.Reconcile);
    expect(jobs[0]!.data).toEqual({ breakerId });
  });
});
