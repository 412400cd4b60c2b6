// S3: one of 200 instances has a broken host (every call fails inside it); the provider is healthy.
import { DEFAULT_PROVIDER } from '../provider/Provider.js';
import { DEFAULT_WORKLOAD } from '../workload/Worker.js';
import { providerFor, type Scenario } from './Scenario.js';

const instances = 200;

export const S3: Scenario = {
  id: 'S3',
  title: 'one of 200 instances has a broken host (100 % failures from inside it)',
  mustHold:
    'its breaker opens, the group stays CLOSED, a bad-node alert fires, its work is done by the others',
  params: {
    instances,
    regions: ['eu-west', 'us-east', 'ap-south'],
    durationMs: 180_000,
    outage: null,
    brokenHosts: 1,
    provider: providerFor(instances, DEFAULT_WORKLOAD.demandPerSec, DEFAULT_PROVIDER),
    workload: DEFAULT_WORKLOAD,
  },
};
