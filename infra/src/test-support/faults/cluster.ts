import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { positionToString, type EventStore } from '@pass/events';
import { openPersonalDataEventStore } from '@pass/events/store';
import { testPostgresUrl } from '@pass/events/test-support';
import { createRedisReadModels, deleteKeysUnder, projectInto, toPositioned } from '@pass/projector';
import type { ReadModelDump } from '@pass/projector';
import { spawnService, type ServiceName, type SpawnedService } from '../spawn-process';
import { readEverything } from './load';

/** The process a cluster member's name runs: `query-…`, `projector…` and `command-api…` name group members. */
function serviceKind(name: string): ServiceName {
  if (name.startsWith('query')) return 'query-api';
  if (name.startsWith('projector')) return 'projector';
  if (name.startsWith('command-api')) return 'command-api';
  return name as ServiceName;
}

/**
 * The distributed layout for the fault suites: command-api, projector and query-api processes
 * on one fresh PostgreSQL schema and one Redis key prefix. `storeUrl` may point at a proxy in
 * front of PostgreSQL; `direct` is the store as the test reads it, bypassing any proxy.
 */
export class Cluster {
  readonly run = randomUUID().replaceAll('-', '').slice(0, 12);
  readonly schema = `faults_${this.run}`;
  readonly prefix = `test:faults:${this.run}:`;
  readonly dir = mkdtempSync(join(tmpdir(), 'pass-faults-'));
  readonly services = new Map<string, SpawnedService>();
  private directStore: EventStore | undefined;
  private readonly cleanRoots: string[] = [];

  constructor(
    readonly options: {
      redisUrl: string;
      /** Host and port the services use for PostgreSQL (a proxy's); default the test server's. */
      pgHostPort?: string;
      /** Extra settings for every service. */
      env?: Record<string, string>;
    },
  ) {}

  storeUrl(hostPort = this.options.pgHostPort): string {
    const url = new URL(testPostgresUrl());
    if (hostPort) url.host = hostPort;
    url.searchParams.set('schema', this.schema);
    return url.toString();
  }

  env(): Record<string, string> {
    return {
      EVENT_STORE_URL: this.storeUrl(),
      REDIS_URL: this.options.redisUrl,
      REDIS_PREFIX: this.prefix,
      SESSION_SECRET: `faults-secret-${this.run}-0123456789abcdef`,
      DATA_DIR: this.dir,
      UPLOADS_DIR: join(this.dir, 'uploads'),
      WEB_DIST_DIR: join(this.dir, 'no-web-build'),
      ...this.options.env,
    };
  }

  /** The process's address (also while it is down: requests then fail, as they would). */
  url(name: string): string {
    const port = this.ports.get(name);
    if (!port) throw new Error(`${name} never started`);
    return `http://127.0.0.1:${port}`;
  }

  private readonly ports = new Map<string, string>();

  /**
   * Starts (or restarts) one named process: `command-api`, `image-worker`, `projector`, `query-a`,
   * `query-b` (or a name starting as one of them: members of a group, such as `projector-b`),
   * with `env` over the cluster's settings, from another checkout when `release` names one.
   * A restarted process listens on its previous port, as behind a fixed address.
   */
  async start(name: string, env: Record<string, string> = {}, release?: string): Promise<SpawnedService> {
    const kind = serviceKind(name);
    const extra: Record<string, string> = kind === 'query-api' ? { COMMAND_API_URL: `http://127.0.0.1:${this.ports.get('command-api')}` } : {};
    if (kind === 'projector') extra.PROJECTOR_INSTANCE = name;
    const port = this.ports.get(name);
    const portVariable = kind === 'projector' ? 'PROJECTOR_PORT' : kind === 'image-worker' ? 'IMAGE_WORKER_PORT' : 'PORT';
    if (port) extra[portVariable] = port;
    const s = await spawnService(kind, { ...this.env(), ...extra, ...env }, undefined, release ? { root: release } : {});
    this.services.set(name, s);
    this.ports.set(name, new URL(s.url).port);
    return s;
  }

  async kill(name: string): Promise<void> {
    const s = this.services.get(name);
    if (!s) return;
    this.services.delete(name);
    s.child.kill('SIGKILL');
    await s.stop();
  }

  /** Sends a signal to a running process (SIGSTOP pauses it, SIGCONT resumes it). */
  signal(name: string, signal: NodeJS.Signals): void {
    const s = this.services.get(name);
    if (!s) throw new Error(`${name} is not running`);
    s.child.kill(signal);
  }

  /** The cluster's store as its processes open it: personal fields decrypted with its member keys. */
  async store(): Promise<EventStore> {
    this.directStore ??= await openPersonalDataEventStore(this.storeUrl(new URL(testPostgresUrl()).host));
    return this.directStore;
  }

  /** Waits until the projector's checkpoint is the store's head position. */
  async projectorCaughtUp(timeoutMs = 30_000): Promise<void> {
    const store = await this.store();
    const redis = new Redis(this.options.redisUrl, { maxRetriesPerRequest: 2 });
    try {
      const readModels = createRedisReadModels({ redis, root: `${this.prefix}rm` });
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const head = positionToString(await store.headPosition());
        const checkpoint = await (await readModels.active()).checkpoint();
        if (checkpoint === head) return;
        if (Date.now() > deadline) throw new Error(`projector at ${checkpoint}, store head ${head} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      redis.disconnect();
    }
  }

  /**
   * The projector's live read models next to a clean rebuild: every event of the store projected
   * from 0 into a fresh key root, in batches like the subscription's.
   */
  async liveAndRebuilt(): Promise<{ live: ReadModelDump; rebuilt: ReadModelDump; events: number }> {
    const store = await this.store();
    const redis = new Redis(this.options.redisUrl, { maxRetriesPerRequest: 2 });
    try {
      const live = await (await createRedisReadModels({ redis, root: `${this.prefix}rm` }).active()).dump();
      const root = `${this.prefix}clean${this.cleanRoots.length}`;
      this.cleanRoots.push(root);
      const clean = createRedisReadModels({ redis, root }).keyspace('ks0');
      const all = await readEverything(store);
      for (let i = 0; i < all.length; i += 500) await projectInto(clean, toPositioned(all.slice(i, i + 500)));
      return { live, rebuilt: await clean.dump(), events: all.length };
    } finally {
      redis.disconnect();
    }
  }

  async close(): Promise<number[]> {
    const codes = await Promise.all([...this.services.values()].map((s) => s.stop('SIGTERM')));
    this.services.clear();
    await this.directStore?.close();
    const redis = new Redis(this.options.redisUrl, { maxRetriesPerRequest: 2 });
    try {
      await deleteKeysUnder(redis, this.prefix.replace(/:$/, ''));
    } catch {
      // a Redis the suite stopped on purpose
    } finally {
      redis.disconnect();
    }
    const client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
    await client.end();
    rmSync(this.dir, { recursive: true, force: true });
    return codes.map((c) => c ?? -1);
  }
}
