// `npm run policy` end to end, on the built script (npm test builds first): its worker threads give
// the same figures as one thread, and it judges the bar. Short runs (--seconds 100: the longest
// outage is over by 85 s) keep it to seconds. S1 (500 instances) and S2 (200) side by side make the
// threads finish out of spec order (an S2 run given out after two S1 runs ends before the third S1
// run), so rows kept in the order they finish would not match the single thread's. --from renders
// the same tables from the JSON alone.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, '../dist/policy.js');
const ARGS = [
  '--seeds',
  '3',
  '--scenarios',
  'S1,S2',
  '--providers',
  'simple',
  '--strategies',
  'recloser,jittered',
];
const ARGS_SHORT = [...ARGS, '--seconds', '100'];

describe('npm run policy (built script)', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'policy-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the same rows in two worker threads as in one, ends with the bar judged, and compares with a baseline', async () => {
    const one = join(dir, 'one.json');
    const two = join(dir, 'two.json');
    const seq = await run(process.execPath, [SCRIPT, ...ARGS_SHORT, '--jobs', '1', '--json', one]);
    // the threaded run compared with the single thread's JSON: the same tables, then nothing moved
    const par = await run(process.execPath, [
      SCRIPT,
      ...ARGS_SHORT,
      '--jobs',
      '2',
      '--json',
      two,
      '--baseline',
      one,
    ]);
    const rows = JSON.parse(readFileSync(one, 'utf8')) as {
      scenario: string;
      level: string;
      figures: Record<string, unknown>;
    }[];
    expect(rows.map((r) => `${r.scenario} ${r.level}`)).toEqual([
      'S1 45 s',
      'S1 60 s',
      'S1 75 s',
      'S2 10 %',
      'S2 20 %',
      'S2 35 %',
    ]);
    expect(Object.keys(rows[0]!.figures).sort()).toEqual(['jittered', 'recloser']);
    expect(JSON.parse(readFileSync(two, 'utf8'))).toEqual(rows);
    expect(par.stdout.startsWith(seq.stdout.trimEnd())).toBe(true);
    expect(par.stdout).toContain(`Against ${one} (6 runs in common)`);
    expect(par.stdout).toContain('No run moved by 0.1 point or more, and no verdict changed.');
    expect(seq.stdout).toMatch(/The bar holds in \d of 6 runs\./);
    // each finished run is reported as it ends (progress), on stderr
    expect(par.stderr).toMatch(/\[6\/6\] simple S[12] \d+ [s%] seed 3: recloser \d+\.\d %/);
    // --from gives the same tables from the JSON alone, and names a run the file lacks
    const from = await run(process.execPath, [
      SCRIPT,
      '--from',
      one,
      '--seeds',
      '3',
      '--providers',
      'simple',
    ]);
    expect(from.stdout).toBe(seq.stdout);
    await expect(
      run(process.execPath, [SCRIPT, '--from', one, '--seeds', '3', '--providers', 'collapse']),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`--from: ${one} has no run collapse S1 45 s seed 3`) as unknown,
    });
  });

  it('names the flag and the reason for bad input, and exits non-zero', async () => {
    await expect(run(process.execPath, [SCRIPT, '--seeds', '9-1'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--seeds: "9-1" is not a seed') as unknown,
    });
    // a baseline that cannot be read fails before any run
    await expect(
      run(process.execPath, [SCRIPT, '--baseline', join(dir, 'absent.json')]),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('absent.json: ENOENT') as unknown,
    });
    await expect(run(process.execPath, [SCRIPT, '--strategies', 'recloser,bogus'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('unknown strategy bogus') as unknown,
    });
  });
});
