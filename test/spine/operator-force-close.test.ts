// An operator's force_close holds for one heartbeat TTL: instances still reporting `open` (their
// local breakers have not yet heard the CLOSED plan) do not re-form the quorum at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, pollUntil } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const DEP = 'llm-provider';
const TEN = instanceIds(10);
const TTL_MS = 1000; // the test app's RECLOSER_HEARTBEAT_TTL_MS

describe('operator force_close against a fleet still reporting open (real Postgres + Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('stays CLOSED for one heartbeat TTL with 10 of 10 instances open, and may reopen after it', async () => {
    const group = `g-force-close-${randomSuffix()}`;
    const { key } = await createFleetKey(t, [group]);
    const allOpen = async () =>
      (await heartbeatRound(t, key, group, DEP, TEN, () => 'open')).map((r) => r.body);
    const opened = await pollUntil(allOpen, (bodies) => bodies[0]!.breakers[0].global.state === 'open', {
      attempts: 60,
      everyMs: 100,
    });
    expect(opened[0]!.breakers[0].global.state).toBe('open');
    const breakerId = opened[0]!.breakers[0].breakerId as string;

    const forced = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_close',
      reason: 'provider confirmed healthy',
    });
    expect(forced.status).toBeLessThan(300);
    const closing = forced.body.transitions[0];
    expect(closing).toMatchObject({ from: 'open', to: 'closed', actor: 'operator' });
    const closedAt = Date.parse(closing.at as string);
    const quietUntil = closing.figures.quorumQuietUntil as number;
    expect(quietUntil).toBe(closedAt + TTL_MS);

    // every round answered before quietUntil was evaluated before it: the breaker must still be closed
    let roundsInsideQuiet = 0;
    for (let i = 0; i < 50; i++) {
      const bodies = await allOpen();
      if (Date.now() >= quietUntil) break;
      roundsInsideQuiet += 1;
      for (const body of bodies) expect(body.breakers[0].global.state).toBe('closed');
    }
    expect(roundsInsideQuiet).toBeGreaterThan(0);

    // the fleet keeps reporting open after the TTL: the quorum is heeded again
    const reopened = await pollUntil(allOpen, (bodies) => bodies[0]!.breakers[0].global.state === 'open', {
      attempts: 60,
      everyMs: 100,
    });
    expect(reopened[0]!.breakers[0].global.state).toBe('open');
    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`);
    const reopening = (
      log.body.transitions as { actor: string; from: string; to: string; at: string }[]
    ).filter((r) => r.actor === 'quorum');
    expect(reopening).toHaveLength(2);
    const second = reopening.find((r) => Date.parse(r.at) > closedAt)!;
    expect(second).toMatchObject({ from: 'closed', to: 'open' });
    expect(Date.parse(second.at)).toBeGreaterThanOrEqual(quietUntil);
    expect(log.body.chain.ok).toBe(true);
  });
});
