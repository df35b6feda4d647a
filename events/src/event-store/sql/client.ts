/**
 * What the SQL event store needs from an adapter: a way to run queries (`SqlClient`) and a
 * logger. PGlite and PostgreSQL each supply their own.
 */
import { createHash } from 'node:crypto';

/** The few pino methods the adapters use; a pino `Logger` fits. */
export interface EventStoreLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface SqlClient {
  /**
   * Runs `text`. With a `name`, a client that can keeps it as that prepared statement on each
   * connection, parsed and planned once there rather than on every call (others ignore it).
   */
  query<R = Record<string, unknown>>(text: string, params?: unknown[], name?: string): Promise<{ rows: R[] }>;
  /**
   * Optional fast path for a hot statement: runs `text` as the named prepared statement `name`
   * (parsed and planned once) with text parameters, answering the first row's columns as text
   * (undefined: no row). Errors carry `code` and `detail` like `query`'s.
   */
  queryPrepared?(name: string, text: string, params: (string | null)[]): Promise<(string | null)[] | undefined>;
  /**
   * Optional bulk read: runs `COPY (<text>) TO STDOUT` (text format, no parameters) and answers
   * its output. Errors carry `code` like `query`'s; a connection failure reads as one.
   */
  copyOut?(select: string): Promise<string>;
}

/** A statement the store runs often, under a name of its own (SqlClient.query's `name`). */
export interface Statement {
  name: string;
  text: string;
}

/**
 * `text` under a name made from it: stores of other schemas or options on the same connections
 * (tests, tools) never give one name two texts, which the driver refuses.
 */
export function named(text: string): Statement {
  return { name: `es_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
}
