/**
 * A projector process for the crash test: PGlite directory → Redis read models under `root`.
 * Prints "caught-up" once it has projected everything. Usage: crash-projector.ts <dataDir> <root>
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { openPgliteEventStore } from '@pass/events/store';
import { testRedisUrl } from '@pass/events/test-support';
import { createProjector } from '../projector';
import { createRedisReadModels } from '../read-models/redis';

const [dataDir, root] = process.argv.slice(2);
if (!dataDir || !root) throw new Error('usage: crash-projector.ts <dataDir> <root>');
const logger = pino({ level: 'warn' });
const store = await openPgliteEventStore({ dataDir });
const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
// Windows far smaller than production's, so the kill lands between stored windows of a catch-up
// of this size (each a few batches), as it would in a large one.
const projector = createProjector({ eventStore: store, readModels: createRedisReadModels({ redis, root }), logger, maxBatchSize: 50, catchUpWindow: { events: 200, writes: 1_000 } });
await projector.start();
await projector.settled();
// Settled means every event is stored; a catch-up from empty builds its search index after that
// (deferred), and only then is the projector caught up (what /readyz waits for).
await projector.caughtUp();
process.stdout.write('caught-up\n');
process.on('SIGTERM', () => {
  void (async () => {
    await projector.stop();
    await store.close();
    redis.disconnect();
    process.exit(0);
  })();
});
