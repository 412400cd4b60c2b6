// The SDK's telemetry with real OpenTelemetry providers registered by the "host application": what a
// worker's breaker does shows up as metrics and spans under the @recloser/client scope.
import { metrics, trace } from '@opentelemetry/api';
import { metrics as sdkMetrics, tracing } from '@opentelemetry/sdk-node';
import {
  FakeClock,
  seededRng,
  type BreakerPlan,
  type HeartbeatRequest,
  type HeartbeatResponse,
} from '@recloser/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../errors/Errors.js';
import { createRecloser } from '../Recloser.js';
import type { Transport } from '../transport/Transport.js';
import { INSTRUMENTATION_SCOPE } from './SdkTelemetry.js';

class TestReader extends sdkMetrics.MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** A controller that says the group is OPEN (so the breaker pauses calls), or is unreachable. */
class OpenGroupController implements Transport {
  down = false;
  async heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    if (this.down) throw new TransportError('unreachable', null);
    const plan = (dependency: string): BreakerPlan => ({
      dependency,
      breakerId: `b-${dependency}`,
      global: { state: 'open', epoch: 1, step: null, steps: 6, quorum: { open: 3, live: 4, threshold: 2 } },
      allowance: null,
      probe: null,
      fallback: null,
    });
    return {
      serverTime: new Date(0).toISOString(),
      heartbeatIntervalMs: 1000,
      leaseTtlMs: 5000,
      breakers: req.breakers.map((b) => plan(b.dependency)),
    };
  }
  async probeResult(): Promise<void> {}
  async lease(): Promise<never> {
    throw new TransportError('no leases', 429, 1000);
  }
}

const reader = new TestReader();
const spans = new tracing.InMemorySpanExporter();

beforeAll(() => {
  metrics.setGlobalMeterProvider(new sdkMetrics.MeterProvider({ readers: [reader] }));
  trace.setGlobalTracerProvider(
    new tracing.BasicTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(spans)] }),
  );
});

afterAll(() => {
  metrics.disable();
  trace.disable();
});

async function collected(): Promise<Map<string, { attributes: Record<string, unknown>; value: unknown }[]>> {
  const { resourceMetrics } = await reader.collect();
  const out = new Map<string, { attributes: Record<string, unknown>; value: unknown }[]>();
  for (const scope of resourceMetrics.scopeMetrics) {
    if (scope.scope.name !== INSTRUMENTATION_SCOPE) continue;
    for (const m of scope.metrics)
      out.set(
        m.descriptor.name,
        m.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })),
      );
  }
  return out;
}

describe('SDK telemetry through @opentelemetry/api', () => {
  it('records attempts by outcome, refusals by reason, local state, fallback, and heartbeat spans', async () => {
    const clock = new FakeClock(10_000);
    const controller = new OpenGroupController();
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
    await llm.execute(async () => 'ok');
    await expect(
      llm.execute(() => Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))),
    ).rejects.toThrow();
    clock.advance(1000);
    await recloser.tick(); // the group is OPEN from now on: calls are paused
    expect(llm.allow()).toBe(false);
    await expect(llm.execute(async () => 'ok')).rejects.toThrow(/paused/);
    clock.advance(1000);
    await recloser.tick();

    let m = await collected();
    expect(m.get('recloser.client.attempts')).toEqual(
      expect.arrayContaining([
        { attributes: { dependency: 'llm', outcome: 'success' }, value: 1 },
        { attributes: { dependency: 'llm', outcome: 'network' }, value: 1 },
      ]),
    );
    expect(m.get('recloser.client.rejections')).toEqual([
      { attributes: { dependency: 'llm', reason: 'paused' }, value: 2 },
    ]);
    const state = m.get('recloser.client.state')!;
    expect(state.find((p) => p.attributes.state === 'paused')?.value).toBe(1);
    expect(state.find((p) => p.attributes.state === 'closed')?.value).toBe(0);
    expect(m.get('recloser.client.fallback')).toEqual([{ attributes: { group: 'orders' }, value: 0 }]);

    controller.down = true;
    clock.advance(1000);
    await recloser.tick();
    m = await collected();
    expect(m.get('recloser.client.fallback')).toEqual([{ attributes: { group: 'orders' }, value: 1 }]);
    expect(m.get('recloser.client.fallbacks')).toEqual([{ attributes: { group: 'orders' }, value: 1 }]);
    expect(m.get('recloser.client.state')!.find((p) => p.attributes.state === 'fallback')?.value).toBe(1);

    const rounds = spans.getFinishedSpans().filter((s) => s.name === 'recloser.heartbeat');
    expect(rounds).toHaveLength(3);
    expect(rounds[0]!.attributes).toMatchObject({ 'recloser.group': 'orders', 'recloser.instance': 'w-1' });
    expect(rounds.map((s) => s.status.code)).toEqual([0, 0, 2]); // unset, unset, error
    await recloser.close();
  });
});
