// `npm run policy`'s arguments; bad input names the flag and the reason.
import { eachFlag } from './flags.js';
import { PROVIDER_MODELS, type ProviderModel } from './provider/Provider.js';
import { parsePoolSettings, type PoolSettings } from './scenarios/poolSettings.js';

export const POLICY_USAGE = `usage: npm run policy -- [options]

Issue 13's matrix: S1 with 45, 60 and 75 s outages and S2 with the provider back at 10, 20 and 35 %,
on both provider models; per run every strategy's accepted share of servable, recloser's re-trips,
max attempts / servable and budget overruns, whether the run meets the issue's bar, and a summary.

  --seeds LIST         seeds, e.g. 1,3,7 or 1-13 or 2,4-6 (default 7)
  --strategies a,b     only these (must include recloser; default: naive, jittered, sre-throttle,
                       aws-adaptive, recloser). Without the peers their criterion is not judged.
  --scenarios S1,S2    only these scenarios (default both)
  --providers a,b      only these provider models: simple, collapse (default both)
  --oracle             add the best of oracle-90 … -99 (a fixed share read off the provider) per run
  --jobs N             run N simulations side by side in worker threads (default 1)
  --seconds N          simulate N seconds instead of each scenario's 600 (a quicker, rougher look)
  --pool JSON          recloser's probe and ramp settings over the defaults, validated as a pool
                       body, e.g. '{"ramp":{"shedsCleanly":true}}' (the capacity is the provider's)
  --markdown FILE      the tables as Markdown
  --json FILE          the figures of every run
  --chart FILE         an SVG of every run: recloser's share of servable beside the best peer's
                       (and the oracle's), by cell, against the bar's 95 %
  --shortfall-chart FILE  an SVG of when recloser lost what it lost: per cell a bar of the mean
                       points of servable lost in each phase of its recovery
  --baseline FILE      compare with an earlier run's --json: per cell recloser's mean, re-trips and
                       runs meeting the bar before and now, the change in each phase's loss, and
                       each run that moved
  --from FILE          no simulation: the tables of an earlier run's --json, its runs of --seeds,
                       --scenarios and --providers (e.g. policy.md from docs/scenarios/policy-1-13.json)
  --help               this text`;

export const POLICY_SCENARIOS = ['S1', 'S2'] as const;
export type PolicyScenario = (typeof POLICY_SCENARIOS)[number];

export interface PolicyArgs {
  help: boolean;
  seeds: number[];
  strategies?: string[];
  scenarios: PolicyScenario[];
  providers: ProviderModel[];
  oracle: boolean;
  jobs: number;
  seconds?: number;
  pool?: PoolSettings;
  markdown?: string;
  json?: string;
  chart?: string;
  shortfallChart?: string;
  baseline?: string;
  from?: string;
}

const MAX_SEED = 2 ** 31 - 1;

/** "1,3,7", "1-13", "2,4-6": ascending, without repeats. */
export function parseSeeds(text: string): number[] {
  const seeds = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    const from = m ? Number(m[1]) : NaN;
    const to = m?.[2] !== undefined ? Number(m[2]) : from;
    if (!m || from > MAX_SEED || to > MAX_SEED || to < from || to - from >= 1000)
      throw new Error(`--seeds: "${part}" is not a seed (0 to ${MAX_SEED}) or a range a-b of at most 1000`);
    for (let s = from; s <= to; s++) seeds.add(s);
  }
  return [...seeds].sort((a, b) => a - b);
}

function listOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T[] {
  const items = value.split(',').map((v) => v.trim());
  for (const v of items)
    if (!(allowed as readonly string[]).includes(v))
      throw new Error(`${flag}: "${v}" is not one of ${allowed.join(', ')}`);
  return [...new Set(items)] as T[];
}

export function parsePolicyArgs(argv: string[]): PolicyArgs {
  const args: PolicyArgs = {
    help: false,
    seeds: [7],
    scenarios: [...POLICY_SCENARIOS],
    providers: [...PROVIDER_MODELS],
    oracle: false,
    jobs: 1,
  };
  eachFlag(argv, (flag, value) => {
    switch (flag) {
      case '--seeds':
        args.seeds = parseSeeds(value.text());
        break;
      case '--strategies': {
        const names = value
          .text()
          .split(',')
          .map((n) => n.trim());
        if (!names.includes('recloser')) throw new Error('--strategies must include recloser');
        args.strategies = [...new Set(names)];
        break;
      }
      case '--scenarios':
        args.scenarios = listOf('--scenarios', value.text(), POLICY_SCENARIOS);
        break;
      case '--providers':
        args.providers = listOf('--providers', value.text(), PROVIDER_MODELS);
        break;
      case '--oracle':
        args.oracle = true;
        break;
      case '--jobs':
        args.jobs = value.int(1, 64);
        break;
      case '--seconds':
        args.seconds = value.int(1, 3600);
        break;
      case '--pool':
        args.pool = parsePoolSettings(flag, value.text());
        break;
      case '--markdown':
        args.markdown = value.text();
        break;
      case '--json':
        args.json = value.text();
        break;
      case '--chart':
        args.chart = value.text();
        break;
      case '--shortfall-chart':
        args.shortfallChart = value.text();
        break;
      case '--baseline':
        args.baseline = value.text();
        break;
      case '--from':
        args.from = value.text();
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  });
  // the runs are read, not simulated: what shapes a simulation would be silently ignored
  if (args.from !== undefined) {
    const simulating = {
      '--strategies': args.strategies,
      '--pool': args.pool,
      '--seconds': args.seconds,
      '--oracle': args.oracle || undefined,
    };
    for (const [flag, v] of Object.entries(simulating))
      if (v !== undefined) throw new Error(`${flag}: not with --from (its runs are read, not simulated)`);
  }
  return args;
}
