import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | null = null;
let exporter: PrometheusExporter | null = null;
const serializer = new PrometheusSerializer();

/** true when an OTLP endpoint is configured: traces are then exported there */
export function otlpTracesWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts OpenTelemetry (HTTP, pg and ioredis instrumentation, a Prometheus reader; traces over OTLP
 * when OTEL_EXPORTER_OTLP_ENDPOINT is set, with the SDK's standard OTEL_* variables). Must run
 * before NestJS, Fastify, pg or ioredis are imported, or the instruments silently record nothing.
 * Idempotent.
 */
export function startTelemetry(serviceName = 'recloser-controller'): void {
  if (sdk) return;
  // traces only to a configured collector; logs and OTLP metrics never (/metrics serves those)
  process.env.OTEL_TRACES_EXPORTER ??= otlpTracesWanted() ? 'otlp' : 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  // the app serves /metrics itself, so the exporter's own HTTP server stays off
  exporter = new PrometheusExporter({ preventServerStart: true });
  sdk = new NodeSDK({
    serviceName,
    // OTEL_RESOURCE_ATTRIBUTES only: the default process and host detectors would publish the
    // command line, executable path, owner, PID and host name on /metrics (target_info)
    resourceDetectors: [resources.envDetector],
    metricReaders: [exporter],
    instrumentations: [
      new HttpInstrumentation(),
      new PgInstrumentation(),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
}

/** The Prometheus text exposition of every metric recorded so far, or null when telemetry is off. */
export async function prometheusText(): Promise<string | null> {
  if (!exporter) return null;
  const { resourceMetrics } = await exporter.collect();
  return serializer.serialize(resourceMetrics);
}
