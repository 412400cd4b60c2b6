// Keyset pagination (issue 9): every list answers at most `limit` rows and an opaque `next` cursor,
// the base64url JSON of the last row's key in the list's stable order. Never OFFSET: a page costs
// an index range scan however deep it is, and rows inserted meanwhile neither repeat nor vanish.
import { BadRequestException } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { stringProblem } from '@recloser/core';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 1000;
/** a cursor is a handful of short keys; anything longer is not one of ours */
export const CURSOR_MAX = 2048;

/** The `limit` and `cursor` query parameters; extended by list queries that take more. */
export class PageQuery {
  @ApiPropertyOptional({ default: PAGE_DEFAULT, minimum: 1, maximum: PAGE_MAX, description: 'rows per page' })
  @IsOptional()
  @Type(() => Number)
  @Max(PAGE_MAX, { message: `limit must be an integer in [1, ${PAGE_MAX}]` })
  @Min(1, { message: `limit must be an integer in [1, ${PAGE_MAX}]` })
  @IsInt({ message: `limit must be an integer in [1, ${PAGE_MAX}]` })
  limit?: number;

  @ApiPropertyOptional({ description: "the previous page's `next`; the first page when absent" })
  @IsOptional()
  @Length(1, CURSOR_MAX, { message: 'cursor is not a cursor this list returned' })
  @IsString({ message: 'cursor is not a cursor this list returned' })
  cursor?: string;
}

export interface Page<T> {
  rows: T[];
  next: string | null;
}

export type CursorKey = readonly (string | number)[];

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * The key in `cursor`, checked against `shape` (one 'string' | 'number' per key column); 400
 * naming `cursor` for anything this list could not have returned.
 */
export function decodeCursor<K extends CursorKey>(
  cursor: string | undefined,
  shape: readonly ('string' | 'number')[],
): K | null {
  if (cursor === undefined) return null;
  const invalid = () => new BadRequestException('cursor is not a cursor this list returned');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (
    !Array.isArray(key) ||
    key.length !== shape.length ||
    !key.every((v, i) =>
      shape[i] === 'number'
        ? Number.isSafeInteger(v)
        : typeof v === 'string' && v.length <= 1000 && stringProblem(v) === null,
    )
  )
    throw invalid();
  return key as unknown as K;
}

/** Rows fetched with `limit + 1`: the page, and a cursor after its last row when one more exists. */
export function pageOf<T>(fetched: T[], limit: number, keyOf: (row: T) => CursorKey): Page<T> {
  if (fetched.length <= limit) return { rows: fetched, next: null };
  const rows = fetched.slice(0, limit);
  return { rows, next: encodeCursor(keyOf(rows[rows.length - 1]!)) };
}
