import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize, isWellFormed } from '@recloser/core';
import type { TransitionEntity } from '../transitions/transition.entity.js';
import { logEntryOf, wellFormed } from './log-entry.js';

describe('log entries', () => {
  it('wellFormed replaces lone surrogates as a UTF-8 encoder does, at any depth, and keeps the rest', () => {
    expect(wellFormed({ r: 'a\ud800b', k: ['\udc00'], ok: '\ud83d\ude00' })).toEqual({
      r: 'a\ufffdb',
      k: ['\ufffd'],
      ok: '\ud83d\ude00',
    });
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const w = wellFormed(s);
        expect(isWellFormed(w)).toBe(true);
        expect(Buffer.from(w, 'utf8').toString('utf8')).toBe(w); // what Postgres stores is what is hashed
        expect(Buffer.from(s, 'utf8').toString('utf8')).toBe(w);
      }),
    );
  });

  it('a transition row becomes a canonical leaf with its chain links and what it commits to', () => {
    const row = {
      id: '7',
      breakerId: 'b',
      seq: 2,
      from: 'open',
      to: 'probing',
      epoch: 1,
      fromStep: null,
      step: null,
      actor: 'cooldown',
      reason: 'cooldown over',
      figures: { failedRecoveries: 0, gone: undefined },
      formedBy: [],
      at: new Date('2026-12-03T09:00:00.000Z'),
      prevHash: 'p'.repeat(64),
      hash: 'h'.repeat(64),
    } as unknown as TransitionEntity;
    const entry = logEntryOf(
      row,
      { group: 'g', dependency: 'd' },
      { certificate: null, gateThresholds: null },
    );
    expect(entry).toMatchObject({
      type: 'recloser.transition/v1',
      seq: 2,
      prevHash: 'p'.repeat(64),
      hash: 'h'.repeat(64),
      at: '2026-12-03T09:00:00.000Z',
    });
    expect(canonicalize(entry)).toContain('"figures":{"failedRecoveries":0}');
  });
});
