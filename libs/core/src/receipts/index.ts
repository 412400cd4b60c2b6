// Receipts: canonical JSON, DSSE envelopes, RFC 6962 Merkle proofs, signed-note checkpoints, the
// statements Recloser signs and logs, and the offline bundle check. Crypto is injected.
export * from './Bytes.js';
export * from './Canonical.js';
export * from './Crypto.js';
export * from './Dsse.js';
export * from './Merkle.js';
export * from './Checkpoint.js';
export * from './Statements.js';
export * from './Decisions.js';
export * from './Bundle.js';
export * from './VerdictIdentity.js';
