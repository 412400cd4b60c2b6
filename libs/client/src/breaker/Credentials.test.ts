// A credential's own breaker inside the SDK, with a faked controller: a bad credential is the
// credential's fault, never the dependency's, and a probe never goes out with it.
import {
  FakeClock,
  seededRng,
  type BreakerPlan,
  type GlobalState,
  type HeartbeatRequest,
  type HeartbeatResponse,
} from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { createRecloser } from '../Recloser.js';
import type { Transport } from '../transport/Transport.js';

/** A faked controller: answers every heartbeat with the plan the test sets. */
class FakedController implements Transport {
  plan: BreakerPlan | null = null;
  heartbeats: HeartbeatRequest[] = [];

  set(state: GlobalState, extra: Partial<BreakerPlan> = {}): void {
    this.plan = {
      dependency: 'llm',
      breakerId: 'b-llm',
      global: { state, epoch: 1, step: null, steps: 6, quorum: { open: 0, live: 1, threshold: 2 } },
      allowance: null,
      probe: null,
      fallback: null,
      ...extra,
    };
  }

  async heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    this.heartbeats.push(structuredClone(req));
    return {
      serverTime: new Date(0).toISOString(),
      heartbeatIntervalMs: 1000,
      leaseTtlMs: 5000,
      breakers: this.plan ? [this.plan] : [],
    };
  }

  async probeResult(): Promise<void> {}

  async lease(): Promise<never> {
    throw new Error('faked: no leases');
  }
}

function setup() {
  const clock = new FakeClock(10_000);
  const controller = new FakedController();
  const recloser = createRecloser({
    instanceId: 'w-1',
    group: 'orders',
    region: 'eu-west',
    clock,
    rng: seededRng(1),
    transport: controller,
    autoStart: false,
  });
  const llm = recloser.breaker('llm');
  return { clock, controller, recloser, llm };
}

const labels = (credentialId: string) => ({
  region: 'eu-west',
  endpoint: 'eu-west-1',
  model: 'm',
  credentialId,
});

describe('SDK credential breakers (faked controller)', () => {
  it('401s on one credential mark that credential only: the dependency breaker stays closed, the others usable', async () => {
    const { recloser, llm, controller } = setup();
    for (let i = 0; i < 20; i++) {
      expect(llm.allow()).toBe(true);
      llm.record('auth', { latencyMs: 5, labels: labels('key-a') });
    }
    expect(llm.state).toBe('closed');
    expect(llm.credentialKnownBad('key-a')).toBe(true);
    expect(llm.credentialKnownBad('key-b')).toBe(false);
    expect(llm.pickCredential(['key-a', 'key-b'])).toBe('key-b');
    expect(llm.allowWith('key-a')).toBe(false);
    expect(llm.allowWith('key-b')).toBe(true);
    // the heartbeat reports a closed breaker; no label (let alone a secret) travels in it
    await recloser.tick();
    expect(controller.heartbeats[0]!.breakers[0]!.state).toBe('closed');
    expect(JSON.stringify(controller.heartbeats)).not.toContain('key-a');
  });

  it('a probe token is never spent on a credential known bad', async () => {
    const { recloser, llm, controller, clock } = setup();
    llm.record('auth', { labels: labels('key-a') });
    llm.record('auth', { labels: labels('key-a') });
    controller.set('probing', { probe: { token: 't-1', fencing: 1, validForMs: 5000 } });
    await recloser.tick();
    expect(llm.state).toBe('paused');
    expect(llm.allowWith('key-a')).toBe(false); // refused, the token kept
    expect(llm.allowWith('key-b')).toBe(true); // the probe goes out with a good credential
    expect(llm.allowWith('key-b')).toBe(false); // one probe per token
    // after the credential's cooldown a trial may use it again
    clock.advance(60_000);
    expect(llm.credentialKnownBad('key-a')).toBe(false);
  });
});
