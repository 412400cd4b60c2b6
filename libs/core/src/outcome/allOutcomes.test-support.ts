// Test support (excluded from the build): every Outcome of the wire, for tests that range over them.
export { OUTCOMES as ALL_OUTCOMES } from '../wire.js';
