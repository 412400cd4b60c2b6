// `npm run bench`: runs every benchmark suite in sequence. Each suite exports `run(): Promise<void>`
// and prints its own table. Name suites on the command line to run only those.
import { run as controllerThroughput } from './controller-throughput.js';
import { run as sdkOverhead } from './sdk-overhead.js';
import { run as sidecarLatency } from './sidecar-latency.js';
import { run as receiptsSigning } from './receipts-signing.js';

const suites: { name: string; run: () => Promise<void> }[] = [
  { name: 'sdk-overhead', run: sdkOverhead },
  { name: 'controller-throughput', run: controllerThroughput },
  { name: 'sidecar-latency', run: sidecarLatency },
  { name: 'receipts-signing', run: receiptsSigning },
];

const wanted = process.argv.slice(2);
for (const suite of suites) {
  if (wanted.length > 0 && !wanted.includes(suite.name)) continue;
  console.log(`\n# bench: ${suite.name}`);
  await suite.run();
}
