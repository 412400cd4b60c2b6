// README quick start: the opossum and cockatiel adapters (run by test/integrations/packed-workers.test.ts).
import { createRecloser } from '@recloser/client';
import { guardCockatiel } from '@recloser/client/cockatiel';
import { guardOpossum } from '@recloser/client/opossum';
import { circuitBreaker, ConsecutiveBreaker, handleAll } from 'cockatiel';
import CircuitBreaker from 'opossum';

const recloser = createRecloser({
  url: process.env.RECLOSER_URL,
  key: process.env.RECLOSER_FLEET_KEY,
  instanceId: process.env.INSTANCE_ID ?? 'worker-1',
  group: process.env.GROUP ?? 'orders-consumer',
  region: 'eu-west',
});
const provider = process.env.PROVIDER_URL;

// opossum: its options and local logic stay; circuit.fire() now also obeys the group's plan
const circuit = new CircuitBreaker(
  async (path) => {
    const res = await fetch(`${provider}${path}`);
    if (!res.ok) throw Object.assign(new Error(`status ${res.status}`), { status: res.status });
    return res.status;
  },
  { timeout: 3000, errorThresholdPercentage: 50, resetTimeout: 30_000 },
);
guardOpossum(recloser, 'llm-provider', circuit);

// cockatiel: the same for policy.execute()
const policy = circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) });
guardCockatiel(recloser, 'payments', policy);

const opossum = await circuit.fire('/v1/chat');
const cockatiel = await policy.execute(
  async ({ signal }) => (await fetch(`${provider}/v1/pay`, { signal })).status,
);
await recloser.tick(); // one heartbeat now, carrying both verdicts (the ticker would send it within a second)
await recloser.close();
circuit.shutdown();
console.log(JSON.stringify({ quickstart: 'adapters', opossum, cockatiel }));
