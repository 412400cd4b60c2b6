// A progress bar on stderr for long runs (silent when stderr is not a terminal).
export function progressBar(label: string): { update(fraction: number): void; done(): void } {
  const tty = process.stderr.isTTY === true;
  let last = -1;
  return {
    update(fraction: number): void {
      if (!tty) return;
      const pct = Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
      if (pct === last) return;
      last = pct;
      const filled = Math.round(pct / 4);
      process.stderr.write(
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(25 - filled)}] ${String(pct).padStart(3)}%`,
      );
    },
    done(): void {
      if (tty) process.stderr.write(`\r${' '.repeat(label.length + 40)}\r`);
    },
  };
}
