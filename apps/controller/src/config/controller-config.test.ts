import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './controller-config.js';

const prod = { NODE_ENV: 'production', RECLOSER_ADMIN_TOKEN: 'a-long-enough-admin-token' };

describe('loadConfig', () => {
  it('applies the defaults of docs/api.md', () => {
    const c = loadConfig(prod);
    expect(c).toMatchObject({
      port: 3000,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/recloser',
      redisUrl: 'redis://127.0.0.1:6379',
      migrateOnBoot: true,
      webhookAllowHosts: [],
      heartbeatIntervalMs: 1000,
      heartbeatTtlMs: 5000,
      redisPrefix: 'recloser:recloser',
    });
  });

  it('parses numbers, booleans and lists from strings', () => {
    const c = loadConfig({
      ...prod,
      PORT: '8080',
      RECLOSER_MIGRATE_ON_BOOT: 'false',
      RECLOSER_WEBHOOK_ALLOW_HOSTS: '10.0.0.5, hooks.internal',
      RECLOSER_HEARTBEAT_INTERVAL_MS: '500',
      RECLOSER_HEARTBEAT_TTL_MS: '2000',
    });
    expect(c).toMatchObject({
      port: 8080,
      migrateOnBoot: false,
      heartbeatIntervalMs: 500,
      heartbeatTtlMs: 2000,
    });
    expect(c.webhookAllowHosts).toEqual(['10.0.0.5', 'hooks.internal']);
  });

  it('requires the admin token outside development and test', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/RECLOSER_ADMIN_TOKEN: is required/);
    expect(loadConfig({ NODE_ENV: 'development' }).adminToken).toBeNull();
  });

  it('names each bad variable and the reason', () => {
    let error: unknown;
    try {
      loadConfig({ ...prod, PORT: 'abc', RECLOSER_MIGRATE_ON_BOOT: 'maybe', DATABASE_URL: 'mysql://x/y' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('PORT: PORT must be an integer');
    expect(message).toContain('RECLOSER_MIGRATE_ON_BOOT: RECLOSER_MIGRATE_ON_BOOT must be true or false');
    expect(message).toContain('DATABASE_URL: DATABASE_URL must look like postgres://');
  });

  it('refuses a TTL shorter than the heartbeat interval', () => {
    expect(() =>
      loadConfig({ ...prod, RECLOSER_HEARTBEAT_INTERVAL_MS: '1000', RECLOSER_HEARTBEAT_TTL_MS: '500' }),
    ).toThrow(/RECLOSER_HEARTBEAT_TTL_MS: must be at least/);
  });

  it('defaults the edge limits for real fleets and keeps /metrics behind a token', () => {
    expect(loadConfig(prod)).toMatchObject({
      rateLimitWritesPerMin: 600_000,
      rateLimitAuthFailuresPerMin: 30,
      metricsToken: null,
      metricsPublic: false,
      metricsPort: null,
      trustProxy: false,
    });
    expect(loadConfig({ ...prod, RECLOSER_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ ...prod, RECLOSER_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
    ]);
    expect(
      loadConfig({
        ...prod,
        RECLOSER_RATE_LIMIT_WRITES_PER_MIN: '1200',
        RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN: '5',
        RECLOSER_METRICS_TOKEN: 'a-long-enough-metrics-token',
        RECLOSER_METRICS_PUBLIC: 'true',
        RECLOSER_METRICS_PORT: '9464',
      }),
    ).toMatchObject({
      rateLimitWritesPerMin: 1200,
      rateLimitAuthFailuresPerMin: 5,
      metricsToken: 'a-long-enough-metrics-token',
      metricsPublic: true,
      metricsPort: 9464,
    });
  });

  it('names a bad edge-limit or metrics variable', () => {
    expect(() => loadConfig({ ...prod, RECLOSER_RATE_LIMIT_WRITES_PER_MIN: 'lots' })).toThrow(
      /RECLOSER_RATE_LIMIT_WRITES_PER_MIN: .*positive integer/,
    );
    expect(() => loadConfig({ ...prod, RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN: '0' })).toThrow(
      /RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN: /,
    );
    expect(() => loadConfig({ ...prod, RECLOSER_METRICS_PUBLIC: 'perhaps' })).toThrow(
      /RECLOSER_METRICS_PUBLIC: RECLOSER_METRICS_PUBLIC must be true or false/,
    );
    expect(() => loadConfig({ ...prod, RECLOSER_METRICS_TOKEN: 'short' })).toThrow(
      /RECLOSER_METRICS_TOKEN: .*at least 16/,
    );
    expect(() => loadConfig({ ...prod, RECLOSER_METRICS_PORT: '3000' })).toThrow(
      /RECLOSER_METRICS_PORT: must differ from PORT/,
    );
    expect(() => loadConfig({ ...prod, RECLOSER_TRUST_PROXY: 'the lb' })).toThrow(
      /RECLOSER_TRUST_PROXY: RECLOSER_TRUST_PROXY must be true, false/,
    );
  });

  it('reads the webhook delivery and quorum.near settings, and names a bad one', () => {
    expect(loadConfig(prod)).toMatchObject({
      webhookAttempts: 12,
      webhookBackoffMs: 30_000,
      webhookTimeoutMs: 10_000,
      quorumNearFraction: 0.2,
    });
    expect(
      loadConfig({
        ...prod,
        RECLOSER_WEBHOOK_ATTEMPTS: '5',
        RECLOSER_WEBHOOK_BACKOFF_MS: '100',
        RECLOSER_WEBHOOK_TIMEOUT_MS: '2000',
        RECLOSER_QUORUM_NEAR_FRACTION: '0.5',
      }),
    ).toMatchObject({
      webhookAttempts: 5,
      webhookBackoffMs: 100,
      webhookTimeoutMs: 2000,
      quorumNearFraction: 0.5,
    });
    for (const [name, value] of [
      ['RECLOSER_WEBHOOK_ATTEMPTS', '0'],
      ['RECLOSER_WEBHOOK_BACKOFF_MS', 'soon'],
      ['RECLOSER_WEBHOOK_TIMEOUT_MS', '5'],
      ['RECLOSER_QUORUM_NEAR_FRACTION', '1.5'],
      ['RECLOSER_QUORUM_NEAR_FRACTION', 'half'],
    ] as const)
      expect(() => loadConfig({ ...prod, [name]: value }), `${name}=${value}`).toThrow(new RegExp(name));
  });
});
