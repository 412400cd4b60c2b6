import { type ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

/** Flattens nested class-validator errors into "path.to.field reason" lines. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((m) =>
      m.startsWith(e.property) && /^[ .]/.test(m.slice(e.property.length))
        ? `${path}${m.slice(e.property.length)}`
        : `${path}: ${m}`,
    );
    return [...own, ...describeValidationErrors(e.children ?? [], path)];
  });
}

/**
 * A check that answers only "certainly valid" for a body type: the value to use, or null to let the
 * decorators decide (and name the field). Must never accept what the decorators would refuse.
 */
export type FastCheck = (value: unknown) => unknown;

/** ValidationPipe with fast checks in front for the hottest body types. */
class FastValidationPipe extends ValidationPipe {
  constructor(
    options: ConstructorParameters<typeof ValidationPipe>[0],
    private readonly fast: ReadonlyMap<unknown, FastCheck>,
  ) {
    super(options);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const check = metadata.type === 'body' ? this.fast.get(metadata.metatype) : undefined;
    const accepted = check ? check(value) : null;
    return accepted ?? super.transform(value, metadata);
  }
}

/** Validation at the edge: unknown fields refused, types converted, every message names its field. */
export function createValidationPipe(fast: ReadonlyMap<unknown, FastCheck> = new Map()): ValidationPipe {
  return new FastValidationPipe(
    {
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      stopAtFirstError: true, // one reason per field: the type check first (decorators nearest the property run first)
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: (errors) => new BadRequestException(describeValidationErrors(errors).join('; ')),
    },
    fast,
  );
}
