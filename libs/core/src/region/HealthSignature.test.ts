import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyEvidence } from '../outcome/Outcome.js';
import { healthFigures, healthSignature, regionHealthOf, type SignatureRow } from './HealthSignature.js';

const row = (
  region: string,
  attempts: number,
  byClass: Partial<SignatureRow['evidence']['byClass']>,
  lastSeenAt = 1000,
): SignatureRow => {
  const evidence = emptyEvidence();
  evidence.attempts = attempts;
  Object.assign(evidence.byClass, byClass);
  evidence.successes = attempts - Object.values(byClass).reduce((s, n) => s + (n ?? 0), 0);
  return { region, lastSeenAt, evidence };
};

describe('healthSignature', () => {
  it('counts the region’s and the pool’s failed and pushed-back shares over live rows only', () => {
    const rows = [
      row('eu-west', 10, { network: 10 }),
      row('eu-west', 10, { overload: 5 }),
      row('us-east', 20, { rate_limited: 2, slow: 2 }),
      row('us-east', 100, { network: 100 }, -10_000), // silent: not counted
    ];
    const sig = healthSignature(rows, 'eu-west', 1000, 5000);
    expect(sig.region).toEqual({ name: 'eu-west', live: 2, attempts: 20, errorRate: 0.75, saturation: 0 });
    expect(sig.pool).toEqual({ live: 3, attempts: 40, errorRate: 19 / 40, saturation: 4 / 40 });
    expect(healthSignature(rows, null, 1000, 5000).region).toBeNull();
  });

  it('gives each region its live and locally open counts for the regional verdict', () => {
    const rows = [
      { ...row('eu-west', 10, { network: 10 }), state: 'open' as const },
      { ...row('eu-west', 10, { network: 10 }), state: 'half_open' as const },
      { ...row('us-east', 10, {}), state: 'closed' as const },
      { ...row('us-east', 10, { network: 10 }, -10_000), state: 'open' as const }, // silent
    ];
    expect(regionHealthOf(rows, 1000, 5000)).toEqual([
      { region: 'eu-west', live: 2, open: 2, errorRate: 1, saturation: 0 },
      { region: 'us-east', live: 1, open: 0, errorRate: 0, saturation: 0 },
    ]);
  });

  it('is zero, not NaN, without attempts', () => {
    expect(healthFigures([row('a', 0, {})], 1000, 5000)).toEqual({
      live: 1,
      attempts: 0,
      errorRate: 0,
      saturation: 0,
    });
  });

  it('property: rates stay in [0, 1] and client errors or auth failures never count', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            attempts: fc.integer({ min: 0, max: 50 }),
            auth: fc.integer({ min: 0, max: 50 }),
            client: fc.integer({ min: 0, max: 50 }),
            net: fc.integer({ min: 0, max: 50 }),
          }),
          { maxLength: 20 },
        ),
        (rs) => {
          const rows = rs.map((r) =>
            row('x', Math.max(r.attempts, r.auth + r.client + r.net), {
              auth: r.auth,
              client_error: r.client,
              network: r.net,
            }),
          );
          const f = healthFigures(rows, 1000, 5000);
          const net = rs.reduce((s, r) => s + r.net, 0);
          expect(f.errorRate).toBeGreaterThanOrEqual(0);
          expect(f.errorRate).toBeLessThanOrEqual(1);
          expect(f.errorRate).toBeCloseTo(f.attempts > 0 ? net / f.attempts : 0, 9);
        },
      ),
    );
  });
});
