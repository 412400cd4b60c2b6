// @recloser/client: the SDK a worker instance embeds.
export { createRecloser, Recloser } from './Recloser.js';
export type {
  CloseOptions,
  FallbackOptions,
  RecloserOptions,
  ReachabilityEvent,
  TickResult,
} from './Recloser.js';
export { BACKLOG_DRAIN_MS, Breaker } from './breaker/Breaker.js';
export type {
  BreakerFetchInit,
  BreakerOptions,
  BreakerState,
  ExternalBreakerState,
  ExternalLocalBreaker,
  ExecuteOptions,
  FallbackEvent,
  ProbeEvent,
  RecordInfo,
  StateChangeEvent,
} from './breaker/Breaker.js';
export { BreakerOpenError, isBreakerOpenError, TransportError, isTransportError } from './errors/Errors.js';
export type { RefusalReason } from './errors/Errors.js';
export { EventEmitter } from './common/Event.js';
export type { Event, IDisposable } from './common/Event.js';
export { classifyResponse, classifyStatus, classifyError, isResponseLike } from './classify/Classify.js';
export type { Classified, ResponseLike, ResponseClassifyOptions } from './classify/Classify.js';
export { HttpTransport } from './transport/HttpTransport.js';
export type { HttpTransportOptions } from './transport/HttpTransport.js';
export type { Transport, ProbeLeaseRequest } from './transport/Transport.js';
export { INSTRUMENTATION_SCOPE } from './telemetry/SdkTelemetry.js';
export { LedgerClient } from './ledger/Ledger.js';
export type {
  ApplyRefundsOptions,
  LedgerClientOptions,
  LedgerEventInput,
  LedgerRefund,
  RefundCursorStore,
} from './ledger/Ledger.js';
