import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BreakerScope,
  type DomainScopeKind,
  formatScope,
  GROUP_SCOPE,
  parseScope,
  regionOf,
  regionScope,
  sameScope,
  SCOPE_KINDS,
  scopeOf,
  scopeProblem,
} from './BreakerScope.js';

describe('BreakerScope', () => {
  it('formats the group and a region, and parses them back', () => {
    expect(formatScope(GROUP_SCOPE)).toBe('group');
    expect(formatScope(regionScope('eu-west'))).toBe('region:eu-west');
    expect(parseScope('group')).toEqual({ kind: 'group', value: '' });
    expect(parseScope('region:eu-west')).toEqual({ kind: 'region', value: 'eu-west' });
    // the value may itself hold colons (an endpoint URL): only the first one separates
    expect(parseScope('endpoint:https://api.example:443/v1')).toEqual({
      kind: 'endpoint',
      value: 'https://api.example:443/v1',
    });
  });

  it('gives the region of a region scope and null for every other scope', () => {
    expect(regionOf(regionScope('us-east'))).toBe('us-east');
    expect(regionOf(GROUP_SCOPE)).toBeNull();
    expect(regionOf(scopeOf('model', 'gpt-x'))).toBeNull();
  });

  it('refuses what is not a scope, saying why', () => {
    expect(() => parseScope('')).toThrow(/neither "group"/);
    expect(() => parseScope('region')).toThrow(/neither "group"/);
    expect(() => parseScope('region:')).toThrow(/needs a value/);
    expect(() => parseScope('planet:mars')).toThrow(/kind must be one of/);
    expect(() => parseScope('group:x')).toThrow(/group scope has no value/);
    expect(() => regionScope(' eu')).toThrow(/blanks/);
    expect(() => regionScope('eu\nwest')).toThrow(/control/);
    expect(() => regionScope('x'.repeat(201))).toThrow(/longer than/);
    expect(scopeProblem('credential', 'key-1')).toBeNull();
    expect(scopeProblem('group', '')).toBeNull();
  });

  it('compares scopes by kind and value', () => {
    expect(sameScope(regionScope('a'), scopeOf('region', 'a'))).toBe(true);
    expect(sameScope(regionScope('a'), scopeOf('endpoint', 'a'))).toBe(false);
    expect(sameScope(GROUP_SCOPE, parseScope('group'))).toBe(true);
  });

  const domainKinds = SCOPE_KINDS.filter((k): k is DomainScopeKind => k !== 'group');
  const validValue = fc
    .string({ minLength: 1, maxLength: 200, unit: 'grapheme' })
    .filter((v) => scopeProblem('region', v) === null);
  const scopeArb: fc.Arbitrary<BreakerScope> = fc.oneof(
    fc.constant(GROUP_SCOPE),
    fc.record({ kind: fc.constantFrom(...domainKinds), value: validValue }),
  );

  it('property: parse(format(scope)) is the scope, and format(parse(text)) the text', () => {
    fc.assert(
      fc.property(scopeArb, (scope) => {
        const text = formatScope(scope);
        expect(parseScope(text)).toEqual(scope);
        expect(formatScope(parseScope(text))).toBe(text);
      }),
    );
  });
});
