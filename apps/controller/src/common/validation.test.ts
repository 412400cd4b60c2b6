import { ValidationError } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { describeValidationErrors } from './validation.js';

function error(
  property: string,
  constraints: Record<string, string>,
  children: ValidationError[] = [],
): ValidationError {
  return Object.assign(new ValidationError(), { property, constraints, children });
}

describe('describeValidationErrors', () => {
  it('names nested fields by their full path', () => {
    const errors = [
      error('breakers', {}, [
        error('0', {}, [
          error('evidence', {}, [error('attempts', { min: 'attempts must not be less than 0' })]),
        ]),
      ]),
    ];
    expect(describeValidationErrors(errors)).toEqual([
      'breakers.0.evidence.attempts must not be less than 0',
    ]);
  });

  it('keeps a sub-path the message already carries and prefixes messages that do not name the field', () => {
    expect(
      describeValidationErrors([
        error('demand', { isDemandMap: 'demand.standard must be a non-negative number' }),
        error('pad', { whitelistValidation: 'property pad should not exist' }),
      ]),
    ).toEqual(['demand.standard must be a non-negative number', 'pad: property pad should not exist']);
  });
});
