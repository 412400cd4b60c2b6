// The pool body of docs/api.md's `PUT /v1/admin/pools/{id}` example, valid as written: core validation
// and the admin API are tested against the same body.
export const API_EXAMPLE_POOL = {
  dependencies: ['llm-provider'],
  probe: { concurrency: 2, ratePerSec: 1, leaseTtlMs: 5000, cooldownMs: 30000 },
  capacity: {
    standard: { ratePerSec: 500, concurrency: 200 },
    long_context: { ratePerSec: 20, concurrency: 10 },
  },
  ramp: {
    steps: [0.01, 0.05, 0.1, 0.25, 0.5, 1.0],
    dwellMs: 10000,
    classOrder: ['standard', 'long_context'],
    gates: {
      minSuccessRate: 0.95,
      maxLatencyP95Ms: 2000,
      maxTtftP95Ms: 1500,
      maxQueueAgeMs: 5000,
      max429Rate: 0.02,
    },
  },
  fallback: { ratePerSec: 0.2, ownersPerRegion: 2, regionWeights: { 'eu-west': 1, 'us-east': 1 } },
};
