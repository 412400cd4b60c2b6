// The same worker in a CommonJS project: require('@recloser/client') (Node.js >= 20.19 loads the
// package's ES module through require()).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS project is the point of this worker
const { createRecloser, isBreakerOpenError } = require('@recloser/client');

const env = process.env;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
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
      const res = await breaker.execute((signal) =>
        fetch(env.PROVIDER_URL, { headers: { 'x-instance-id': env.INSTANCE_ID }, signal }),
      );
      await res.arrayBuffer();
      if (res.ok) {
        tally.ok += 1;
        if (recovered()) tally.okAfterRecovery += 1;
      } else tally.failed += 1;
    } catch (err) {
      if (!isBreakerOpenError(err)) throw err;
      tally.refused[err.reason] = (tally.refused[err.reason] || 0) + 1;
    }
    await sleep(50);
  }
  await recloser.close({ graceMs: 2000 });
  console.log(JSON.stringify({ event: 'summary', module: 'cjs', seen, ...tally, recovered: recovered() }));
  process.exit(recovered() ? 0 : 1);
}
main().catch((err) => {
  console.error(err);
  process.exit(2);
});
