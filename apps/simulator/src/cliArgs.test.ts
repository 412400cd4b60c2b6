import { describe, expect, it } from 'vitest';
import { parseArgs } from './cliArgs.js';

describe('parseArgs', () => {
  it('reads the scenario and its options', () => {
    expect(
      parseArgs(['S1', '--instances', '500', '--seed', '7', '--json', 'out.json', '--chart', 'c.svg']),
    ).toEqual({
      command: 'S1',
      instances: 500,
      seed: 7,
      json: 'out.json',
      chart: 'c.svg',
    });
  });

  it('names the flag and the reason for bad input', () => {
    expect(() => parseArgs(['S1', '--instances', '0'])).toThrow(
      '--instances must be an integer in [1, 5000]',
    );
    expect(() => parseArgs(['S1', '--instances', '9000'])).toThrow(
      '--instances must be an integer in [1, 5000]',
    );
    expect(() => parseArgs(['S1', '--json'])).toThrow('--json needs a value');
    expect(() => parseArgs(['S1', '--bogus'])).toThrow('unknown option --bogus');
  });

  it('reads the provider model, outage length and recovered capacity, and --help', () => {
    expect(
      parseArgs(['S2', '--provider', 'collapse', '--outage-s', '45', '--capacity', '0.2', '--seed', '3']),
    ).toEqual({ command: 'S2', provider: 'collapse', outageS: 45, capacity: 0.2, seed: 3 });
    expect(parseArgs(['--help']).command).toBe('help');
    expect(parseArgs(['S1', '--help']).command).toBe('help');
    expect(() => parseArgs(['S1', '--provider', 'flaky'])).toThrow(
      '--provider must be one of simple, collapse',
    );
    expect(() => parseArgs(['S1', '--capacity', '0'])).toThrow('--capacity must be a fraction in (0, 1]');
  });

  it('reads recloser’s pool settings, validated as a pool body', () => {
    expect(parseArgs(['S2', '--pool', '{"ramp":{"shedsCleanly":true}}']).pool).toEqual({
      ramp: { shedsCleanly: true },
    });
    expect(() => parseArgs(['S2', '--pool', '{"ramp":{"growth":20}}'])).toThrow(
      '--pool: ramp.growth must be in (1, 10]',
    );
  });
});
