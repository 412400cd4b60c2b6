// The sidecar as the bench runs it: its own process (as beside a worker), the real Sidecar and
// SDK, and a controller that answers every heartbeat with an empty plan (a CLOSED group) from
// memory, because this bench measures the proxy's hop, not the controller. Prints its URL.
import type { HeartbeatRequest, HeartbeatResponse } from '@recloser/core';
import { createRecloser, TransportError, type Transport } from '@recloser/client';
import { Sidecar } from '@recloser/sidecar';

/** Every group CLOSED, no probes: the steady state the sidecar spends its life in. */
const inMemoryClosedPlanController: Transport = {
  heartbeat: async (_req: HeartbeatRequest): Promise<HeartbeatResponse> => ({
    serverTime: new Date().toISOString(),
    heartbeatIntervalMs: 1_000,
    leaseTtlMs: 5_000,
    breakers: [],
  }),
  probeResult: async () => undefined,
  lease: async () => {
    throw new TransportError('the bench grants no probes', 429, 1_000);
  },
};

const upstream = process.argv[2]!;
const config = {
  controller: { url: 'http://127.0.0.1:1', key: 'unused' },
  instanceId: 'bench-sidecar',
  group: 'bench',
  region: 'local',
  listen: { host: '127.0.0.1', port: 0 },
  dependencies: { upstream: { upstream } },
  maxBodyBytes: 1024 * 1024,
  shutdownGraceMs: 0,
};
const recloser = createRecloser({
  instanceId: config.instanceId,
  group: config.group,
  region: config.region,
  transport: inMemoryClosedPlanController,
});
const sidecar = new Sidecar(config, { recloser });
const url = await sidecar.listen();
process.stdout.write(`${url}\n`);
process.on('SIGTERM', () => {
  void sidecar.close().then(() => recloser.close().then(() => process.exit(0)));
});
