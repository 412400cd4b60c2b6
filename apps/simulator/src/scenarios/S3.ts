// S3: one of 200 instances has a broken host (every call fails inside it); the provider is healthy.
import { fleetParams, type Scenario } from './Scenario.js';

export const S3: Scenario = {
  id: 'S3',
  title: 'one of 200 instances has a broken host (100 % failures from inside it)',
  mustHold:
    'its breaker opens, the group stays CLOSED, a bad-node alert fires, its work is done by the others',
  params: fleetParams(200, {
    durationMs: 180_000,
    outage: null,
    brokenHosts: 1,
  }),
};
