import { describe, expect, it } from 'vitest';
import {
  identifierProblem,
  stringProblem,
  textProblem,
  toWellFormed,
  trafficClassProblem,
} from './InputRules.js';

describe('input rules', () => {
  it('every string: well-formed Unicode, no C0/DEL/C1', () => {
    expect(stringProblem('déjà 🔥 ok')).toBeNull();
    expect(stringProblem('a\u0000b')).toMatch(/control characters \(U\+0000 at index 1\)/);
    expect(stringProblem('\u007f')).toMatch(/U\+007F/);
    expect(stringProblem('\u0085')).toMatch(/U\+0085/);
    expect(stringProblem('w\ud800')).toMatch(/lone surrogate U\+D800 at index 1/);
    expect(stringProblem('w\udfff')).toMatch(/lone surrogate U\+DFFF/);
    expect(stringProblem('\udfff\ud800')).toMatch(/lone surrogate/);
  });

  it('identifiers: the names docs/api.md and the tests use pass; odd ones do not', () => {
    for (const ok of [
      'orders-consumer',
      'worker-17',
      'llm-provider',
      'eu-west',
      'i0',
      'a:b@c/d.e_f',
      'x'.repeat(128),
    ])
      expect(identifierProblem(ok)).toBeNull();
    for (const bad of ['', ' ', '__proto__', '-x', 'a b', 'orders\u202e', 'x'.repeat(129), 'a\u0000']) {
      expect(identifierProblem(bad)).not.toBeNull();
    }
    expect(identifierProblem(3)).toBe('must be a string');
  });

  it('traffic classes and free text', () => {
    expect(trafficClassProblem('long_context')).toBeNull();
    expect(trafficClassProblem('a/b')).not.toBeNull();
    expect(textProblem('provider confirmed an outage', 500)).toBeNull();
    expect(textProblem('   ', 500)).toBe('must not be empty or only whitespace');
    expect(textProblem('ab\u202ecd', 500)).toMatch(/bidi/);
    expect(textProblem('x'.repeat(501), 500)).toBe('must be at most 500 characters long');
  });
});

describe('toWellFormed', () => {
  it('replaces each lone surrogate with U+FFFD and keeps pairs, so stringProblem finds nothing after it', () => {
    expect(toWellFormed('a\ud800b\udc00c\ud83d\ude00')).toBe('a\ufffdb\ufffdc\ud83d\ude00');
    expect(toWellFormed('\udfff\ud800')).toBe('\ufffd\ufffd');
    expect(stringProblem(toWellFormed('w\ud800'))).toBeNull();
  });
});
