// Which cases of the controller bench BENCH_CASES selects, and how it counts a process tree's CPU
// time (the bench itself runs with `npm run bench`).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CASES, cpuMs, selectedCases } from './controller-throughput.js';

describe('selectedCases', () => {
  it('selects every case when BENCH_CASES is unset or blank', () => {
    expect([...selectedCases(undefined)]).toEqual([...CASES]);
    expect([...selectedCases(' , ')]).toEqual([...CASES]);
  });

  it('selects only the named cases', () => {
    expect([...selectedCases('closed-1000, ramping')]).toEqual(['closed-1000', 'ramping']);
  });

  it('refuses an unknown case, naming it and the variable', () => {
    expect(() => selectedCases('closed-1000,rampin')).toThrow(/BENCH_CASES: unknown case "rampin"/);
  });
});

describe('cpuMs', () => {
  it.skipIf(process.platform !== 'linux')(
    "keeps a child's CPU time after the child exits (its parent reaped it), so the sum never falls",
    () => {
      const self = { pids: [process.pid] };
      const before = cpuMs(self);
      // a child that burns 400 ms of CPU (its own count, however busy the machine) and exits;
      // execFileSync waits for it, so this process reaps it
      execFileSync(process.execPath, ['-e', 'while (process.cpuUsage().user < 400_000);']);
      const after = cpuMs(self);
      // its 400 ms count here, less a clock tick's rounding (this process's own time only adds)
      expect(after - before).toBeGreaterThanOrEqual(390);
    },
  );
});
