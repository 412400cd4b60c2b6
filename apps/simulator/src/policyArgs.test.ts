import { describe, expect, it } from 'vitest';
import { parsePolicyArgs, parseSeeds } from './policyArgs.js';

describe('npm run policy arguments', () => {
  it('defaults to seed 7, both scenarios and provider models, every strategy, one job', () => {
    expect(parsePolicyArgs([])).toEqual({
      help: false,
      seeds: [7],
      scenarios: ['S1', 'S2'],
      providers: ['simple', 'collapse'],
      oracle: false,
      jobs: 1,
    });
  });

  it('reads seed lists and ranges, ascending without repeats', () => {
    expect(parseSeeds('1,3,7')).toEqual([1, 3, 7]);
    expect(parseSeeds('2,4-6,8-10')).toEqual([2, 4, 5, 6, 8, 9, 10]);
    expect(parseSeeds('3,1-3')).toEqual([1, 2, 3]);
  });

  it('reads the filters, jobs and outputs', () => {
    expect(
      parsePolicyArgs([
        '--seeds',
        '1-3',
        '--strategies',
        'recloser,naive',
        '--scenarios',
        'S2',
        '--providers',
        'collapse',
        '--jobs',
        '4',
        '--seconds',
        '120',
        '--oracle',
        '--markdown',
        'p.md',
        '--json',
        'p.json',
        '--chart',
        'p.svg',
        '--shortfall-chart',
        'lost.svg',
        '--baseline',
        'before.json',
      ]),
    ).toEqual({
      help: false,
      seeds: [1, 2, 3],
      strategies: ['recloser', 'naive'],
      scenarios: ['S2'],
      providers: ['collapse'],
      oracle: true,
      jobs: 4,
      seconds: 120,
      markdown: 'p.md',
      json: 'p.json',
      chart: 'p.svg',
      shortfallChart: 'lost.svg',
      baseline: 'before.json',
    });
    expect(parsePolicyArgs(['--help']).help).toBe(true);
  });

  it('reads --from, and refuses beside it what would shape a simulation it does not run', () => {
    expect(parsePolicyArgs(['--from', 'runs.json', '--seeds', '1,3,7', '--markdown', 'p.md'])).toMatchObject({
      from: 'runs.json',
      seeds: [1, 3, 7],
      markdown: 'p.md',
    });
    expect(() => parsePolicyArgs(['--from', 'runs.json', '--oracle'])).toThrow(
      '--oracle: not with --from (its runs are read, not simulated)',
    );
    expect(() => parsePolicyArgs(['--from', 'runs.json', '--pool', '{"ramp":{"growth":3}}'])).toThrow(
      '--pool: not with --from',
    );
    expect(() => parsePolicyArgs(['--from', 'runs.json', '--strategies', 'recloser'])).toThrow(
      '--strategies: not with --from',
    );
  });

  it('names the flag and the reason for bad input', () => {
    expect(() => parsePolicyArgs(['--seeds', '5-2'])).toThrow('--seeds: "5-2" is not a seed');
    expect(() => parsePolicyArgs(['--seeds', 'x'])).toThrow('--seeds: "x" is not a seed');
    expect(() => parsePolicyArgs(['--seeds', '0-5000'])).toThrow('a range a-b of at most 1000');
    expect(() => parsePolicyArgs(['--strategies', 'naive'])).toThrow('--strategies must include recloser');
    expect(() => parsePolicyArgs(['--scenarios', 'S3'])).toThrow('--scenarios: "S3" is not one of S1, S2');
    expect(() => parsePolicyArgs(['--providers', 'flaky'])).toThrow(
      '--providers: "flaky" is not one of simple, collapse',
    );
    expect(() => parsePolicyArgs(['--jobs', '0'])).toThrow('--jobs must be an integer in [1, 64]');
    expect(() => parsePolicyArgs(['--seconds', '1.5'])).toThrow('--seconds must be an integer in [1, 3600]');
    expect(() => parsePolicyArgs(['--json'])).toThrow('--json needs a value');
    expect(() => parsePolicyArgs(['--baseline'])).toThrow('--baseline needs a value');
    expect(() => parsePolicyArgs(['--chart'])).toThrow('--chart needs a value');
    expect(() => parsePolicyArgs(['--bogus'])).toThrow('unknown option --bogus');
    expect(() => parsePolicyArgs(['--pool', '{"capacity":{}}'])).toThrow(
      '--pool: capacity cannot be set (only probe and ramp: the capacity is sized to the provider)',
    );
  });

  it('reads recloser’s pool settings', () => {
    expect(parsePolicyArgs(['--pool', '{"probe":{"intervalMs":500}}']).pool).toEqual({
      probe: { intervalMs: 500 },
    });
  });
});
