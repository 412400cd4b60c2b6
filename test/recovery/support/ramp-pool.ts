// The pool the in-process ramp tests recover through: one probe slot, two probes to pass, and a
// two-step ramp (half, then all) over 40 standard calls/s and 8 in flight, short dwell, small sample.
export function rampPool(dependency: string) {
  return {
    dependencies: [dependency],
    probe: { concurrency: 1, ratePerSec: 10, leaseTtlMs: 5000, cooldownMs: 100, probesToPass: 2 },
    capacity: { standard: { ratePerSec: 40, concurrency: 8 } },
    ramp: { steps: [0.5, 1.0], dwellMs: 300, minSample: 5, classOrder: ['standard'] },
  };
}
