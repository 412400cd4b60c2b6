// @recloser/client/cockatiel: a cockatiel circuit breaker policy keeps its options and local logic,
// reports its state and outcomes to Recloser, and obeys the group's plan. Call sites stay as they
// are: `policy.execute(fn)` goes through the guard once the policy is guarded.
//
//   const policy = circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) });
//   const guard = guardCockatiel(recloser, 'payments', policy);
//   await policy.execute(({ signal }) => fetch(url, { signal }));
import { CircuitState, type CircuitBreakerPolicy, type IDefaultPolicyContext } from 'cockatiel';
import type { IDisposable } from '../common/Event.js';
import type { Recloser } from '../Recloser.js';
import { PlanGuard, type CallRecord, type GuardOptions } from './PlanGuard.js';

export type CockatielGuardOptions = GuardOptions;

export interface CockatielGuard {
  /** the Recloser breaker the policy reports to */
  readonly guard: PlanGuard;
  /** restores the policy's own execute() and stops following the plan */
  dispose(): void;
}

type Execute = CircuitBreakerPolicy['execute'];

export function guardCockatiel(
  recloser: Recloser,
  dependency: string,
  policy: CircuitBreakerPolicy,
  options: CockatielGuardOptions = {},
): CockatielGuard {
  let isolation: IDisposable | null = null;
  const guard = new PlanGuard(
    recloser,
    dependency,
    {
      state: () =>
        policy.state === CircuitState.HalfOpen
          ? 'half_open'
          : policy.state === CircuitState.Closed
            ? 'closed'
            : 'open',
      hold: () => {
        isolation ??= policy.isolate();
      },
      release: () => {
        // disposing an isolation closes the policy: isolate first if it is open on its own
        const handle = isolation ?? policy.isolate();
        isolation = null;
        handle.dispose();
      },
    },
    options,
  );
  const ownExecute = Object.getPrototypeOf(policy).execute as Execute;
  const shadow = function guardedExecute<T>(
    this: CircuitBreakerPolicy,
    fn: (context: IDefaultPolicyContext) => PromiseLike<T> | T,
    signal?: AbortSignal,
  ): Promise<T> {
    return guard.run(
      (record: CallRecord) =>
        ownExecute.call(
          this,
          async (context: IDefaultPolicyContext) => {
            const startedAt = PlanGuard.begin(record);
            try {
              const value = await fn(context);
              PlanGuard.end(record, startedAt, false, value);
              return value;
            } catch (err) {
              PlanGuard.end(record, startedAt, true, err);
              throw err;
            }
          },
          signal,
        ) as Promise<T>,
    );
  };
  Object.defineProperty(policy, 'execute', { value: shadow, configurable: true, writable: true });

  return {
    guard,
    dispose() {
      delete (policy as Partial<CircuitBreakerPolicy>).execute;
      guard.dispose();
    },
  };
}
