/** How the SQL store tells a refused append and an unreachable database from other errors. */

/** Thrown when event ids of an append are already stored somewhere else than this append would put them. */
export class DuplicateEventIdError extends Error {
  constructor(
    readonly streamId: string,
    detail: string,
  ) {
    super(`Event ids already used elsewhere (append to "${streamId}"): ${detail}`);
    this.name = 'DuplicateEventIdError';
  }
}

/** Turns a driver error into what the port promises (EventStoreUnavailableError when unreachable or closed). */
export type MapError = (error: unknown, what: string) => unknown;

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE']);

/** True for failures that mean "the database cannot be reached" rather than "the request is wrong". */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONNECTION_ERROR_CODES.has(code)) return true;
    // 08: connection exception; 57P01-57P03: server shutting down or not yet accepting.
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isConnectionFailure);
  // node-postgres: a dropped connection, no pooled connection within connectionTimeoutMillis, or
  // no answer within query_timeout (a partition).
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(
    error.message,
  );
}
