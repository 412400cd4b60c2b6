// @recloser/core: every policy decision of Recloser, pure and deterministic.
export * from './wire.js';
export * from './pool/PoolConfig.js';
export * from './time/Clock.js';
export * from './random/Rng.js';
export * from './quorum/Quorum.js';
export * from './quorum/Isolation.js';
export * from './pool/PoolDefaults.js';
export * from './pool/PoolValidation.js';
export * from './outcome/Outcome.js';
export * from './backoff/Backoff.js';
export * from './ramp/TokenBucket.js';
export * from './local/LocalBreaker.js';
export * from './ramp/Gates.js';
export * from './ramp/Allowance.js';
export * from './probe/ProbeBudget.js';
export * from './probe/Designation.js';
export * from './controller/StepSample.js';
