// The admin API, from the dashboard's origin with its session cookie (HttpOnly: never read here).

export class Unauthorized extends Error {}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (res.status === 401 && !path.endsWith('/session')) throw new Unauthorized('not logged in');
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : null;
  if (!res.ok) {
    const message = (json as { message?: string } | null)?.message ?? `${res.status}`;
    throw new ApiError(res.status, Array.isArray(message) ? message.join('; ') : message);
  }
  return json as T;
}

export const q = (params: Record<string, string | number | undefined | null | false>): string => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '' && v !== false) s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : '';
};

// ---- the shapes the dashboard reads (docs/api.md) ----------------------------------------------

export type GlobalState = 'closed' | 'open' | 'probing' | 'ramping';

export interface Quorum {
  open: number;
  live: number;
  threshold: number;
}

export interface BreakerSummary {
  breakerId: string;
  group: string;
  dependency: string;
  region: string | null;
  pool: string;
  state: GlobalState;
  epoch: number;
  quorum: Quorum;
  step: number | null;
  steps: number;
  /** a group's breaker: each region's shift in force (issue 14) */
  shifts?: Shift[];
}

/** A source region's shift as GET /v1/breakers and the admin detail show it. */
export interface Shift {
  source: string;
  breakerId: string;
  mode: 'idle' | 'shifting' | 'frozen' | 'reversing';
  reason: string;
  deficitPerSec: number;
  receivers: { region: string; allowedPerSec: number; movedPerSec: number; throttled: boolean }[];
  expiresAt: string | null;
  updatedAt: string;
}

export interface Overview {
  serverTime: string;
  totals: {
    breakers: number;
    byState: Record<GlobalState, number>;
    liveInstances: number;
    openInstances: number;
  };
  pools: { id: string; configured: boolean; dependencies: string[]; breakers: number }[];
  groups: { group: string; quorum: { fraction: number; minOpen: number }; firstSeenAt: string }[];
  breakers: (BreakerSummary & { live: number; open: number })[];
  next: string | null;
}

export interface Extras {
  probesInFlight: Record<string, number>;
  isolated: Record<string, number>;
  /** shifts under way by their source region's breaker (absent from older controllers) */
  shifts?: Record<string, { mode: string; receivers: { region: string; allowedPerSec: number }[] }>;
}

export interface Transition {
  id: string;
  seq: number;
  from: string;
  to: string;
  epoch: number;
  fromStep: number | null;
  step: number | null;
  actor: string;
  reason: string;
  at: string;
  hash: string;
  figures: Record<string, unknown>;
}

export interface BreakerDetail {
  breaker: BreakerSummary;
  globalState: {
    rampPaused?: boolean;
    operatorHold?: boolean;
    cooldownUntil?: number | null;
    /** learned capacity: the share of the pool's capacity it last sustained; null = not yet */
    sustainedLevel?: number | null;
    /** learned from a ramp that the provider sheds cleanly (ramp/Shedding.ts) */
    shedsCleanly?: boolean;
    /** a collapse refuted the pool's `ramp.shedsCleanly` for this breaker */
    shedDeclarationRefuted?: boolean;
  };
  quorumPolicy: { fraction: number; minOpen: number };
  isolated: { instanceId: string; openForMs: number }[];
  transitions: Transition[];
  chain: { ok: boolean };
}

export interface InstanceRow {
  instanceId: string;
  region: string;
  state: string;
  live: boolean;
  lastSeenAt: string;
  openSince: string | null;
  evidence: { attempts?: number; successes?: number; latencyP95Ms?: number | null } | null;
  isolated: boolean;
}

export interface TimelinePoint {
  at: number;
  state: string;
  step: number | null;
  open: number | null;
  live: number | null;
  threshold: number | null;
  successRate: number | null;
  latencyP95Ms: number | null;
  probe: 'pass' | 'fail' | 'neutral' | null;
  admitted: Record<string, number>;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  format: string;
  description: string | null;
  createdAt: string;
}

export interface Delivery {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  breakerId: string | null;
  status: 'pending' | 'retrying' | 'delivered' | 'dead';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}
