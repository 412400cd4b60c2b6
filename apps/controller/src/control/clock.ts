import type { Clock } from '@recloser/core';

/** The controller's clock (core wallClock in the app; tests may provide another). */
export const CONTROL_CLOCK = Symbol('CONTROL_CLOCK');
export type ControlClock = Clock;
