// npm run demo: Recloser on the real stack in about 90 seconds. Starts the controller (against
// DATABASE_URL, default recloser_demo on the server of TEST_POSTGRES_URL, itself by default
// postgres://postgres@127.0.0.1:5432, created if missing; and REDIS_URL), 30 SDK workers calling
// a fake provider on loopback, an outage from t+15 s to t+40 s, and prints the timeline: the
// workers trip, the group opens by quorum, one prober tests the provider, the ramp steps up, the
// group closes. Stops by itself.
import { runLive } from './live/live.js';
import { TEST_POSTGRES_URL } from './live/testDatabase.js';

const DEMO_DATABASE_URL = `${TEST_POSTGRES_URL}/recloser_demo`;

console.log('Recloser demo: 30 workers, one provider, a 25 s outage. About 90 seconds; Ctrl-C stops it.\n');
runLive({
  instances: 30,
  seconds: 90,
  outageAtS: 15,
  outageForS: 25,
  databaseUrl: process.env.DATABASE_URL ?? DEMO_DATABASE_URL,
}).then(
  () => {
    console.log('\nWhat you saw: local breakers tripped on their own evidence, the group opened only once a');
    console.log(
      'quorum of live workers agreed, a single leased probe tested the provider (not 30 × 10 calls),',
    );
    console.log(
      'and traffic came back in steps gated on health. `npm run sim -- S1` shows the same at 500 workers.',
    );
  },
  (err: unknown) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
