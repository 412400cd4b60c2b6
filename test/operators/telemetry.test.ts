// OpenTelemetry of a real controller process (telemetry started by main.ts before the app): the
// domain metrics on /metrics change while an outage plays, and traces reach an OTLP collector on
// loopback when OTEL_EXPORTER_OTLP_ENDPOINT is set (http/json here, so the test can read them).
/* eslint-disable @typescript-eslint/no-explicit-any -- OTLP and response bodies are JSON of any shape */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, startReplicas, type ReplicaSet } from '../recovery/support/replicas.js';
import { verdict, sleep } from '../support/fleet.js';

let set: ReplicaSet;
let collector: Server;
const spans: any[] = [];

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        for (const rs of JSON.parse(body).resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? []) spans.push({ scope: ss.scope?.name, ...s });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const port = (collector.address() as { port: number }).port;
  set = await startReplicas(1, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  });
});

afterAll(async () => {
  await set?.stop();
  await new Promise<void>((r) => collector?.close(() => r()));
});

/** metric name{labels} value → value, for the samples whose line contains every `parts` */
function sample(text: string, name: string, ...parts: string[]): number | undefined {
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(`${name}{`) || l.startsWith(`${name} `) ? parts.every((p) => l.includes(p)) : false,
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('telemetry of a controller process', () => {
  it('/metrics shows the domain metrics changing during an outage; traces go to the OTLP endpoint', async () => {
    const base = set.replicas[0]!.url;
    const group = 'otel-group';
    const dependency = 'otel-dep';
    const key = (
      await call(base, 'POST', '/v1/admin/fleet-keys', { name: 'otel', groups: [group] }, ADMIN_TOKEN)
    ).json.key;
    const scrape = async () => {
      const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const beat = (state: string) =>
      Promise.all(
        ['a', 'b', 'c', 'd'].map((instanceId) =>
          call(
            base,
            'POST',
            '/v1/heartbeats',
            { instanceId, group, region: 'eu-west', breakers: [verdict(dependency, state)] },
            key,
          ),
        ),
      );
    const labels = `dependency="${dependency}"`;

    await beat('closed');
    const before = await scrape();
    expect(sample(before, 'recloser_breaker_state', labels)).toBe(0);
    expect(sample(before, 'recloser_breaker_open_instances', labels)).toBe(0);
    expect(sample(before, 'recloser_breaker_live_instances', labels)).toBe(4);
    expect(sample(before, 'recloser_breaker_quorum_threshold', labels)).toBe(2);

    // the gauges read Postgres at scrape time; the transition counter counts the event once the
    // outbox relays it, just after the commit: wait for both, a bounded number of times
    const opened = (text: string) =>
      sample(text, 'recloser_breaker_state', labels) === 1 &&
      sample(text, 'recloser_transitions_total', 'from="closed"', 'to="open"') !== undefined;
    let during = before;
    for (let i = 0; i < 40 && !opened(during); i++) {
      await beat('open');
      await sleep(150);
      during = await scrape();
    }
    expect(sample(during, 'recloser_breaker_state', labels)).toBe(1);
    expect(sample(during, 'recloser_breakers', 'state="open"')).toBe(1);
    expect(sample(during, 'recloser_breaker_open_instances', labels)).toBe(4);
    expect(sample(during, 'recloser_transitions_total', 'from="closed"', 'to="open"')).toBe(1);
    expect(
      sample(during, 'recloser_heartbeat_duration_count') ??
        sample(during, 'recloser_heartbeat_duration_milliseconds_count'),
    ).toBeGreaterThanOrEqual(8);

    // a probe lease while cooling down is refused (429) and counted by reason
    const lease = await call(base, 'POST', '/v1/probes/lease', { instanceId: 'a', group, dependency }, key);
    expect(lease.status).toBe(429);
    const after = await scrape();
    expect(sample(after, 'recloser_probe_tokens_total', 'outcome="denied"', 'reason="retry_later"')).toBe(1);
    const names = new Set([...after.matchAll(/^# TYPE (recloser_\w+)/gm)].map((m) => m[1]));
    for (const n of [
      'recloser_breakers',
      'recloser_breaker_state',
      'recloser_breaker_live_instances',
      'recloser_breaker_open_instances',
      'recloser_breaker_quorum_threshold',
      'recloser_isolated_instances',
      'recloser_probe_tokens_total',
      'recloser_heartbeats_total',
    ])
      expect(names, n).toContain(n);

    // traces: the server spans of the heartbeats, with pg (and ioredis) spans beneath them
    for (let i = 0; i < 50 && !spans.some((s) => s.scope?.includes('pg')); i++) await sleep(100);
    const scopes = new Set(spans.map((s) => s.scope));
    expect([...scopes].some((s) => s?.includes('instrumentation-http'))).toBe(true);
    expect([...scopes].some((s) => s?.includes('instrumentation-pg'))).toBe(true);
    const server = spans.find((s) => s.kind === 2 && s.scope?.includes('http'));
    expect(server).toBeDefined();
    expect(spans.some((s) => s.traceId === server.traceId && s.scope?.includes('pg'))).toBe(true);
    // named after the matched route, not the URL
    const heartbeatSpan = spans.find((s) => s.name === 'POST /v1/heartbeats');
    expect(heartbeatSpan).toBeDefined();
    expect(heartbeatSpan.attributes).toEqual(
      expect.arrayContaining([{ key: 'http.route', value: { stringValue: '/v1/heartbeats' } }]),
    );
    expect(spans.some((s) => s.traceId === heartbeatSpan.traceId && s.scope?.includes('ioredis'))).toBe(true);
  });
});
