import { spawnSync } from 'node:child_process';
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
