// recloser-no-controller: the recloser fleet (real SDK, the control plane on in-memory ports) whose
// controller goes away in the middle of a ramp (S5): heartbeats, leases and probe results fail and
// the controller's jobs stop for the scenario's loss; then a new controller process starts on the
// same stores and resumes from the stored state. The instances run FALLBACK by the core rules; this
// file only counts what they do and the figures S5 reports:
// - fallbackMaxOverShare: over regions and over each second while the controller is unreachable,
//   the largest ratio of the fallback probes the region made since control was lost to what its
//   share (from the last plans) allowed by then (share × seconds since the loss). Calls still
//   covered by an allowance granted before the loss (at most one lease TTL) are the controller's
//   grant, not fallback, and are counted apart (allowanceCallsDuringLoss).
// - allowanceCallsAfterValidity: calls other than fallback probes made more than one lease TTL and
//   one heartbeat into the loss, when every allowance granted before it had run out (must be 0).
// - timeToRecoveredMs: from control's return, the summary's definition (the first 30 s in which no
//   breaker opened and accepted work averaged 80 % of what the provider could serve); null = never.
// - rampSettledAfterReturnMs: from control's return to the ramp's last step change (the level it
//   settles at; the group closes only once what the fleet wants fits, which S5's backlog may not).
// - regionFallbackEvents: region.fallback events the controller announced when control returned.
import { TransportError, type Breaker, type ProbeLeaseRequest, type Transport } from '@recloser/client';
import {
  roundTo,
  seededRng,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type ProbeGrant,
  type ProbeResultRequest,
} from '@recloser/core';
import type { InMemoryController } from '../controller/InMemoryController.js';
import { HEARTBEAT_INTERVAL_MS, HEARTBEAT_TTL_MS, recloser } from './recloser.js';
import type { Fleet, Strategy, StrategyContext } from './Strategy.js';

/** The controller as the SDKs reach it: failing every request while it is down. */
class LosableTransport implements Transport {
  constructor(
    private readonly controller: InMemoryController,
    private readonly down: () => boolean,
  ) {}

  heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    return this.down() ? unreachable() : this.controller.heartbeat(req);
  }

  lease(req: ProbeLeaseRequest): Promise<ProbeGrant> {
    return this.down() ? unreachable() : this.controller.lease(req);
  }

  probeResult(token: string, body: ProbeResultRequest): Promise<void> {
    return this.down() ? unreachable() : this.controller.probeResult(token, body);
  }
}

function unreachable(): Promise<never> {
  return Promise.reject(new TransportError('simulated: the controller is unreachable', null));
}

export const recloserNoController: Strategy = {
  name: 'recloser-no-controller',
  needsIn: (ctx) => (ctx.controllerLoss ? undefined : 'a scenario that loses the controller (S5)'),
  build(ctx: StrategyContext): Fleet {
    const loss = ctx.controllerLoss;
    if (!loss) throw new Error('recloser-no-controller runs only in a scenario that loses the controller');
    const { sim, instances, recorder } = ctx;
    let controller: InMemoryController | null = null;
    let down = false;
    let rampSeenAt: number | null = null;
    let lostAt: number | null = null;
    let backAt: number | null = null;
    const breakers: Breaker[] = [];
    const seenProbes = instances.map(() => 0);
    /** each region's share as the last plans told its instances; frozen when control is lost */
    const lastShare = new Map<string, number>();
    let shares = new Map<string, number>();
    /** fallback probes per region, per second since the loss */
    const probes = new Map<string, number[]>();
    let allowanceCallsDuringLoss = 0;
    let allowanceCallsAfterValidity = 0;

    const fleet = recloser.build(ctx, {
      transport: (c) => {
        controller = c;
        return new LosableTransport(c, () => down);
      },
      controllerDown: () => down,
      onInstance: (i, _sdk, breaker) => {
        breakers[i] = breaker;
        breaker.onPlan((p) => {
          if (p.fallback) lastShare.set(instances[i]!.region, p.fallback.regionShare.ratePerSec);
        });
      },
      onAdmit: (i) => {
        if (!down || lostAt === null) return;
        const now = sim.now();
        const count = breakers[i]!.fallbackProbes;
        if (count !== seenProbes[i]) {
          seenProbes[i] = count;
          const region = instances[i]!.region;
          const s = Math.floor((now - lostAt) / 1000);
          const series = probes.get(region) ?? [];
          while (series.length <= s) series.push(0);
          series[s]! += 1;
          probes.set(region, series);
        } else {
          allowanceCallsDuringLoss += 1;
          if (now >= lostAt + HEARTBEAT_TTL_MS + HEARTBEAT_INTERVAL_MS) allowanceCallsAfterValidity += 1;
        }
      },
    });

    const lose = () => {
      down = true;
      lostAt = sim.now();
      shares = new Map(lastShare);
      for (let i = 0; i < breakers.length; i++) seenProbes[i] = breakers[i]!.fallbackProbes;
      sim.at(lostAt + loss.durationMs, () => {
        down = false;
        backAt = sim.now();
        controller?.restart(seededRng(Math.floor(sim.rng.next() * 2 ** 31)));
      });
    };

    return {
      ...fleet,
      // while the controller is lost the fleet sees no group state: it runs on fallback shares
      // (fallbackMaxOverShare judges those), not on the ramp step the controller froze at, so the
      // step-budget checker does not judge those seconds against that step
      globalState: () => (down ? null : fleet.globalState()),
      start: (untilMs) => {
        fleet.start(untilMs);
        // the loss is timed from the first RAMPING the controller shows
        sim.every(250, 0, untilMs, () => {
          if (rampSeenAt !== null || controller === null || controller.global.state !== 'ramping') return;
          rampSeenAt = sim.now();
          sim.at(rampSeenAt + loss.afterRampMs, lose);
        });
      },
      extraFigures: (from) => {
        let worst = 0;
        const byRegion: Record<string, { share: number; probes: number }> = {};
        if (lostAt !== null) {
          const seconds = Math.ceil(loss.durationMs / 1000);
          for (const [region, share] of shares) {
            const series = probes.get(region) ?? [];
            let cumulative = 0;
            for (let s = 0; s < seconds; s++) {
              cumulative += series[s] ?? 0;
              const allowed = share * (s + 1);
              if (cumulative > 0) worst = Math.max(worst, allowed > 0 ? cumulative / allowed : Infinity);
            }
            byRegion[region] = { share: Math.round(share * 1e6) / 1e6, probes: cumulative };
          }
        }
        const lastStep =
          backAt === null
            ? undefined
            : recorder.transitions.filter((t) => t.who === 'global' && t.at >= backAt!).at(-1)?.at;
        const fallbackEvents =
          controller === null
            ? 0
            : (controller as InMemoryController).control.events.events.filter(
                (e) => e.type === 'region.fallback',
              ).length;
        return {
          fallbackMaxOverShare: lostAt === null ? null : Number.isFinite(worst) ? roundTo(worst) : 1e9,
          fallbackByRegion: byRegion,
          allowanceCallsDuringLoss,
          allowanceCallsAfterValidity,
          controlLostAtMs: lostAt,
          controlReturnedAtMs: backAt,
          timeToRecoveredMs: backAt === null ? null : from(backAt).timeToRecoveredMs,
          rampSettledAfterReturnMs: lastStep === undefined || backAt === null ? null : lastStep - backAt,
          regionFallbackEvents: fallbackEvents,
        };
      },
    };
  },
};
