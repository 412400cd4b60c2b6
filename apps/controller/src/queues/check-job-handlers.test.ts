import { describe, expect, it } from 'vitest';
import { checkJobHandlers } from './check-job-handlers.js';

const JOBS = ['a.one', 'a.two'];
const everyJobOnce = () => JOBS.map((jobName) => ({ jobName, handler: `H-${jobName}` }));

describe('checkJobHandlers', () => {
  it('accepts exactly one handler per job name', () => {
    expect(checkJobHandlers(JOBS, everyJobOnce())).toEqual([]);
  });

  it('names a job without a handler', () => {
    expect(checkJobHandlers(JOBS, everyJobOnce().slice(1))).toEqual(['job "a.one" has no handler']);
  });

  it('names a job with two handlers', () => {
    expect(checkJobHandlers(JOBS, [...everyJobOnce(), { jobName: 'a.one', handler: 'Extra' }])).toEqual([
      'job "a.one" has 2 handlers: H-a.one, Extra',
    ]);
  });

  it('names a handler for a job that does not exist', () => {
    expect(checkJobHandlers(JOBS, [...everyJobOnce(), { jobName: 'nope', handler: 'X' }])).toEqual([
      'X handles "nope", which is not in JobName',
    ]);
  });
});
