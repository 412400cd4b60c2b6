import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | null = null;
let exporter: PrometheusExporter | null = null;
const serializer = new PrometheusSerializer();

/**
 * Whether traces are shipped anywhere: only then are the HTTP, pg and ioredis instrumentations
 * loaded. They propagate context through every async step of every request (a fifth of a replica's
 * CPU on the heartbeat path, measured), which buys nothing when no exporter takes the spans.
 */
export function tracesWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter !== undefined) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts OpenTelemetry: a Prometheus reader; HTTP, pg and ioredis instrumentation and traces over
 * OTLP when traces are wanted (OTEL_EXPORTER_OTLP_ENDPOINT, with the SDK's standard OTEL_*
 * variables). Must run before NestJS, Fastify, pg or ioredis are imported, or the instruments
 * silently record nothing. Idempotent.
 */
export function startTelemetry(serviceName = 'recloser-controller'): void {
  if (sdk) return;
  const traces = tracesWanted();
  // traces only to a configured collector; logs and metrics (served on /metrics) never over OTLP
  process.env.OTEL_TRACES_EXPORTER ??= traces ? 'otlp' : 'none';
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
    instrumentations: traces
      ? [
          new HttpInstrumentation(),
          new PgInstrumentation(),
          new IORedisInstrumentation({ requireParentSpan: true }),
        ]
      : [],
  });
  sdk.start();
}

/** The Prometheus text exposition of every metric recorded so far, or null when telemetry is off. */
export async function prometheusText(): Promise<string | null> {
  if (!exporter) return null;
  const { resourceMetrics } = await exporter.collect();
  return serializer.serialize(resourceMetrics);
}
