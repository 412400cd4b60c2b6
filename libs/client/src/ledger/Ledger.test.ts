import { describe, expect, it } from 'vitest';
import { isTransportError } from '../errors/Errors.js';
import { LedgerClient, type LedgerRefund } from './Ledger.js';

function refund(n: number): LedgerRefund {
  return {
    refundId: `r${n}`,
    workId: `w${n}`,
    attempts: 0,
    reclaims: 1,
    reason: 'reclaim while the breaker was not closed globally',
    eventId: `e${n}`,
    instanceId: 'i1',
    dependency: 'llm',
    at: new Date(0).toISOString(),
  };
}

/** A fake controller (a fetch stand-in): 5 refunds paged by seq, events counted. */
function fakeController() {
  const calls: string[] = [];
  const all = [1, 2, 3, 4, 5].map(refund);
  const fetchFake = (async (input: string, init?: RequestInit) => {
    const url = new URL(input);
    calls.push(`${init?.method} ${url.pathname}${url.search}`);
    if (url.pathname === '/v1/ledger/refunds') {
      const after = Number(url.searchParams.get('after') ?? 0);
      const limit = Number(url.searchParams.get('limit'));
      const page = all.slice(after, after + limit);
      const next = page.length > 0 ? String(after + page.length) : url.searchParams.get('after');
      return new Response(JSON.stringify({ refunds: page, next }), { status: 200 });
    }
    const body = JSON.parse(String(init?.body)) as { events: unknown[] };
    if (body.events.length > 1000) return new Response('{"message":"too many"}', { status: 400 });
    return new Response(JSON.stringify({ accepted: body.events.length, duplicates: 0 }), { status: 200 });
  }) as typeof fetch;
  return { calls, fetchFake };
}

describe('LedgerClient (against a fake controller)', () => {
  it('applies every refund once per page run and resumes from the saved cursor', async () => {
    const { fetchFake } = fakeController();
    const client = new LedgerClient({ url: 'http://127.0.0.1:1', key: 'k', group: 'g', fetch: fetchFake });
    let saved: string | null = null;
    const cursor = { load: async () => saved, save: async (n: string) => void (saved = n) };
    const seen: string[] = [];
    const first = await client.applyRefunds({
      cursor,
      apply: async (r) => void seen.push(r.refundId),
      pageSize: 2,
    });
    expect(first).toEqual({ applied: 5, cursor: '5' });
    const again = await client.applyRefunds({
      cursor,
      apply: async (r) => void seen.push(r.refundId),
      pageSize: 2,
    });
    expect(again).toEqual({ applied: 0, cursor: '5' });
    expect(seen).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('does not save the cursor past a page whose apply threw (at-least-once)', async () => {
    const { fetchFake } = fakeController();
    const client = new LedgerClient({ url: 'http://127.0.0.1:1', key: 'k', group: 'g', fetch: fetchFake });
    let saved: string | null = null;
    const cursor = { load: async () => saved, save: async (n: string) => void (saved = n) };
    const apply = async (r: LedgerRefund) => {
      if (r.refundId === 'r3') throw new Error('queue down');
    };
    await expect(client.applyRefunds({ cursor, apply, pageSize: 2 })).rejects.toThrow('queue down');
    expect(saved).toBe('2');
  });

  it('reports events in requests of at most 1,000 and names the status of a refusal', async () => {
    const { calls, fetchFake } = fakeController();
    const client = new LedgerClient({ url: 'http://127.0.0.1:1', key: 'k', group: 'g', fetch: fetchFake });
    const events = Array.from({ length: 2500 }, (_, i) => ({
      eventId: `e${i}`,
      workId: 'w',
      instanceId: 'i',
      dependency: 'd',
      kind: 'reclaim' as const,
      at: new Date(0),
    }));
    expect(await client.report(events)).toEqual({ accepted: 2500, duplicates: 0 });
    expect(calls.filter((c) => c.startsWith('POST'))).toHaveLength(3);
    const refusing = new LedgerClient({
      url: 'http://127.0.0.1:1',
      key: 'k',
      group: 'g',
      fetch: (async () =>
        new Response('{"message":"events.0.kind must be one of attempt, reclaim"}', {
          status: 400,
        })) as typeof fetch,
    });
    const err = await refusing.report(events.slice(0, 1)).catch((e: unknown) => e);
    expect(isTransportError(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(/400 .*events\.0\.kind/);
  });
});
