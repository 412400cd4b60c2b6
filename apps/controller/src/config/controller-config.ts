import {
  BREAKER_VIEW_MS,
  DEFAULT_MAX_BREAKERS_PER_GROUP,
  DEFAULT_MAX_INSTANCES_PER_GROUP,
} from '@recloser/control';
import { QUORUM_NEAR_FRACTION } from '@recloser/core';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { EnvironmentVariables } from './env.dto.js';
import { readReceiptsConfig, type ReceiptsConfig } from '../receipts/receipts-config.js';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/recloser';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Typed, validated configuration; injected by its class (see ConfigModule). */
export class ControllerConfig {
  readonly nodeEnv: 'development' | 'test' | 'production';
  readonly port: number;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** null only in development/test, where the admin API is then closed (every call 401). */
  readonly adminToken: string | null;
  readonly migrateOnBoot: boolean;
  readonly webhookAllowHosts: readonly string[];
  /** attempts per webhook delivery before it is dead-lettered */
  readonly webhookAttempts: number;
  /** first retry delay; each later one doubles (with jitter): 30 s × 2^11 spreads 12 attempts over ~17 h */
  readonly webhookBackoffMs: number;
  /** one attempt's timeout (connect to last byte) */
  readonly webhookTimeoutMs: number;
  /** quorum.near: how far below the threshold (a fraction of it) a CLOSED breaker's open count warns */
  readonly quorumNearFraction: number;
  readonly heartbeatIntervalMs: number;
  readonly heartbeatTtlMs: number;
  /** an instance locally open this long while its group stays closed is reported as isolated */
  readonly isolationAfterMs: number;
  /** breakers a group may have: a heartbeat naming more new dependencies is refused (409) */
  readonly maxBreakersPerGroup: number;
  /** instances a group may have: a heartbeat from one more new instance id is refused (409) */
  readonly maxInstancesPerGroup: number;
  /** a replica answers routine heartbeats from its view of a breaker this long at most (0: always read) */
  readonly breakerViewMs: number;
  /** closed breakers of a group without a live instance this long are archived (hidden from lists) */
  readonly archiveAfterMs: number;
  /** Prefix of every Redis key (BullMQ included); one per database by default, so controllers of different databases never share keys or jobs. */
  readonly redisPrefix: string;
  /** the outbox relay looks for unpublished events this often (a commit's kick() is sooner) */
  readonly outboxPollMs: number;
  /** false: this replica writes events but leaves relaying them to the others */
  readonly outboxRelay: boolean;
  /** writes (POST/PUT/DELETE) one credential may make per minute, counted across replicas */
  readonly rateLimitWritesPerMin: number;
  /** failed authentications (401) one client address may cause per minute before its credentials are refused with 429 */
  readonly rateLimitAuthFailuresPerMin: number;
  /** the bearer token /metrics asks for; null: the admin token */
  readonly metricsToken: string | null;
  /** true: /metrics answers without a token */
  readonly metricsPublic: boolean;
  /** serve /metrics on this port only (not on PORT); null: on PORT */
  readonly metricsPort: number | null;
  /** Fastify's trustProxy: which X-Forwarded-For hops to believe for the client address the limits count */
  readonly trustProxy: boolean | number | string[];
  /** the transparency log's origin and the controller's signing key (receipts/receipts-config.ts) */
  readonly receipts?: ReceiptsConfig;

  constructor(values: Omit<ControllerConfig, 'databaseName'>) {
    Object.assign(this, values);
  }

  get databaseName(): string {
    return databaseNameOf(this.databaseUrl);
  }
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function databaseNameOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/** Reads and validates the environment; throws a ConfigError naming each bad variable and why. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ControllerConfig {
  const raw: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = plainToInstance(EnvironmentVariables, raw);
  const errors = validateSync(parsed, { stopAtFirstError: true });
  const problems = errors.flatMap((e) =>
    Object.values(e.constraints ?? {}).map((m) => `${e.property}: ${m}`),
  );

  const nodeEnv = parsed.NODE_ENV ?? 'production';
  const lenient = nodeEnv === 'development' || nodeEnv === 'test';
  if (!parsed.RECLOSER_ADMIN_TOKEN && !lenient) {
    problems.push(
      'RECLOSER_ADMIN_TOKEN: is required outside development and test (set NODE_ENV=development to skip)',
    );
  }
  const intervalMs = parsed.RECLOSER_HEARTBEAT_INTERVAL_MS ?? 1000;
  const ttlMs = parsed.RECLOSER_HEARTBEAT_TTL_MS ?? 5000;
  if (problems.length === 0 && ttlMs < intervalMs) {
    problems.push('RECLOSER_HEARTBEAT_TTL_MS: must be at least RECLOSER_HEARTBEAT_INTERVAL_MS');
  }
  const archiveAfterMs = parsed.RECLOSER_ARCHIVE_AFTER_MS ?? 7 * 24 * 3_600_000;
  if (problems.length === 0 && archiveAfterMs < ttlMs) {
    // shorter than the TTL, a group would be archived while its instances still count as live
    problems.push('RECLOSER_ARCHIVE_AFTER_MS: must be at least RECLOSER_HEARTBEAT_TTL_MS');
  }
  if (parsed.RECLOSER_METRICS_PORT !== undefined && parsed.RECLOSER_METRICS_PORT === (parsed.PORT ?? 3000)) {
    problems.push('RECLOSER_METRICS_PORT: must differ from PORT');
  }
  let receipts: ReceiptsConfig | undefined;
  try {
    receipts = readReceiptsConfig(env);
  } catch (err) {
    problems.push((err as Error).message);
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }

  const databaseUrl = parsed.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  return new ControllerConfig({
    nodeEnv,
    port: parsed.PORT ?? 3000,
    databaseUrl,
    redisUrl: parsed.REDIS_URL ?? DEFAULT_REDIS_URL,
    adminToken: parsed.RECLOSER_ADMIN_TOKEN ?? null,
    migrateOnBoot: parsed.RECLOSER_MIGRATE_ON_BOOT ?? true,
    webhookAllowHosts: (parsed.RECLOSER_WEBHOOK_ALLOW_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h.length > 0),
    webhookAttempts: parsed.RECLOSER_WEBHOOK_ATTEMPTS ?? 12,
    webhookBackoffMs: parsed.RECLOSER_WEBHOOK_BACKOFF_MS ?? 30_000,
    webhookTimeoutMs: parsed.RECLOSER_WEBHOOK_TIMEOUT_MS ?? 10_000,
    quorumNearFraction: parsed.RECLOSER_QUORUM_NEAR_FRACTION ?? QUORUM_NEAR_FRACTION,
    heartbeatIntervalMs: intervalMs,
    heartbeatTtlMs: ttlMs,
    isolationAfterMs: parsed.RECLOSER_ISOLATION_AFTER_MS ?? 2 * ttlMs,
    maxBreakersPerGroup: parsed.RECLOSER_MAX_BREAKERS_PER_GROUP ?? DEFAULT_MAX_BREAKERS_PER_GROUP,
    maxInstancesPerGroup: parsed.RECLOSER_MAX_INSTANCES_PER_GROUP ?? DEFAULT_MAX_INSTANCES_PER_GROUP,
    breakerViewMs: parsed.RECLOSER_BREAKER_VIEW_MS ?? BREAKER_VIEW_MS,
    archiveAfterMs,
    redisPrefix: parsed.RECLOSER_REDIS_PREFIX ?? `recloser:${databaseNameOf(databaseUrl)}`,
    outboxPollMs: parsed.RECLOSER_OUTBOX_POLL_MS ?? 250,
    outboxRelay: parsed.RECLOSER_OUTBOX_RELAY ?? true,
    // 600k/min = 10k writes/s: a heartbeat a second from several thousand instances on one key, plus probes and ledger events
    rateLimitWritesPerMin: parsed.RECLOSER_RATE_LIMIT_WRITES_PER_MIN ?? 600_000,
    rateLimitAuthFailuresPerMin: parsed.RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN ?? 30,
    metricsToken: parsed.RECLOSER_METRICS_TOKEN ?? null,
    metricsPublic: parsed.RECLOSER_METRICS_PUBLIC ?? false,
    metricsPort: parsed.RECLOSER_METRICS_PORT ?? null,
    trustProxy: trustProxyOf(parsed.RECLOSER_TRUST_PROXY ?? 'false'),
    ...(receipts ? { receipts } : {}),
  });
}

function trustProxyOf(value: string): boolean | number | string[] {
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((a) => a.trim());
}
