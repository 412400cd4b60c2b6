import type { ControlEvent } from '@recloser/control';
import { describe, expect, it } from 'vitest';
import { dedupe, OutboxConsumers } from './outbox-consumers.js';

const event = (seq: number): ControlEvent => ({
  id: `id-${seq}`,
  seq,
  type: 'quorum.near',
  breakerId: 'b',
  at: seq,
  data: {},
});

describe('dedupe', () => {
  it('hands each id on once; an id whose delivery threw comes through again', async () => {
    const got: number[] = [];
    let fail = true;
    const c = dedupe((e) => {
      if (e.seq === 2 && fail) {
        fail = false;
        throw new Error('down');
      }
      got.push(e.seq);
    });
    await c(event(1));
    await expect(c(event(2))).rejects.toThrow('down');
    for (const s of [2, 1, 2, 3, 3]) await c(event(s));
    expect(got).toEqual([1, 2, 3]);
  });

  it('forgets the oldest ids past its capacity', async () => {
    const got: number[] = [];
    const c = dedupe((e) => void got.push(e.seq), 2);
    for (const s of [1, 2, 3, 3, 1]) await c(event(s));
    expect(got).toEqual([1, 2, 3, 1]);
  });
});

describe('OutboxConsumers', () => {
  it('lists in registration order, refuses a second consumer under one name, and unregisters', () => {
    const r = new OutboxConsumers();
    const off = r.register('a', () => undefined);
    r.register('b', () => undefined);
    expect(() => r.register('a', () => undefined)).toThrow(/already registered/);
    expect(r.list().map(([n]) => n)).toEqual(['a', 'b']);
    off();
    expect(r.list().map(([n]) => n)).toEqual(['b']);
  });
});
