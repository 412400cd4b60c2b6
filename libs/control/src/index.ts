// @recloser/control: the orchestration of Recloser over ports, written once for the controller
// (Postgres and Redis adapters) and the simulator (in-memory adapters).
export * from './ports.js';
export * from './events.js';
export * from './ControlError.js';
export * from './ControlPlane.js';
export * from './withAudit.js';
export * from './memory/index.js';
export * from './ledgerPorts.js';
export * from './Reconciliation.js';
export * from './fallback/FallbackControl.js';
export * from './regions/ShiftSteps.js';
