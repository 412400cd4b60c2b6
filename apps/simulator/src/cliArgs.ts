// The simulator CLI's arguments; bad input names the flag and the reason.
import { eachFlag } from './flags.js';
import { PROVIDER_MODELS, type ProviderModel } from './provider/Provider.js';
import { parsePoolSettings, type PoolSettings } from './scenarios/poolSettings.js';

export const USAGE = `usage: npm run sim -- <scenario>|all|list|live [options]

  scenario             S1, S2, S3, S6, S7 (S4, S5, S8 say what they need); all; list; live
  --provider M         simple | collapse: the provider model (default simple)
  --outage-s N         the outage lasts N seconds (scenarios with an outage)
  --capacity F         the provider comes back with this fraction of its capacity, in (0, 1]
  --pool JSON          recloser's probe and ramp settings over the defaults, validated as a pool
                       body, e.g. '{"ramp":{"shedsCleanly":true}}' (the capacity is the provider's)
  --instances N        fleet size (S7: one size instead of all four)
  --seed N             the run is a pure function of its seed (default 1)
  --seconds N          simulated duration (live: wall time)
  --strategies a,b     only these strategies (naive, jittered, sre-throttle, aws-adaptive, recloser;
                       oracle-90, -94, -96, -97, -98, -99: a fixed share of what the provider can serve, read off it)
  --json FILE          figures and per-second series of every strategy
  --chart FILE         an SVG chart: attempts/s, admitted level and accepted work over time
  --markdown FILE      the table as Markdown
  --url URL            live: a running controller instead of starting one
  --help               this text`;

export interface CliArgs {
  command: string;
  instances?: number;
  seed: number;
  json?: string;
  chart?: string;
  markdown?: string;
  strategies?: string[];
  seconds?: number;
  url?: string;
  provider?: ProviderModel;
  outageS?: number;
  capacity?: number;
  pool?: PoolSettings;
}

export function parseArgs(argv: string[]): CliArgs {
  const first = argv[0] === '--help' || argv[0] === '-h' ? ['help'] : argv;
  const [command = 'list', ...rest] = first;
  const args: CliArgs = { command, seed: 1 };
  eachFlag(rest, (flag, value) => {
    switch (flag) {
      case '--instances':
        args.instances = value.int(1, 5000);
        break;
      case '--seed':
        args.seed = value.int(0, 2 ** 31 - 1);
        break;
      case '--seconds':
        args.seconds = value.int(1, 3600);
        break;
      case '--json':
        args.json = value.text();
        break;
      case '--chart':
        args.chart = value.text();
        break;
      case '--markdown':
        args.markdown = value.text();
        break;
      case '--url':
        args.url = value.text();
        break;
      case '--provider': {
        const m = value.text();
        if (!(PROVIDER_MODELS as readonly string[]).includes(m))
          throw new Error(`--provider must be one of ${PROVIDER_MODELS.join(', ')}`);
        args.provider = m as ProviderModel;
        break;
      }
      case '--outage-s':
        args.outageS = value.int(1, 600);
        break;
      case '--capacity': {
        const f = Number(value.text());
        if (!Number.isFinite(f) || f <= 0 || f > 1)
          throw new Error('--capacity must be a fraction in (0, 1]');
        args.capacity = f;
        break;
      }
      case '--pool':
        args.pool = parsePoolSettings(flag, value.text());
        break;
      case '--help':
      case '-h':
        args.command = 'help';
        break;
      case '--strategies':
        args.strategies = value.text().split(',');
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  });
  return args;
}
