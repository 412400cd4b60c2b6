import type { JobsOptions } from 'bullmq';

/** Every BullMQ queue of the controller. */
export enum QueueName {
  Breakers = 'breakers',
  /** ramp ticks, gate evaluation and probe lease expiry (global recovery) */
  Recovery = 'recovery',
  /** webhook deliveries: retried with backoff, several at once (webhooks/) */
  Webhooks = 'webhooks',
  /** the dashboard's timeline sampler, apart from the quorum jobs so it never delays them */
  Dashboard = 'dashboard',
  /** reconciliation of work-unit events into refunds (ledger/), apart so a long pass delays no quorum */
  Ledger = 'ledger',
}

/** Jobs a queue's worker runs at once (1 unless named here). */
export const QUEUE_CONCURRENCY: Partial<Record<QueueName, number>> = {
  [QueueName.Webhooks]: 8,
};

/** Every job name, and the queue it runs on. Each must have exactly one @JobHandler (checked at boot). */
export const JobName = {
  /** periodic quorum evaluation, so a quorum forms without further heartbeats (breakers/evaluate-quorum.job.ts) */
  EvaluateQuorum: 'breakers.evaluate-quorum',
  /** delete presence and verdict rows of instances silent for long (heartbeats/prune-silent-instances.job.ts) */
  PruneSilentInstances: 'heartbeats.prune-silent-instances',
  /** mark CLOSED breakers and groups idle for RECLOSER_ARCHIVE_AFTER_MS archived (heartbeats/archive-idle.job.ts) */
  ArchiveIdle: 'heartbeats.archive-idle',
  /** OPEN → PROBING after the cooldown; RAMPING gates judged on the step's sample (ramp/ramp-tick.handler.ts) */
  RampTick: 'recovery.ramp-tick',
  /** drop expired probe leases of every pool (probes/lease-expiry.handler.ts) */
  ExpireProbeLeases: 'recovery.expire-probe-leases',
  /** a point of the dashboard's timeline for each breaker worth watching (dashboard/timeline-sampler.job.ts) */
  SampleTimeline: 'dashboard.sample-timeline',
  /** one attempt to deliver one webhook (webhooks/webhook-deliveries.service.ts) */
  DeliverWebhook: 'webhooks.deliver',
  /** judge settled work-unit events into refunds, once each (ledger/reconcile.job.ts) */
  Reconcile: 'ledger.reconcile',
} as const;
export type JobName = (typeof JobName)[keyof typeof JobName];

export const JOB_QUEUE: Record<JobName, QueueName> = {
  [JobName.EvaluateQuorum]: QueueName.Breakers,
  [JobName.PruneSilentInstances]: QueueName.Breakers,
  [JobName.ArchiveIdle]: QueueName.Breakers,
  [JobName.RampTick]: QueueName.Recovery,
  [JobName.ExpireProbeLeases]: QueueName.Recovery,
  [JobName.SampleTimeline]: QueueName.Dashboard,
  [JobName.DeliverWebhook]: QueueName.Webhooks,
  [JobName.Reconcile]: QueueName.Ledger,
};

/** Defaults for every job; a job that fails is not retried blindly, the next period runs it again. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 500 },
};
