// @recloser/core: every policy decision of Recloser, pure and deterministic.
export * from './wire.js';
export * from './pool/PoolConfig.js';
