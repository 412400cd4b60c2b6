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
});
