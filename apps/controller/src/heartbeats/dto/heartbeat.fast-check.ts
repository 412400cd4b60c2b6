// The heartbeat body is the hottest input of the controller: class-validator and class-transformer
// cost about a quarter of a replica's CPU on it (measured). This is a straight-line check of the
// same rules (core's InputRules, the same bounds as heartbeat.dto.ts) that answers only "certainly
// valid": a body it accepts is returned as is; anything else goes the usual way through the DTO's
// decorators, which name the field and the reason. So it may be stricter than the DTO, never
// looser — test/hostile/heartbeat-fast-check.test.ts pins that on random and hostile bodies.
import {
  DAY_MS,
  EVIDENCE_CLASSES,
  identifierProblem,
  MAX_COUNT,
  REPORTED_STATES,
  routedRatesProblem,
  type ReportedState,
} from '@recloser/core';
import { demandProblem } from './demand-map.validator.js';
import type { HeartbeatDto } from './heartbeat.dto.js';

const MAX_BREAKERS = 200;
const HEARTBEAT_KEYS = new Set(['instanceId', 'group', 'region', 'breakers']);
const VERDICT_KEYS = new Set(['dependency', 'state', 'evidence', 'demand', 'routed']); // `since`: the DTO's own check
const EVIDENCE_KEYS = new Set([
  'attempts',
  'successes',
  'byClass',
  'latencyP95Ms',
  'ttftP95Ms',
  'queueAgeMs',
]);
const CLASSES = new Set<string>(EVIDENCE_CLASSES);
const STATES = new Set<string>(REPORTED_STATES);

type Obj = Record<string, unknown>;

function plainObject(v: unknown): v is Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function onlyKeys(o: Obj, allowed: ReadonlySet<string>): boolean {
  for (const k in o) if (!Object.prototype.hasOwnProperty.call(o, k) || !allowed.has(k)) return false;
  return true;
}

const countOk = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_COUNT;
const durationOk = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= DAY_MS);

function evidenceOk(e: unknown): boolean {
  if (!plainObject(e) || !onlyKeys(e, EVIDENCE_KEYS)) return false;
  const { attempts, successes, byClass } = e;
  if (!countOk(attempts) || !countOk(successes) || successes > attempts) return false;
  if (byClass !== undefined) {
    if (!plainObject(byClass)) return false;
    for (const k in byClass) {
      const n = byClass[k];
      if (!CLASSES.has(k) || !countOk(n) || n > attempts) return false;
    }
  }
  return durationOk(e.latencyP95Ms) && durationOk(e.ttftP95Ms) && durationOk(e.queueAgeMs);
}

function verdictOk(b: unknown): boolean {
  if (!plainObject(b) || !onlyKeys(b, VERDICT_KEYS)) return false;
  if (identifierProblem(b.dependency) !== null) return false;
  if (typeof b.state !== 'string' || !STATES.has(b.state as ReportedState)) return false;
  if (!evidenceOk(b.evidence)) return false;
  if (b.routed !== undefined && routedRatesProblem(b.routed) !== null) return false;
  return b.demand === undefined || demandProblem(b.demand) === null;
}

/** The body as a HeartbeatDto when it is certainly valid; null to let the DTO's validation decide. */
export function fastHeartbeat(body: unknown): HeartbeatDto | null {
  if (!plainObject(body) || !onlyKeys(body, HEARTBEAT_KEYS)) return null;
  if (
    identifierProblem(body.instanceId) !== null ||
    identifierProblem(body.group) !== null ||
    identifierProblem(body.region) !== null
  )
    return null;
  const { breakers } = body;
  if (!Array.isArray(breakers) || breakers.length > MAX_BREAKERS) return null;
  for (const b of breakers) if (!verdictOk(b)) return null;
  return body as unknown as HeartbeatDto;
}
