// @recloser/nestjs in a NestJS worker app against the real controller (in-process, real Postgres
// and Redis, over HTTP): the module's wiring (forRoot, forRootAsync with an injected factory,
// forFeature), a breaker injected per dependency, and a clean shutdown: app.close() lets the probe
// this instance is making finish and report (the controller takes the result, releasing the token,
// and leaves PROBING on it), and no heartbeat leaves after close.
/* eslint-disable @typescript-eslint/no-explicit-any -- admin response bodies are JSON of any shape */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Inject,
  Injectable,
  Module,
  type INestApplicationContext,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Recloser, type Breaker } from '@recloser/client';
import { InjectBreaker, InjectRecloser, RecloserModule } from '@recloser/nestjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const INTERVAL_MS = 200;

let t: TestApp;
let baseUrl: string;
let key: string;
const group = `nest-workers-${randomSuffix()}`;

/** A loopback provider that is down (503 at once) or slow (200 after `slowMs`); it logs every call. */
interface SlowProvider {
  url: string;
  mode: 'down' | 'slow';
  calls: { at: number; doneAt: number | null; status: number }[];
  close(): Promise<void>;
}

async function startSlowProvider(slowMs: number): Promise<SlowProvider> {
  const p: SlowProvider = { url: '', mode: 'down', calls: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    req.resume();
    const call = { at: Date.now(), doneAt: null as number | null, status: p.mode === 'down' ? 503 : 200 };
    p.calls.push(call);
    const answer = () => {
      call.doneAt = Date.now();
      res.writeHead(call.status).end();
    };
    if (p.mode === 'down') answer();
    else setTimeout(answer, slowMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  p.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  p.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return p;
}

beforeAll(async () => {
  t = await bootTestApp({
    RECLOSER_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
    RECLOSER_HEARTBEAT_TTL_MS: '1000',
  });
  baseUrl = await t.listen();
  ({ key } = await createFleetKey(t, [group]));
  // one worker is enough to open its group
  const quorum = await t.admin('PUT', `/v1/admin/groups/${group}/quorum`, { fraction: 0.5, minOpen: 1 });
  expect(quorum.status).toBe(200);
});

afterAll(async () => {
  await t?.close();
});

async function overviewBreaker(dependency: string): Promise<any> {
  const { body } = await t.admin('GET', '/v1/admin/overview');
  return (
    body.breakers.find((b: any) => b.group === group && b.dependency === dependency) ?? { state: 'unknown' }
  );
}

async function lastSeen(breakerId: string, instanceId: string): Promise<string | null> {
  const { body } = await t.admin('GET', `/v1/admin/breakers/${breakerId}`);
  return body.instances.find((i: any) => i.instanceId === instanceId)?.lastSeenAt ?? null;
}

// ---- a worker app as a team writes it ---------------------------------------------------------

class Settings {
  constructor(
    readonly url: string,
    readonly key: string,
  ) {}
}

@Module({})
class SettingsModule {
  static with(settings: Settings) {
    return {
      module: SettingsModule,
      providers: [{ provide: Settings, useValue: settings }],
      exports: [Settings],
    };
  }
}

@Injectable()
class LedgerClient {
  constructor(@InjectBreaker('wiring-ledger') readonly ledger: Breaker) {}
}

@Module({
  imports: [RecloserModule.forFeature(['wiring-ledger'])],
  providers: [LedgerClient],
  exports: [LedgerClient],
})
class LedgerModule {}

@Injectable()
class Summarizer {
  constructor(
    @InjectBreaker('wiring-llm') readonly llm: Breaker,
    @InjectRecloser() readonly viaDecorator: Recloser,
    readonly recloser: Recloser,
  ) {}
}

const PROBE_DEP = 'shutdown-llm';
const PROVIDER_URL = Symbol('provider url');

/** Calls the provider every 50 ms through the injected breaker, as a queue consumer would. */
@Injectable()
class CallLoop implements OnApplicationBootstrap, OnModuleDestroy {
  private running = true;
  refused = 0;

  constructor(
    @InjectBreaker(PROBE_DEP) readonly llm: Breaker,
    @Inject(PROVIDER_URL) private readonly url: string,
  ) {}

  onApplicationBootstrap(): void {
    // not awaited by the app: it ends once running is false (the call in flight finishes first)
    void (async () => {
      for (let n = 0; this.running && n < 2000; n++) {
        await this.llm.fetch(this.url).then(
          (res) => res.arrayBuffer(),
          () => (this.refused += 1),
        );
        await sleep(50);
      }
    })();
  }

  /** stops starting calls; a call in flight (the probe) carries on */
  onModuleDestroy(): void {
    this.running = false;
  }
}

describe('RecloserModule in a NestJS worker app', () => {
  let app: INestApplicationContext | null = null;

  it('forRootAsync + forFeature: the Recloser and a breaker per dependency are injected, heartbeats flow, none after close', async () => {
    @Module({
      imports: [
        RecloserModule.forRootAsync({
          imports: [SettingsModule.with(new Settings(baseUrl, key))],
          inject: [Settings],
          useFactory: (s: Settings) => ({
            url: s.url,
            key: s.key,
            instanceId: 'nest-wiring',
            group,
            region: 'eu-west',
            heartbeatIntervalMs: INTERVAL_MS,
          }),
          breakers: ['wiring-llm'],
        }),
        LedgerModule,
      ],
      providers: [Summarizer],
    })
    class WorkerModule {}

    app = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
    const summarizer = app.get(Summarizer);
    const recloser = app.get(Recloser);
    expect(summarizer.recloser).toBe(recloser);
    expect(summarizer.viaDecorator).toBe(recloser);
    expect(recloser.instanceId).toBe('nest-wiring');
    expect(summarizer.llm).toBe(recloser.breaker('wiring-llm'));
    expect(app.get(LedgerClient).ledger).toBe(recloser.breaker('wiring-ledger'));
    expect(recloser.dependencies.sort()).toEqual(['wiring-ledger', 'wiring-llm']);

    const listed = await pollUntil(
      () => overviewBreaker('wiring-llm'),
      (b) => b.live === 1,
      {
        attempts: 50,
        everyMs: 100,
      },
    );
    expect(listed.live).toBe(1);

    await app.close();
    app = null;
    // a heartbeat answered before close may still be written behind (the controller buffers
    // routine ones for a few ms): read the row once that is over
    await sleep(INTERVAL_MS);
    const seenAtClose = await lastSeen(listed.breakerId, 'nest-wiring');
    expect(seenAtClose).not.toBeNull();
    await sleep(4 * INTERVAL_MS);
    expect(await lastSeen(listed.breakerId, 'nest-wiring')).toBe(seenAtClose);
  });

  it('forRoot: on app.close() the probe in flight finishes and reports (token released), then heartbeats stop', async () => {
    const provider = await startSlowProvider(800);
    await t.admin('PUT', '/v1/admin/pools/nest-shutdown-pool', {
      dependencies: [PROBE_DEP],
      probe: { concurrency: 1, ratePerSec: 1, leaseTtlMs: 10_000, cooldownMs: 600, probesToPass: 1 },
      capacity: { standard: { ratePerSec: 50, concurrency: 10 } },
      ramp: {
        steps: [0.5, 1.0],
        dwellMs: 60_000,
        minSample: 1,
        classOrder: ['standard'],
        gates: {
          minSuccessRate: 0.5,
          maxLatencyP95Ms: 5000,
          maxTtftP95Ms: 5000,
          maxQueueAgeMs: 5000,
          max429Rate: 0.5,
        },
      },
    });

    @Module({
      imports: [
        RecloserModule.forRoot({
          url: baseUrl,
          key,
          instanceId: 'nest-prober',
          group,
          region: 'eu-west',
          heartbeatIntervalMs: INTERVAL_MS,
          shutdownGraceMs: 5_000,
          breakers: { [PROBE_DEP]: { local: { consecutiveTicks: 2 } } },
        }),
      ],
      providers: [CallLoop, { provide: PROVIDER_URL, useValue: provider.url }],
    })
    class ProberModule {}

    try {
      app = await NestFactory.createApplicationContext(ProberModule, { logger: false });
      const loop = app.get(CallLoop);
      // the provider is down: the worker's breaker opens, and with it the group (quorum of one)
      const opened = await pollUntil(
        () => overviewBreaker(PROBE_DEP),
        (b) => b.state === 'open',
        {
          attempts: 150,
          everyMs: 100,
        },
      );
      expect(opened.state).toBe('open');
      await pollUntil(
        async () => loop.llm.state,
        (s) => s === 'paused',
        { attempts: 20, everyMs: 50 },
      );
      // the loop may be in its 50 ms pause when the state turns: its next call is the one refused
      expect(
        await pollUntil(
          async () => loop.refused,
          (n) => n > 0,
          { attempts: 40, everyMs: 50 },
        ),
      ).toBeGreaterThan(0);

      // the provider answers again, slowly: after the cooldown this instance gets the token and probes
      provider.mode = 'slow';
      const slowFrom = provider.calls.length;
      await pollUntil(
        async () => provider.calls.length,
        (n) => n > slowFrom,
        { attempts: 100, everyMs: 20 },
      );
      const probe = provider.calls[slowFrom];
      expect(probe).toBeDefined();
      expect(probe!.doneAt).toBeNull(); // in flight

      const closeStarted = Date.now();
      await app.close();
      app = null;
      const closedAt = Date.now();
      // close waited for the probe, and its result reached the controller before close returned
      expect(probe!.doneAt).not.toBeNull();
      expect(probe!.doneAt!).toBeLessThanOrEqual(closedAt);
      expect(closedAt - closeStarted).toBeLessThan(5_000);
      const { body } = await t.admin('GET', `/v1/admin/transitions?breakerId=${opened.breakerId}`);
      const fromProbing = body.transitions.filter((tr: any) => tr.from === 'probing' && tr.actor === 'probe');
      expect(fromProbing.map((tr: any) => tr.to)).toContain('ramping');
      // nobody calls after close, and no heartbeat leaves
      const callsAtClose = provider.calls.length;
      await sleep(INTERVAL_MS); // past any write-behind of a heartbeat answered before close
      const seenAtClose = await lastSeen(opened.breakerId, 'nest-prober');
      await sleep(4 * INTERVAL_MS);
      expect(provider.calls.length).toBe(callsAtClose);
      expect(await lastSeen(opened.breakerId, 'nest-prober')).toBe(seenAtClose);
    } finally {
      await app?.close();
      app = null;
      await provider.close();
    }
  });
});
