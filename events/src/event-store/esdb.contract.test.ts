import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openPersonalDataEventStore } from '../personal-data/open';
import { recordSkippedSuite } from '../test-support/services';
import { describeEventStoreContract } from '../test-support/event-store-contract';
import { openEsdbEventStore } from './esdb';

/**
 * The port contract against a real EventStoreDB/KurrentDB:
 * 1. `ESDB_URL` set (e.g. `esdb://127.0.0.1:2113?tls=false`): that server. A configured server
 *    that does not answer fails the suite rather than skipping it.
 * 2. Otherwise, when a Docker engine answers: a throwaway in-memory container via testcontainers
 *    (image `ESDB_IMAGE`, default below).
 * 3. Otherwise the suite is recorded as SKIPPED in the `npm test` summary.
 *
 * Streams cannot be deleted cheaply on ESDB, so nothing is cleaned up: every contract test writes
 * to its own random stream names and filters $all to them, which also keeps the suite correct on
 * a server that other tests or other runs share.
 */

const SUITE = 'EventStoreDB contract';
const DEFAULT_IMAGE = 'docker.io/eventstore/eventstore:24.10';

interface Server {
  url: string;
  stop(): Promise<void>;
}

function dockerAnswers(): boolean {
  const probe = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 15_000 });
  return probe.status === 0;
}

async function startContainer(): Promise<Server> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(process.env.ESDB_IMAGE ?? DEFAULT_IMAGE)
    .withEnvironment({
      EVENTSTORE_INSECURE: 'true',
      EVENTSTORE_MEM_DB: 'true',
      EVENTSTORE_RUN_PROJECTIONS: 'None',
    })
    .withExposedPorts(2113)
    // /health/live answers 204 once the node accepts client calls.
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((code) => code === 200 || code === 204))
    .withStartupTimeout(180_000)
    .start();
  return {
    url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
}

async function findServer(): Promise<Server | { skipped: string }> {
  const url = process.env.ESDB_URL;
  if (url) return { url, stop: async () => {} };
  if (!dockerAnswers()) return { skipped: 'ESDB_URL not set and no Docker engine' };
  try {
    return await startContainer();
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { skipped: `ESDB_URL not set; Docker answers but the EventStoreDB container did not start: ${reason}` };
  }
}

// Decided while the file is collected (no hook timeout applies to an image pull).
const server = await findServer();
if ('skipped' in server) recordSkippedSuite(SUITE, server.skipped);

// Before the plain suite, whose dispose stops a container: the decorator over the same server,
// with the key streams it keeps there (docs/architecture.md, "Personal data").
describeEventStoreContract(
  'EventStoreDB through the personal-data decorator',
  async () => {
    if ('skipped' in server) throw new Error(server.skipped);
    return { open: () => openPersonalDataEventStore(server.url), dispose: async () => {} };
  },
  { skip: 'skipped' in server },
);

describe.skipIf('skipped' in server)('EventStoreDB: a member erased', () => {
  it('reads as erased once MemberErased is stored (its key stream tombstoned), and the key event never shows in $all', async () => {
    const store = await openPersonalDataEventStore((server as Server).url);
    try {
      const userId = randomUUID();
      const at = new Date().toISOString();
      const meta = { schemaVersion: 1 };
      await store.append(`user-${userId}`, [{ id: randomUUID(), type: 'UserRegistered', data: { userId, email: 'esdb@example.com', passwordHash: 'h', points: 0, priority: '', registeredAt: at }, metadata: meta }]);
      expect((await store.readStream(`user-${userId}`))[0]!.data).toMatchObject({ email: 'esdb@example.com' });
      expect((await store.inner.readStream(`user-${userId}`))[0]!.data).not.toMatchObject({ email: 'esdb@example.com' });
      await store.append(`user-${userId}`, [{ id: randomUUID(), type: 'MemberErased', data: { userId, requestedBy: 'member', erasedAt: at }, metadata: meta }]);
      expect((await store.readStream(`user-${userId}`))[0]!.data).toMatchObject({ email: '' });
      expect((await store.readAll({ maxCount: 10_000 })).some((e) => e.streamId.startsWith('member-key-'))).toBe(false);
    } finally {
      await store.close();
    }
  });
});

describeEventStoreContract(
  'EventStoreDB',
  async () => {
    if ('skipped' in server) throw new Error(server.skipped);
    return {
      open: () => openEsdbEventStore({ connectionString: server.url }),
      dispose: () => server.stop(),
    };
  },
  { skip: 'skipped' in server },
);
