// Injection tokens of the module. The Recloser itself is injected by its class.
import { Inject } from '@nestjs/common';
import { Recloser } from '@recloser/client';

/** the options RecloserModule.forRoot / forRootAsync resolved */
export const RECLOSER_MODULE_OPTIONS = Symbol.for('@recloser/nestjs/options');

/** The injection token of the breaker for `dependency`. */
export function breakerToken(dependency: string): string {
  return `@recloser/nestjs/breaker:${dependency}`;
}

/** Injects the Breaker for `dependency` (declared in forRoot's or forFeature's `breakers`). */
export const InjectBreaker = (dependency: string): PropertyDecorator & ParameterDecorator =>
  Inject(breakerToken(dependency));

/** Injects the process's Recloser (the same as injecting by the `Recloser` class). */
export const InjectRecloser = (): PropertyDecorator & ParameterDecorator => Inject(Recloser);
