// The one throwaway-database helper lives with the controller launcher (the bench and live mode
// use it at runtime); tests import it from here.
export {
  TEST_POSTGRES_URL,
  testDatabase,
  type TestDatabase,
} from '../../apps/simulator/src/live/testDatabase.js';
