// The simulator's command lines (`npm run sim`, `npm run policy`) read `--flag value` pairs the same
// way: a flag that needs a value and has none, or an integer out of range, is an error naming it.

export interface FlagValue {
  /** the flag's value (the next argument); an error when there is none */
  text(): string;
  /** the flag's value as an integer in [min, max]; an error naming the flag and the range otherwise */
  int(min: number, max: number): number;
}

/** Calls `on` for each flag in `argv` in order; what `on` reads of `value` is consumed. */
export function eachFlag(argv: string[], on: (flag: string, value: FlagValue) => void): void {
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const text = (): string => {
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
      i += 1;
      return v;
    };
    const int = (min: number, max: number): number => {
      const n = Number(text());
      if (!Number.isInteger(n) || n < min || n > max)
        throw new Error(`${flag} must be an integer in [${min}, ${max}]`);
      return n;
    };
    on(flag, { text, int });
  }
}
