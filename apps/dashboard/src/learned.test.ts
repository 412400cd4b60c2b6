import { describe, expect, it } from 'vitest';
import { learnedFacts } from './learned.js';

describe("the breaker page's learned facts", () => {
  it('the learned capacity as a share of the pool, or none yet', () => {
    expect(learnedFacts({ sustainedLevel: null })).toBe(
      'learned capacity: none yet (the next recovery grows fast up to the whole pool)',
    );
    expect(learnedFacts({})).toBe(learnedFacts({ sustainedLevel: null })); // a state stored before it existed
    expect(learnedFacts({ sustainedLevel: 0.2083 })).toBe(
      'learned capacity: 20.8 % of the pool (the next recovery grows fast up to it, slowly past it)',
    );
  });

  it('what it knows of shedding: learned, or the declaration a collapse refuted', () => {
    expect(learnedFacts({ sustainedLevel: 1, shedsCleanly: true })).toBe(
      'learned capacity: 100 % of the pool (the next recovery grows fast up to it, slowly past it) · learned that the provider sheds cleanly (judged on errors first)',
    );
    expect(learnedFacts({ sustainedLevel: 0.5, shedDeclarationRefuted: true })).toContain(
      "a collapse refuted the pool's ramp.shedsCleanly: judged as any provider",
    );
    expect(learnedFacts({ sustainedLevel: 0.5, shedsCleanly: false })).not.toContain('·');
  });
});
