import { createRequire } from 'node:module';
import { FakeClock, seededRng } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { isBreakerOpenError } from '../errors/Errors.js';
import { createRecloser } from '../Recloser.js';
import { FakedController } from '../transport/FakedController.test-support.js';
import { guardOpossum, type OpossumCircuit } from './opossum.js';

type Circuit = OpossumCircuit & {
  readonly closed: boolean;
  fire(...a: unknown[]): Promise<unknown>;
  shutdown(): void;
};
const Opossum = createRequire(import.meta.url)('opossum') as new (
  action: (...args: unknown[]) => Promise<unknown>,
  options: Record<string, unknown>,
) => Circuit;

function setup(resetTimeout = 60_000) {
  const controller = new FakedController();
  const recloser = createRecloser({
    instanceId: 'w-1',
    group: 'orders',
    region: 'eu-west',
    clock: new FakeClock(10_000),
    rng: seededRng(1),
    transport: controller,
    autoStart: false,
  });
  const calls: string[] = [];
  let failing = false;
  const circuit = new Opossum(
    async (arg: unknown) => {
      calls.push(String(arg));
      if (failing) throw Object.assign(new Error('provider answered 503'), { status: 503 });
      return `ok:${String(arg)}`;
    },
    { timeout: false, errorThresholdPercentage: 50, volumeThreshold: 2, resetTimeout },
  );
  const guarded = guardOpossum(recloser, 'llm', circuit);
  const fail = (on: boolean) => (failing = on);
  return { controller, recloser, circuit, guarded, calls, fail };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe('guardOpossum', () => {
  it("keeps opossum's local logic while the group is closed and reports its state as the verdict", async () => {
    const { controller, recloser, circuit, calls, fail } = setup();
    expect(await circuit.fire('a')).toBe('ok:a');
    fail(true);
    await circuit.fire('b').catch(() => undefined);
    await circuit.fire('c').catch(() => undefined);
    expect(circuit.opened).toBe(true); // opossum's own threshold, not Recloser's
    const rejected = await refusal(circuit.fire('d'));
    expect((rejected as { code?: string }).code).toBe('EOPENBREAKER');
    expect(calls).toEqual(['a', 'b', 'c']);
    await recloser.tick();
    const verdict = controller.heartbeats.at(-1)!.breakers[0]!;
    expect(verdict.state).toBe('open');
    expect(verdict.evidence).toMatchObject({ attempts: 3, successes: 1 });
    expect(verdict.evidence.byClass.overload).toBe(2);
    expect(recloser.breaker('llm').local.state).toBe('closed'); // Recloser's own never trips
    circuit.shutdown();
  });

  it('holds the circuit open while the group is OPEN, through its own reset timer, without calling', async () => {
    const { controller, recloser, circuit, calls } = setup(50);
    controller.setPlan('llm', 'open');
    await recloser.tick();
    expect(circuit.opened).toBe(true);
    await new Promise((r) => setTimeout(r, 120)); // past opossum's resetTimeout
    expect(circuit.opened && !circuit.halfOpen).toBe(true);
    const refused = await refusal(circuit.fire('x'));
    expect(isBreakerOpenError(refused) && refused.reason).toBe('paused');
    expect(calls).toEqual([]);
    await recloser.tick();
    expect(controller.lastReported('llm')).toBe('paused');
    circuit.shutdown();
  });

  it('lets exactly the probe through while PROBING, reports its result, and holds the circuit again', async () => {
    const { controller, recloser, circuit, calls } = setup();
    controller.setPlan('llm', 'open');
    await recloser.tick();
    controller.setPlan('llm', 'probing', { probeToken: 'tok-1' });
    await recloser.tick();
    const [probe, other] = await Promise.all([circuit.fire('probe'), refusal(circuit.fire('other'))]);
    expect(probe).toBe('ok:probe');
    expect(isBreakerOpenError(other)).toBe(true);
    expect(calls).toEqual(['probe']);
    await recloser.flush();
    expect(controller.probeResults).toEqual([
      { token: 'tok-1', body: expect.objectContaining({ outcome: 'success' }) },
    ]);
    expect(circuit.opened).toBe(true); // still probing: held again
    circuit.shutdown();
  });

  it('closes the circuit when the group ramps, admits within the allowance, and restores fire() on dispose', async () => {
    const { controller, recloser, circuit, guarded, calls } = setup();
    controller.setPlan('llm', 'open');
    await recloser.tick();
    controller.setPlan('llm', 'ramping', {
      allowance: { standard: { ratePerSec: 0.001, burst: 2, concurrency: 5 } },
    });
    await recloser.tick();
    expect(circuit.closed).toBe(true);
    const results = await Promise.all([1, 2, 3, 4].map((i) => refusal(circuit.fire(i))));
    expect(results.filter((r) => r === null)).toHaveLength(2); // the burst of two went through
    expect(calls).toHaveLength(2); // the rest refused by the allowance, never called
    expect(results.filter((r) => isBreakerOpenError(r) && r.reason === 'rate')).toHaveLength(2);
    guarded.dispose();
    await circuit.fire('free');
    expect(calls).toHaveLength(3);
    circuit.shutdown();
  });
});
