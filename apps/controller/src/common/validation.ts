import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

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

/** Validation at the edge: unknown fields refused, types converted, every message names its field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true, // one reason per field: the type check first (decorators nearest the property run first)
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => new BadRequestException(describeValidationErrors(errors).join('; ')),
  });
}
