// A worker as a user writes it in an ES module project that installed @recloser/client from its
// tarball. It calls the provider through recloser.fetch() every 50 ms and prints one JSON line per
// breaker state change, then a summary once it has been paused and has recovered (or its deadline).
import { createRecloser, isBreakerOpenError } from '@recloser/client';

const env = process.env;
const recloser = createRecloser({
  url: env.RECLOSER_URL,
  key: env.RECLOSER_FLEET_KEY,
  instanceId: env.INSTANCE_ID,
  group: env.GROUP,
  region: 'eu-west',
  heartbeatIntervalMs: 200,
});
const breaker = recloser.breaker(env.DEPENDENCY);
const seen = [];
breaker.onStateChange(({ from, to }) => {
  seen.push(to);
  console.log(JSON.stringify({ event: 'state', from, to, at: Date.now() }));
});
const tally = { ok: 0, failed: 0, refused: {}, okAfterRecovery: 0 };
const deadline = Date.now() + Number(env.DEADLINE_MS);
const recovered = () =>
  seen.includes('paused') && breaker.state === 'closed' && breaker.globalState === 'closed';
while (Date.now() < deadline && !(recovered() && tally.okAfterRecovery >= 10)) {
  try {
    const res = await recloser.fetch(env.DEPENDENCY, env.PROVIDER_URL, {
      headers: { 'x-instance-id': env.INSTANCE_ID },
    });
    await res.arrayBuffer();
    if (res.ok) {
      tally.ok += 1;
      if (recovered()) tally.okAfterRecovery += 1;
    } else tally.failed += 1;
  } catch (err) {
    if (!isBreakerOpenError(err)) throw err;
    tally.refused[err.reason] = (tally.refused[err.reason] ?? 0) + 1;
  }
  await new Promise((r) => setTimeout(r, 50));
}
await recloser.close({ graceMs: 2000 });
console.log(JSON.stringify({ event: 'summary', module: 'esm', seen, ...tally, recovered: recovered() }));
process.exit(recovered() ? 0 : 1);
