import { STATUS_CODES } from 'node:http';

/** The one error shape of docs/api.md: `{ statusCode, error, message }`. */
export interface HttpErrorBody {
  statusCode: number;
  error: string;
  message: string;
  [extra: string]: unknown;
}

export function httpErrorBody(
  statusCode: number,
  message: string,
  extra: Record<string, unknown> = {},
): HttpErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, ...extra };
}
