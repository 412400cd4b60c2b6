// Every migration, oldest first. Add new ones at the end (one line each).
import { Spine1764684000000 } from './1764684000000-Spine.js';
import { RecoveryPools1764684600000 } from './1764684600000-RecoveryPools.js';
import { TransitionFromStep1764691200000 } from './1764691200000-TransitionFromStep.js';
import { BreakerScope1764800000000 } from './1764800000000-BreakerScope.js';
import { Outbox1764800600000 } from './1764800600000-Outbox.js';
import { Archival1764900000000 } from './1764900000000-Archival.js';
import { HotPresence1765000000000 } from './1765000000000-HotPresence.js';
import { Webhooks1765100000000 } from './1765100000000-Webhooks.js';
import { OperatorLog1765100600000 } from './1765100600000-OperatorLog.js';
import { Ledger1765300000000 } from './1765300000000-Ledger.js';
import { TransparencyLog1765500000000 } from './1765500000000-TransparencyLog.js';
import { SignedVerdictBreaker1765560000000 } from './1765560000000-SignedVerdictBreaker.js';
import { RegionShifts1765600000000 } from './1765600000000-RegionShifts.js';

export const migrations = [
  Spine1764684000000,
  RecoveryPools1764684600000,
  TransitionFromStep1764691200000,
  BreakerScope1764800000000,
  Outbox1764800600000,
  Archival1764900000000,
  HotPresence1765000000000,
  Webhooks1765100000000,
  OperatorLog1765100600000,
  Ledger1765300000000,
  TransparencyLog1765500000000,
  SignedVerdictBreaker1765560000000,
  RegionShifts1765600000000,
];
