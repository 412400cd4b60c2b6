// The simulator CLI's arguments; bad input names the flag and the reason.
import { PROVIDER_MODELS, type ProviderModel } from './provider/Provider.js';

export const USAGE = `usage: npm run sim -- <scenario>|all|list|live [options]

  scenario             S1, S2, S3, S6, S7 (S4, S5, S8 say what they need); all; list; live
  --provider M         simple | collapse: the provider model (default simple)
  --outage-s N         the outage lasts N seconds (scenarios with an outage)
  --capacity F         the provider comes back with this fraction of its capacity, in (0, 1]
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
}

export function parseArgs(argv: string[]): CliArgs {
  const first = argv[0] === '--help' || argv[0] === '-h' ? ['help'] : argv;
  const [command = 'list', ...rest] = first;
  const args: CliArgs = { command, seed: 1 };
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    const value = rest[i + 1];
    const need = (): string => {
      if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`);
      i += 1;
      return value;
    };
    const int = (name: string, min: number, max: number): number => {
      const n = Number(need());
      if (!Number.isInteger(n) || n < min || n > max)
        throw new Error(`${name} must be an integer in [${min}, ${max}]`);
      return n;
    };
    switch (flag) {
      case '--instances':
        args.instances = int('--instances', 1, 5000);
        break;
      case '--seed':
        args.seed = int('--seed', 0, 2 ** 31 - 1);
        break;
      case '--seconds':
        args.seconds = int('--seconds', 1, 3600);
        break;
      case '--json':
        args.json = need();
        break;
      case '--chart':
        args.chart = need();
        break;
      case '--markdown':
        args.markdown = need();
        break;
      case '--url':
        args.url = need();
        break;
      case '--provider': {
        const m = need();
        if (!(PROVIDER_MODELS as readonly string[]).includes(m))
          throw new Error(`--provider must be one of ${PROVIDER_MODELS.join(', ')}`);
        args.provider = m as ProviderModel;
        break;
      }
      case '--outage-s':
        args.outageS = int('--outage-s', 1, 600);
        break;
      case '--capacity': {
        const f = Number(need());
        if (!Number.isFinite(f) || f <= 0 || f > 1)
          throw new Error('--capacity must be a fraction in (0, 1]');
        args.capacity = f;
        break;
      }
      case '--help':
      case '-h':
        args.command = 'help';
        break;
      case '--strategies':
        args.strategies = need().split(',');
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return args;
}
