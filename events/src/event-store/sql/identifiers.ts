/** Schema names on their way into SQL text. */

/** Double-quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Names checked before they reach SQL text (schema names come from configuration and tests). */
export function assertSchemaName(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`Event store schema name must match [a-z_][a-z0-9_]*, got "${name}"`);
  }
}
