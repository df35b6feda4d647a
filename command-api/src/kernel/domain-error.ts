/**
 * Why a command was refused. Each code maps to one HTTP status (see `http/errors.ts`), so a
 * decider never thinks about HTTP but the API still answers precisely.
 */
export type DomainErrorCode =
  /** The command breaks a form rule; `fields` holds the spec's message per field. */
  | 'invalid'
  /** Wrong credentials. */
  | 'unauthorized'
  | 'not_found'
  | 'already_exists'
  /** A rate rule (free point every 30 s). */
  | 'too_soon'
  | 'insufficient_points'
  | 'passes_unavailable'
  | 'already_credited'
  | 'payment_not_verified'
  /** The claim's reservation is too old to be recorded (the reconciler owns it now). */
  | 'reservation_expired'
  | 'conflict';

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: { fields?: Record<string, string>; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export function isDomainError(error: unknown, code?: DomainErrorCode): error is DomainError {
  return error instanceof DomainError && (code === undefined || error.code === code);
}
