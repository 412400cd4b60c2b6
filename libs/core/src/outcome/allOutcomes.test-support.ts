// Test support (excluded from the build): every Outcome of the wire, for tests that range over them.
import type { Outcome } from '../wire.js';

export const ALL_OUTCOMES: readonly Outcome[] = [
  'success',
  'slow',
  'overload',
  'network',
  'rate_limited',
  'auth',
  'client_error',
  'cancelled',
];
