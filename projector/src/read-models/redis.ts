import { INITIAL_KEYSPACE, type ReadModelStore } from './port';
import { scanKeys, unlinkKeys, type RedisConnection } from './redis-admin';
import { keyspacePrefix, outdatedAt } from './redis/keys';
import { RedisKeyspace } from './redis/keyspace';

// The Redis adapter of ReadModelStore: which keyspace readers use, and keyspaces as a whole. A
// keyspace's own reads and writes are in redis/ (keys.ts has the key layout).

export interface RedisReadModelsOptions {
  /** A single Redis or a Redis Cluster. */
  redis: RedisConnection;
  /** Key prefix of everything this store writes, e.g. `pass:rm`. */
  root?: string;
  /** How long a reader trusts its cached idea of the active keyspace. */
  activeCacheMs?: number;
}

export function createRedisReadModels(options: RedisReadModelsOptions): ReadModelStore & { readonly root: string } {
  const { redis } = options;
  const root = options.root ?? 'pass:rm';
  const activeKey = `${root}:active`;
  const cacheMs = options.activeCacheMs ?? 250;
  let cached: { id: string; at: number } | null = null;

  const activeId = async () => {
    if (cached && Date.now() - cached.at < cacheMs) return cached.id;
    // First use claims the initial keyspace; SET NX keeps a concurrent instance's choice and GET
    // returns it, in one round trip (NX with GET needs Redis 7, as ZINTERCARD already does).
    const id = (await redis.set(activeKey, INITIAL_KEYSPACE, 'NX', 'GET')) ?? INITIAL_KEYSPACE;
    cached = { id, at: Date.now() };
    return id;
  };
  const keyspace = (id: string) => new RedisKeyspace(redis, root, id);

  return {
    kind: 'redis',
    root,
    activeId,
    active: async () => keyspace(await activeId()),
    keyspace,
    activate: async (id) => {
      await redis.set(activeKey, id);
      cached = { id, at: Date.now() };
    },
    drop: async (id) => {
      if (id === (await redis.get(activeKey))) throw new Error(`Keyspace ${id} is active; activate another one first`);
      // One keyspace is one slot: a single UNLINK per batch even on a cluster.
      for await (const keys of scanKeys(redis, `${keyspacePrefix(root, id)}*`)) await unlinkKeys(redis, keys, true);
    },
    list: async () => {
      const ids = new Set<string>();
      for await (const keys of scanKeys(redis, `${root}:{*}:checkpoint`)) {
        for (const key of keys) ids.add(key.slice(root.length + 2, -'}:checkpoint'.length));
      }
      return [...ids].sort();
    },
    outdated: (id) => outdatedAt(redis, keyspacePrefix(root, id)),
    close: async () => {},
  };
}
