import { MAX_COUNT, trafficClassProblem } from '@recloser/core';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

const MAX_CLASSES = 32;

/** A `{ trafficClass: requestsPerSecond }` map: short class names, finite non-negative numbers. */
export function IsDemandMap(options: ValidationOptions = {}): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isDemandMap',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => demandProblem(value) === null,
        defaultMessage: (args: ValidationArguments) => {
          const problem = demandProblem(args.value) ?? '';
          return problem.startsWith('.') ? `${args.property}${problem}` : `${args.property} ${problem}`;
        },
      },
    });
}

export function demandProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'must be an object of traffic class → requests per second';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_CLASSES) return `must name at most ${MAX_CLASSES} traffic classes`;
  for (const [name, rate] of entries) {
    // the name's own rule is core's; JSON quoting keeps an odd name printable
    if (trafficClassProblem(name) !== null)
      return `has an invalid traffic class name ${JSON.stringify(name.slice(0, 64))}`;
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0)
      return `.${name} must be a non-negative number`;
    if (rate > MAX_COUNT) return `.${name} must be at most ${MAX_COUNT}`;
  }
  return null;
}
