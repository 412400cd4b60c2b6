import { describe, expect, it } from 'vitest';
import { QUORUM_NEAR_FRACTION, quorumNear } from './QuorumNear.js';

const q = (open: number, threshold: number) => ({ open, live: 100, threshold });

describe('quorumNear', () => {
  it('is the last 20 % below the threshold by default, at least one instance, never at or past it', () => {
    expect(QUORUM_NEAR_FRACTION).toBe(0.2);
    expect(quorumNear(q(7, 10))).toBe(false);
    expect(quorumNear(q(8, 10))).toBe(true);
    expect(quorumNear(q(9, 10))).toBe(true);
    expect(quorumNear(q(10, 10))).toBe(false);
    expect(quorumNear(q(1, 2))).toBe(true);
    expect(quorumNear(q(0, 1))).toBe(false);
  });

  it("takes the operator's margin", () => {
    expect(quorumNear(q(5, 10), 0.5)).toBe(true);
    expect(quorumNear(q(4, 10), 0.5)).toBe(false);
    expect(quorumNear(q(9, 10), 0)).toBe(true); // still at least one instance
    expect(quorumNear(q(8, 10), 0)).toBe(false);
  });
});
