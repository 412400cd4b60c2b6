// The edge's input rules (issue 9): every string the API takes, in a body (keys too), a query or a
// path, passes core's stringProblem; parsed bodies are bounded in depth, array length and keys
// before any class-transformer mapping; DTO fields use the decorators below, which wrap core's
// per-field rules so each rule lives in one place.
import { BadRequestException, type PipeTransform } from '@nestjs/common';
import { identifierProblem, stringProblem, textProblem, trafficClassProblem } from '@recloser/core';
import type { FastifyInstance } from 'fastify';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

/** Limits on a parsed body's shape; every API body fits well inside them. */
export const BODY_LIMITS = { maxDepth: 16, maxArrayLength: 1000, maxKeys: 1000 } as const;

/**
 * Why the parsed JSON `body` is refused, or null: too deep, an array or object too large, or a
 * string or key breaking the edge rule. Iterative (a recursive walk is what a deep body overflows).
 */
export function bodyProblem(body: unknown, limits = BODY_LIMITS): string | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  const at = (path: string) => path || 'body';
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) return `${at(path)} ${problem}`;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limits.maxDepth)
      return `body nests deeper than ${limits.maxDepth} levels (at ${path.slice(0, 200)})`;
    if (Array.isArray(value)) {
      if (value.length > limits.maxArrayLength)
        return `${at(path)} must hold at most ${limits.maxArrayLength} entries`;
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], path: path ? `${path}.${i}` : String(i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > limits.maxKeys) return `${at(path)} must hold at most ${limits.maxKeys} fields`;
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const keyProblem = stringProblem(key);
      // the key itself is unprintable: name the object holding it
      if (keyProblem) return `${at(path)}: a field name ${keyProblem}`;
      stack.push({
        value: (value as Record<string, unknown>)[key],
        path: path ? `${path}.${key}` : key,
        depth: depth + 1,
      });
    }
  }
  return null;
}

/** Query and path parameters obey the same edge rule as body strings (Fastify decodes %00 into NUL). */
export function registerInputRules(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', async (request) => {
    const problem = paramsProblem('path parameter', request.params) ?? paramsProblem('query', request.query);
    if (problem) throw new BadRequestException(problem);
  });
}

function paramsProblem(where: string, source: unknown): string | null {
  if (!source || typeof source !== 'object') return null;
  for (const [key, value] of Object.entries(source as Record<string, unknown>)) {
    const keyProblem = stringProblem(key);
    if (keyProblem) return `${where} name ${keyProblem}`;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v !== 'string') continue;
      const problem = stringProblem(v);
      if (problem) return `${where} ${key} ${problem}`;
    }
  }
  return null;
}

/** A path parameter that names an identifier (e.g. a group): 400 naming it unless core's rule holds. */
export function identifierParam(name: string): PipeTransform<string, string> {
  return {
    transform(value: string): string {
      const problem = identifierProblem(value);
      if (problem) throw new BadRequestException(`${name} ${problem}`);
      return value;
    },
  };
}

function ruleDecorator(
  name: string,
  rule: (value: unknown) => string | null,
  options: ValidationOptions = {},
): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => rule(value) === null,
        defaultMessage: (args: ValidationArguments) => {
          // with `each`, class-validator hands one element here; name the field as a whole
          const value = args.value as unknown;
          const problem = Array.isArray(value)
            ? (value.map(rule).find((p) => p !== null) ?? '')
            : (rule(value) ?? '');
          return `${args.property} ${problem}`;
        },
      },
    });
}

/** An identifier (group, instanceId, dependency, region): core's identifierProblem. */
export const IsIdentifier = (options?: ValidationOptions): PropertyDecorator =>
  ruleDecorator('isIdentifier', (v) => identifierProblem(v), options);

/** A traffic class name: core's trafficClassProblem. */
export const IsTrafficClass = (options?: ValidationOptions): PropertyDecorator =>
  ruleDecorator('isTrafficClass', trafficClassProblem, options);

/** Free text of at most `max` characters: core's textProblem. */
export const IsFreeText = (max: number, options?: ValidationOptions): PropertyDecorator =>
  ruleDecorator('isFreeText', (v) => textProblem(v, max), options);
