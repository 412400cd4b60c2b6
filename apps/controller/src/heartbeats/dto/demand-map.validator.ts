import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

const CLASS_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
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
    if (!CLASS_NAME.test(name)) return `has an invalid traffic class name "${name.slice(0, 64)}"`;
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0)
      return `.${name} must be a non-negative number`;
  }
  return null;
}
