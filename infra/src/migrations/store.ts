import { openEventStore } from '@pass/events/store';
import type { EventStore } from '@pass/events';

/** Thrown for a refusal the operator can act on (one line, exit 1). */
export class MigrationRefused extends Error {}

/** The store as stored (no personal-data layer), refused in one line while the site holds it (PGlite lets one process in). */
export async function openStoreToMigrate(url: string): Promise<EventStore> {
  try {
    return await openEventStore(url);
  } catch (error) {
    const held = /already open in process (\d+)/.exec((error as Error).message);
    if (held) throw new MigrationRefused(`the site is running (process ${held[1]}) and holds the store; stop it first`);
    throw error;
  }
}
