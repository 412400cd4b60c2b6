// The sidecar's configuration: a JSON file (--config or RECLOSER_SIDECAR_CONFIG), then the
// environment on top of it. A bad value stops the process with the field's or variable's name.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface UpstreamConfig {
  /** base URL the dependency's requests are forwarded to: `/<dependency>/<path>` → `<upstream>/<path>` */
  upstream: string;
  /** traffic class of its requests (a request's `x-recloser-class` header overrides it); default `standard` */
  trafficClass?: string;
  /** a successful answer slower than this counts as `slow` */
  slowThresholdMs?: number;
  /** the upstream gets this long to answer (then 504, counted as overload); default 30000 */
  timeoutMs?: number;
}

export interface SidecarConfig {
  controller: { url: string; key: string; requestTimeoutMs?: number };
  instanceId: string;
  group: string;
  region: string;
  listen: { host: string; port: number };
  dependencies: Record<string, UpstreamConfig>;
  /** request bodies larger than this are refused with 413; default 16 MiB */
  maxBodyBytes: number;
  /** on SIGTERM/SIGINT, how long probe calls in flight may finish; default 5000 */
  shutdownGraceMs: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const HELP = `recloser-sidecar: a local HTTP proxy that runs the Recloser SDK for the process beside it.

  recloser-sidecar [--config FILE] [--port N] [--host ADDRESS]
  recloser-sidecar --help | --version

A request to http://HOST:PORT/<dependency>/<path>?<query> is forwarded to <upstream>/<path>?<query>
of that dependency when its breaker admits it (probe tokens and ramp allowances applied). When
not admitted it is answered 503 with Retry-After (seconds) and a JSON body
  { "statusCode": 503, "error": "Service Unavailable", "reason": "paused" | "local_open" |
    "not_admitted" | "rate" | "concurrency" | "retry_after", "retryAfterMs": n, "dependency": "…" }
and the upstream is not touched. Upstream answers are classified (5xx overload, 429 with
Retry-After, 401/403 auth, other 4xx client error) and reported to the controller in heartbeats.
An unreachable upstream is answered 502, one that does not answer in time 504.
Header x-recloser-class: <traffic class> picks the traffic class of one request.
GET /_recloser/status answers the breakers' states as JSON.

Configuration file (JSON; every field can also come from the environment):
  {
    "controller": { "url": "http://controller:3000", "key": "<fleet key>" },
    "instanceId": "worker-17", "group": "orders-consumer", "region": "eu-west",
    "listen": { "host": "127.0.0.1", "port": 7070 },
    "dependencies": {
      "llm-provider": { "upstream": "https://api.example.com", "trafficClass": "standard",
                        "slowThresholdMs": 20000, "timeoutMs": 30000 }
    },
    "maxBodyBytes": 16777216, "shutdownGraceMs": 5000
  }

Environment (overrides the file):
  RECLOSER_SIDECAR_CONFIG   path of the configuration file (same as --config)
  RECLOSER_URL              the controller's URL
  RECLOSER_FLEET_KEY        fleet key (POST /v1/admin/fleet-keys)
  RECLOSER_INSTANCE_ID      this worker instance's id (default <hostname>-<pid>)
  RECLOSER_GROUP            the group the instance belongs to
  RECLOSER_REGION           its region (default "default")
  RECLOSER_UPSTREAMS        dependencies as name=url pairs, comma-separated:
                            "llm-provider=https://api.example.com,payments=http://10.0.0.5:8080"
  RECLOSER_SIDECAR_HOST     address to listen on (default 127.0.0.1; only the worker beside it should reach it)
  RECLOSER_SIDECAR_PORT     port (default 7070; 0 picks a free one, printed at start)

It prints "recloser-sidecar listening on http://HOST:PORT" once it accepts requests, and stops on
SIGTERM/SIGINT after letting probe calls in flight finish.
`;

type Env = Readonly<Record<string, string | undefined>>;

function parseArgs(argv: readonly string[]): { config?: string; port?: string; host?: string } {
  const out: { config?: string; port?: string; host?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new ConfigError(`${flag} needs a value`);
      return v;
    };
    if (flag === '--config') out.config = value();
    else if (flag === '--port') out.port = value();
    else if (flag === '--host') out.host = value();
    else throw new ConfigError(`unknown argument ${arg} (see --help)`);
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function str(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new ConfigError(`${name} must be a non-empty string`);
  return value.trim();
}

function httpUrl(value: unknown, name: string): string {
  const s = str(value, name);
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${s}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${name} must be an http(s) URL, got "${s}"`);
  return s.replace(/\/+$/, '');
}

function int(value: unknown, name: string, min: number, max: number): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

const DEPENDENCY_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function upstreamOf(value: unknown, name: string): UpstreamConfig {
  if (!isRecord(value)) throw new ConfigError(`${name} must be an object with an "upstream" URL`);
  const out: UpstreamConfig = { upstream: httpUrl(value.upstream, `${name}.upstream`) };
  if (value.trafficClass !== undefined) out.trafficClass = str(value.trafficClass, `${name}.trafficClass`);
  if (value.slowThresholdMs !== undefined)
    out.slowThresholdMs = int(value.slowThresholdMs, `${name}.slowThresholdMs`, 1, 86_400_000);
  if (value.timeoutMs !== undefined) out.timeoutMs = int(value.timeoutMs, `${name}.timeoutMs`, 1, 86_400_000);
  return out;
}

/** The configuration from argv (without node and the script), the environment and the file they name. */
export function loadConfig(argv: readonly string[], env: Env): SidecarConfig {
  const args = parseArgs(argv);
  const file = args.config ?? env.RECLOSER_SIDECAR_CONFIG;
  let raw: Record<string, unknown> = {};
  if (file !== undefined && file !== '') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`cannot read the configuration file ${file}: ${(err as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(`the configuration file ${file} is not JSON: ${(err as Error).message}`);
    }
    if (!isRecord(parsed)) throw new ConfigError(`the configuration file ${file} must hold a JSON object`);
    raw = parsed;
  }
  const controller = isRecord(raw.controller) ? raw.controller : {};
  const listen = isRecord(raw.listen) ? raw.listen : {};
  const fromEnv = (variable: string, fileValue: unknown, field: string): [unknown, string] =>
    env[variable] !== undefined && env[variable] !== '' ? [env[variable], variable] : [fileValue, field];

  const dependencies: Record<string, UpstreamConfig> = {};
  if (raw.dependencies !== undefined) {
    if (!isRecord(raw.dependencies)) throw new ConfigError('dependencies must be an object');
    for (const [name, value] of Object.entries(raw.dependencies)) {
      if (!DEPENDENCY_NAME.test(name))
        throw new ConfigError(`dependencies: "${name}" is not a dependency name`);
      dependencies[name] = upstreamOf(value, `dependencies.${name}`);
    }
  }
  if (env.RECLOSER_UPSTREAMS) {
    for (const pair of env.RECLOSER_UPSTREAMS.split(',')) {
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      if (at <= 0 || !DEPENDENCY_NAME.test(name))
        throw new ConfigError(`RECLOSER_UPSTREAMS: "${pair}" is not name=url`);
      dependencies[name] = {
        ...dependencies[name],
        upstream: httpUrl(pair.slice(at + 1), `RECLOSER_UPSTREAMS (${name})`),
      };
    }
  }
  if (Object.keys(dependencies).length === 0)
    throw new ConfigError('no dependency configured: set RECLOSER_UPSTREAMS or "dependencies" in the file');

  const config: SidecarConfig = {
    controller: {
      url: httpUrl(...fromEnv('RECLOSER_URL', controller.url, 'controller.url')),
      key: str(...fromEnv('RECLOSER_FLEET_KEY', controller.key, 'controller.key')),
    },
    instanceId: str(
      ...fromEnv('RECLOSER_INSTANCE_ID', raw.instanceId ?? `${hostname()}-${process.pid}`, 'instanceId'),
    ),
    group: str(...fromEnv('RECLOSER_GROUP', raw.group, 'group')),
    region: str(...fromEnv('RECLOSER_REGION', raw.region ?? 'default', 'region')),
    listen: {
      host: str(
        args.host ?? fromEnv('RECLOSER_SIDECAR_HOST', listen.host ?? '127.0.0.1', 'listen.host')[0],
        'listen.host',
      ),
      port:
        args.port !== undefined
          ? int(args.port, '--port', 0, 65_535)
          : int(...fromEnv('RECLOSER_SIDECAR_PORT', listen.port ?? 7070, 'listen.port'), 0, 65_535),
    },
    dependencies,
    maxBodyBytes: int(raw.maxBodyBytes ?? 16 * 1024 * 1024, 'maxBodyBytes', 0, 1024 * 1024 * 1024),
    shutdownGraceMs: int(raw.shutdownGraceMs ?? 5_000, 'shutdownGraceMs', 0, 600_000),
  };
  if (controller.requestTimeoutMs !== undefined)
    config.controller.requestTimeoutMs = int(
      controller.requestTimeoutMs,
      'controller.requestTimeoutMs',
      1,
      600_000,
    );
  return config;
}
