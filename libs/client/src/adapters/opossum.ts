// @recloser/client/opossum: an opossum circuit breaker keeps its options and local logic, reports
// its state and outcomes to Recloser, and obeys the group's plan. Call sites stay as they are:
// `circuit.fire(...)` goes through the guard once the circuit is guarded.
//
//   const circuit = new CircuitBreaker(callProvider, { timeout: 3000, errorThresholdPercentage: 50 });
//   const guard = guardOpossum(recloser, 'llm-provider', circuit);
//   await circuit.fire(prompt); // BreakerOpenError while the group is OPEN, without calling
import type { Recloser } from '../Recloser.js';
import { PlanGuard, type CallRecord, type GuardOptions } from './PlanGuard.js';

/** The part of an opossum CircuitBreaker (v8, v9) the adapter uses. */
export interface OpossumCircuit {
  action: (...args: never[]) => unknown;
  call(context: unknown, ...args: unknown[]): Promise<unknown>;
  open(): void;
  close(): void;
  readonly opened: boolean;
  readonly halfOpen: boolean;
  on(event: 'halfOpen', listener: () => void): unknown;
  removeListener(event: 'halfOpen', listener: () => void): unknown;
}

export type OpossumGuardOptions = GuardOptions;

export interface OpossumGuard {
  /** the Recloser breaker the circuit reports to */
  readonly guard: PlanGuard;
  /** restores the circuit's own fire()/call() and stops following the plan */
  dispose(): void;
}

type Action = (this: unknown, ...args: unknown[]) => unknown;

export function guardOpossum(
  recloser: Recloser,
  dependency: string,
  circuit: OpossumCircuit,
  options: OpossumGuardOptions = {},
): OpossumGuard {
  const guard = new PlanGuard(
    recloser,
    dependency,
    {
      state: () => (circuit.halfOpen ? 'half_open' : circuit.opened ? 'open' : 'closed'),
      hold: () => circuit.open(),
      release: () => circuit.close(),
    },
    options,
  );
  // opossum's reset timer half-opens a circuit we hold: hold it again
  const rehold = () => {
    if (guard.holding) circuit.open();
  };
  circuit.on('halfOpen', rehold);

  const ownCall = Object.getPrototypeOf(circuit).call as OpossumCircuit['call'];
  const shadow = function guardedCall(this: OpossumCircuit, context: unknown, ...args: unknown[]) {
    return guard.run((record: CallRecord) => {
      // opossum reads this.action synchronously inside call(): swap in a per-call wrapper for
      // exactly that synchronous stretch, so the record sees whether the action ran and how it ended
      const action = circuit.action as unknown as Action;
      const wrapped: Action = function (this: unknown, ...a: unknown[]) {
        const startedAt = PlanGuard.begin(record);
        let result: unknown;
        try {
          result = action.apply(this, a);
        } catch (err) {
          PlanGuard.end(record, startedAt, true, err);
          throw err;
        }
        return Promise.resolve(result).then(
          (value) => {
            PlanGuard.end(record, startedAt, false, value);
            return value;
          },
          (err: unknown) => {
            PlanGuard.end(record, startedAt, true, err);
            throw err;
          },
        );
      };
      circuit.action = wrapped as OpossumCircuit['action'];
      try {
        return ownCall.call(this, context, ...args);
      } finally {
        circuit.action = action as unknown as OpossumCircuit['action'];
      }
    });
  };
  Object.defineProperty(circuit, 'call', { value: shadow, configurable: true, writable: true });

  return {
    guard,
    dispose() {
      delete (circuit as Partial<OpossumCircuit>).call;
      circuit.removeListener('halfOpen', rehold);
      guard.dispose();
    },
  };
}
