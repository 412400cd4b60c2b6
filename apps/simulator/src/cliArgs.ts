// The simulator CLI's arguments; bad input names the flag and the reason.
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
}

export function parseArgs(argv: string[]): CliArgs {
  const [command = 'list', ...rest] = argv;
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
      case '--strategies':
        args.strategies = need().split(',');
        break;
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return args;
}
