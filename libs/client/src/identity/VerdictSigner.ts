// The SDK side of instance identity: registers the instance's key once (retried each tick until
// the controller takes it) and signs the locally open verdicts of a heartbeat with the epoch each
// breaker had in the last plan (or in a refusal for its epoch). Loads node:crypto only when signing
// is switched on.
import { type BreakerPlan, type BreakerVerdict, isLocallyOpen, refusedEpoch } from '@recloser/core';
import type { Transport } from '../transport/Transport.js';
import type { InstanceIdentity } from './InstanceIdentity.js';

export class VerdictSigner {
  private identity: InstanceIdentity | null = null;
  private readonly epochs = new Map<string, number>();

  constructor(
    private readonly instanceId: string,
    private readonly group: string,
    private readonly transport: Transport,
  ) {}

  /**
   * Adds an envelope to each locally open verdict, signed in its breaker's epoch as the last plan
   * (or refusal) told it; 0 before any did (the statement's rule): a group that requires signatures
   * takes it while the breaker has not moved, else refuses naming the epoch, which is signed next.
   */
  async signOpen(verdicts: BreakerVerdict[], signal?: AbortSignal): Promise<void> {
    if (!verdicts.some((v) => isLocallyOpen(v.state))) return; // closed verdicts change no decision
    const identity = await this.registered(signal);
    if (!identity) return;
    for (const v of verdicts) {
      if (!isLocallyOpen(v.state)) continue;
      const epoch = this.epochs.get(v.dependency) ?? 0;
      const envelope = identity.sign(this.instanceId, this.group, v, epoch);
      if (envelope) v.envelope = envelope;
    }
  }

  learnEpochs(plans: readonly BreakerPlan[]): void {
    for (const p of plans)
      if (typeof p.global?.epoch === 'number') this.epochs.set(p.dependency, p.global.epoch);
  }

  /**
   * The controller refused a heartbeat because a verdict named an epoch it does not keep (core
   * epochRefusal: future, or more than the grace behind): that breaker's epoch is taken from the
   * refusal, so the next heartbeat signs it rather than being refused again until a plan arrives.
   */
  refused(message: string, sent: readonly BreakerVerdict[]): boolean {
    const r = refusedEpoch(message);
    const dependency = r ? sent[r.index]?.dependency : undefined;
    if (!r || dependency === undefined) return false;
    this.epochs.set(dependency, r.epoch);
    return true;
  }

  /** The identity once its key is registered; null (unsigned this tick) while it cannot be. */
  private async registered(signal?: AbortSignal): Promise<InstanceIdentity | null> {
    if (!this.transport.registerKey) return null;
    if (!this.identity) {
      const { InstanceIdentity } = await import('./InstanceIdentity.js');
      this.identity = new InstanceIdentity();
    }
    if (this.identity.keyId === null) {
      try {
        const req = { instanceId: this.instanceId, group: this.group, publicKey: this.identity.publicKey };
        this.identity.keyId = (await this.transport.registerKey(req, signal)).keyId;
      } catch {
        return null; // the heartbeat goes unsigned; registration is tried again next tick
      }
    }
    return this.identity;
  }
}
