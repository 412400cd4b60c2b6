// How the SDK talks to the controller. The default speaks HTTP (HttpTransport); the simulator
// passes an in-memory one and drives everything on virtual time.
import type {
  HeartbeatRequest,
  HeartbeatResponse,
  ProbeGrant,
  ProbeResultRequest,
  TrafficClass,
} from '@recloser/core';

/** POST /v1/probes/lease */
export interface ProbeLeaseRequest {
  instanceId: string;
  group: string;
  dependency: string;
  class?: TrafficClass;
}

/**
 * Every method rejects with a TransportError when the controller answers with an error status or
 * cannot be reached; `signal` aborts the call (the SDK always passes a timeout).
 */
export interface Transport {
  heartbeat(req: HeartbeatRequest, signal?: AbortSignal): Promise<HeartbeatResponse>;
  probeResult(token: string, body: ProbeResultRequest, signal?: AbortSignal): Promise<void>;
  lease(req: ProbeLeaseRequest, signal?: AbortSignal): Promise<ProbeGrant>;
  /** POST /v1/instance-keys: registers the instance's verdict key (transports without it: no signing) */
  registerKey?(req: InstanceKeyRequest, signal?: AbortSignal): Promise<{ keyId: string }>;
}

/** POST /v1/instance-keys */
export interface InstanceKeyRequest {
  instanceId: string;
  group: string;
  /** base64 of the raw Ed25519 public key */
  publicKey: string;
}
