import { S1 } from './S1.js';
import { S2 } from './S2.js';
import { S3 } from './S3.js';
import { S7 } from './S7.js';
import { S4 } from './S4.js';
import { S5 } from './S5.js';
import { S6 } from './S6.js';
import { S8 } from './S8.js';
import type { Scenario } from './Scenario.js';

export const SCENARIOS: Scenario[] = [S1, S2, S3, S4, S5, S6, S7, S8];

export function findScenario(id: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.id.toLowerCase() === id.toLowerCase());
}
