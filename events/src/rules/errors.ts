/**
 * Why a command was refused, and the one HTTP status each reason answers with. Deciders throw a
 * `DomainError` and never think about HTTP; the HTTP shell and the web both read `httpStatusOf`,
 * so a status is never written as a bare number elsewhere. Browser-safe.
 */

export const HTTP_STATUS_OF_ERROR = {
  /** The command breaks a form rule; `fields` holds the spec's message per field. */
  invalid: 400,
  /** Wrong credentials, or no session. */
  unauthorized: 401,
  /** Not enough points for what was asked. */
  insufficient_points: 402,
  payment_not_verified: 402,
  not_found: 404,
  already_exists: 409,
  passes_unavailable: 409,
  already_credited: 409,
  /** The claim's reservation is too old to be recorded (the reconciler owns it now). */
  reservation_expired: 409,
  conflict: 409,
  /** A rate rule (a free point every 30 s, the chat limit). */
  too_soon: 429,
} as const;

export type DomainErrorCode = keyof typeof HTTP_STATUS_OF_ERROR;

export function httpStatusOf(code: DomainErrorCode): number {
  return HTTP_STATUS_OF_ERROR[code];
}

export interface DomainErrorDetails {
  fields?: Record<string, string>;
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: DomainErrorDetails = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export function isDomainError(error: unknown, code?: DomainErrorCode): error is DomainError {
  return error instanceof DomainError && (code === undefined || error.code === code);
}
