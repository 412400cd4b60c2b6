import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | null = null;
let exporter: PrometheusExporter | null = null;
const serializer = new PrometheusSerializer();

/**
 * Starts OpenTelemetry (HTTP and pg instrumentation, a Prometheus reader). Must run before NestJS,
 * Fastify or pg are imported, or the instruments silently record nothing. Idempotent.
 */
export function startTelemetry(serviceName = 'recloser-controller'): void {
  if (sdk) return;
  // metrics only: without these the SDK would try to ship traces and logs to an OTLP collector
  process.env.OTEL_TRACES_EXPORTER ??= 'none';
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
    instrumentations: [new HttpInstrumentation(), new PgInstrumentation()],
  });
  sdk.start();
}

/** The Prometheus text exposition of every metric recorded so far, or null when telemetry is off. */
export async function prometheusText(): Promise<string | null> {
  if (!exporter) return null;
  const { resourceMetrics } = await exporter.collect();
  return serializer.serialize(resourceMetrics);
}
