import { describe, expect, it } from 'vitest';
import { EventEmitter } from './Event.js';

describe('EventEmitter', () => {
  it('delivers to every subscriber until disposed', () => {
    const emitter = new EventEmitter<number>();
    const seen: number[] = [];
    const a = emitter.event((v) => seen.push(v));
    emitter.event((v) => seen.push(v * 10));
    emitter.fire(1);
    a.dispose();
    emitter.fire(2);
    expect(seen).toEqual([1, 10, 20]);
    expect(emitter.size).toBe(1);
  });

  it('treats the same listener subscribed twice as two subscriptions', () => {
    const emitter = new EventEmitter<string>();
    const seen: string[] = [];
    const listener = (v: string) => seen.push(v);
    const first = emitter.event(listener);
    emitter.event(listener);
    first.dispose();
    emitter.fire('x');
    expect(seen).toEqual(['x']);
  });
});
