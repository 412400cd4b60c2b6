import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ROTATION_TTLS } from './Allowance.js';
import { ANNOUNCE_INTERVALS, rotationAt } from './Rotation.js';

const PERIOD = 5000;
const INTERVAL = 1000;
const T = ROTATION_TTLS * PERIOD; // the first move

describe('rotationAt', () => {
  it('announces the move from 2 intervals before it: not at T−2I−1 ms, 2 I at T−2I, 1 ms at T−1, none at T', () => {
    expect(rotationAt(T - 2 * INTERVAL - 1, PERIOD, INTERVAL)).toEqual({
      period: ROTATION_TTLS - 1,
      rotation: 0,
      nextPeriod: ROTATION_TTLS,
      announceInMs: null,
    });
    expect(rotationAt(T - 2 * INTERVAL, PERIOD, INTERVAL).announceInMs).toBe(2 * INTERVAL);
    expect(rotationAt(T - 1, PERIOD, INTERVAL)).toMatchObject({ rotation: 0, announceInMs: 1 });
    expect(rotationAt(T, PERIOD, INTERVAL)).toEqual({
      period: ROTATION_TTLS,
      rotation: 1,
      nextPeriod: 2 * ROTATION_TTLS,
      announceInMs: null,
    });
    expect(rotationAt(T + 1, PERIOD, INTERVAL).announceInMs).toBeNull();
  });

  it('announces nothing for broken inputs', () => {
    expect(rotationAt(Number.NaN, PERIOD, INTERVAL).announceInMs).toBeNull();
    expect(rotationAt(T - 1, 0, INTERVAL).announceInMs).toBeNull();
    expect(rotationAt(T - 1, PERIOD, 0).announceInMs).toBeNull();
  });

  it('property: the move is at receivedAt + announceInMs, the first period of the next rotation', () => {
    fc.assert(
      fc.property(
        fc.nat(1e12),
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        (t, p, i) => {
          const at = rotationAt(t, p, i);
          expect(at.period).toBe(Math.floor(t / p));
          expect(at.rotation).toBe(Math.floor(at.period / ROTATION_TTLS));
          expect(at.nextPeriod).toBe((at.rotation + 1) * ROTATION_TTLS);
          const move = at.nextPeriod * p;
          if (at.announceInMs !== null) {
            expect(t + at.announceInMs).toBe(move);
            expect(at.announceInMs).toBeGreaterThan(0);
            expect(at.announceInMs).toBeLessThanOrEqual(ANNOUNCE_INTERVALS * i);
          } else expect(move - t > ANNOUNCE_INTERVALS * i).toBe(true);
        },
      ),
    );
  });

  it('property: an instance heartbeating once per interval hears every move announced ANNOUNCE_INTERVALS times', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: INTERVAL - 1 }),
        fc.integer({ min: 1, max: 30 }),
        (phase, moves) => {
          let heard = 0;
          for (let t = phase; t < moves * T; t += INTERVAL)
            if (rotationAt(t, PERIOD, INTERVAL).announceInMs !== null) heard++;
          // the moves at T, 2T, … moves·T, each announced in the two intervals before it
          expect(heard).toBe(ANNOUNCE_INTERVALS * moves);
        },
      ),
    );
  });
});
