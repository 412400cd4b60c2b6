// Speaking to replicas as a fleet and an operator would: fleet keys, pools, heartbeats, and driving a
// breaker to PROBING through a real quorum of open verdicts and the ramp tick's cooldown.
import { verdict } from '../../support/fleet.js';
import { ADMIN_TOKEN, call } from './replicas.js';

export async function fleetKey(base: string, groups: string[]): Promise<string> {
  const r = await call(base, 'POST', '/v1/admin/fleet-keys', { name: 'recovery-test', groups }, ADMIN_TOKEN);
  if (r.status !== 201) throw new Error(`fleet key: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.key as string;
}

export async function putPool(base: string, id: string, body: unknown): Promise<void> {
  const r = await call(base, 'PUT', `/v1/admin/pools/${id}`, body, ADMIN_TOKEN);
  if (r.status !== 200) throw new Error(`PUT pool: ${r.status} ${JSON.stringify(r.json)}`);
}

export async function breakerState(base: string, key: string, group: string): Promise<string | null> {
  const r = await call(base, 'GET', `/v1/breakers?group=${encodeURIComponent(group)}`, undefined, key);
  return (r.json?.breakers?.[0]?.state as string | undefined) ?? null;
}

/**
 * Heartbeats of open verdicts from `instances` (round-robin over the replicas) until the breaker is
 * PROBING: the quorum opens it after the learning period, the ramp tick ends its cooldown.
 */
export async function driveToProbing(
  bases: string[],
  key: string,
  group: string,
  dependency: string,
  instances: string[],
): Promise<void> {
  for (let round = 0; round < 150; round++) {
    await Promise.all(
      instances.map((instanceId, i) =>
        call(
          bases[i % bases.length]!,
          'POST',
          '/v1/heartbeats',
          {
            instanceId,
            group,
            region: 'eu-west',
            breakers: [verdict(dependency, 'open')],
          },
          key,
        ),
      ),
    );
    if ((await breakerState(bases[0]!, key, group)) === 'probing') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`breaker ${group}/${dependency} did not reach probing in 30 s`);
}

/**
 * POST /v1/probes/lease for `instanceId`, after one heartbeat that makes it a live instance of the
 * group (tokens go to live instances only). It reports `paused` and no demand, so the heartbeat
 * itself neither counts toward the quorum nor makes it a designated prober.
 */
export async function liveLease(
  base: string,
  key: string,
  group: string,
  dependency: string,
  instanceId: string,
): ReturnType<typeof call> {
  await present(base, key, group, dependency, instanceId);
  return call(base, 'POST', '/v1/probes/lease', { instanceId, group, dependency }, key);
}

/** One heartbeat of `instanceId` (paused, no demand): it is a live instance of the group for one TTL. */
export async function present(
  base: string,
  key: string,
  group: string,
  dependency: string,
  instanceId: string,
): Promise<void> {
  const r = await call(
    base,
    'POST',
    '/v1/heartbeats',
    { instanceId, group, region: 'eu-west', breakers: [verdict(dependency, 'paused')] },
    key,
  );
  if (r.status !== 200) throw new Error(`heartbeat of ${instanceId}: ${r.status} ${JSON.stringify(r.json)}`);
}
