import 'reflect-metadata';
import { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IDENTIFIER_MAX } from '@recloser/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppModule } from './app.module.js';
import { AllExceptionsFilter, frameworkErrorBody } from './common/all-exceptions.filter.js';
import { registerInputRules } from './common/input-rules.js';
import { registerJsonBodyParser } from './common/json-body-parser.js';
import { createValidationPipe } from './common/validation.js';
import { HeartbeatDto } from './heartbeats/dto/heartbeat.dto.js';
import { fastHeartbeat } from './heartbeats/dto/heartbeat.fast-check.js';
import { type ControllerConfig, loadConfig } from './config/controller-config.js';
import { ensureDatabase } from './database/ensure-database.js';
import { migrateLocked } from './database/migrate-locked.js';
import { registerEdgeLimits } from './rate-limit/edge-limits.js';
import { registerDashboard } from './dashboard/dashboard-static.js';
import { assertRedisReachable } from './redis/redis-connection.js';
import { REDIS_CLIENT } from './redis/redis.constants.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
// a path segment long enough for any identifier (128 characters, 3 bytes each when %-escaped), so
// what the rules accept is reachable and longer ones get a 400 naming the field instead of a 414
const MAX_PARAM_LENGTH = 3 * IDENTIFIER_MAX;

const LOG_LEVELS: Record<ControllerConfig['nodeEnv'], LogLevel[]> = {
  production: ['log', 'warn', 'error', 'fatal'],
  development: ['log', 'warn', 'error', 'fatal', 'debug'],
  test: ['warn', 'error', 'fatal'],
};

/**
 * Builds the controller, initialised but not listening: checks Postgres (creating the database if
 * missing) and Redis, migrates under an advisory lock unless RECLOSER_MIGRATE_ON_BOOT=false.
 * Throws ConfigError / StartupError with a message meant for the operator.
 */
export async function createControllerApp(
  env: NodeJS.ProcessEnv = process.env,
): Promise<NestFastifyApplication> {
  const config = loadConfig(env);
  await ensureDatabase(config.databaseUrl);
  await assertRedisReachable(config.redisUrl);
  if (config.migrateOnBoot) await migrateLocked(config.databaseUrl);

  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    // a hop count as Fastify applies it (its types take no number)
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const body = frameworkErrorBody(error);
      void reply.status(body.statusCode).send(body);
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // on close, drop every connection rather than wait out clients' keep-alive sockets (Fastify's
    // keep-alive timeout is 72 s): fleet calls are idempotent or fenced and retried on the next tick
    forceCloseConnections: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: LOG_LEVELS[config.nodeEnv],
    abortOnError: false,
    bodyParser: false, // JSON only, by the parser below
  });
  registerJsonBodyParser(app.getHttpAdapter().getInstance(), BODY_LIMIT_BYTES);
  registerInputRules(app.getHttpAdapter().getInstance());
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(createValidationPipe(new Map([[HeartbeatDto, fastHeartbeat]])));
  await registerEdgeLimits(app, config, app.get(REDIS_CLIENT));
  await registerDashboard(app);

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Recloser controller')
      .setDescription('Recovery controller for distributed circuit breakers (docs/api.md)')
      .setVersion('1')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });

  await app.init();
  return app;
}
