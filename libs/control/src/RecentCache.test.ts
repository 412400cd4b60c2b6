import { describe, expect, it } from 'vitest';
import { RecentCache } from './RecentCache.js';

describe('RecentCache', () => {
  it('serves an entry younger than its age limit only, never to a clock reading before it', () => {
    const c = new RecentCache<number>(() => 500);
    c.set('k', 1000, 7);
    expect([c.get('k', 1000), c.get('k', 1499), c.get('k', 1500), c.get('k', 999)]).toEqual([
      7,
      7,
      undefined,
      undefined,
    ]);
  });

  it('reads through once while fresh, drops a failed read, and empties itself when full', async () => {
    const c = new RecentCache<Promise<number>>(() => 500, 2);
    let reads = 0;
    const read = () => Promise.resolve(++reads);
    await c.through('a', 0, read);
    await c.through('a', 100, read);
    expect(reads).toBe(1);
    await c.set('b', 0, Promise.reject(new Error('down'))).catch(() => undefined);
    expect(c.get('b', 0)).toBeUndefined();
    c.set('c', 0, Promise.resolve(0));
    c.set('d', 0, Promise.resolve(0)); // a third entry: the cache was full and started over
    expect(c.get('a', 100)).toBeUndefined();
  });
});
