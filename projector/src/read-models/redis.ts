import { INITIAL_KEYSPACE, type ReadModelStore } from './port';
import { scanKeys, unlinkKeys, type RedisConnection } from './redis-admin';
import { FencedWriteError, leaseKeys, type Fencing } from './redis/fencing';
import { keyspacePrefix, outdatedAt } from './redis/keys';
import { RedisKeyspace } from './redis/keyspace';
import { loadLua, runLua } from './redis/lua';
import { TextMirrors } from './redis/text-mirrors';

const ACTIVATE = loadLua(new URL('./redis/activate.lua', import.meta.url));
const FENCE = loadLua(new URL('./redis/fence.lua', import.meta.url));
/** A dropped keyspace keeps its fence this long, so a deposed leader's late batch cannot bring its keys back. */
const DROPPED_FENCE_MS = 24 * 60 * 60 * 1000;

// The Redis adapter of ReadModelStore: which keyspace readers use, and keyspaces as a whole. A
// keyspace's own reads and writes are in redis/ (keys.ts has the key layout).

export interface RedisReadModelsOptions {
  /** A single Redis or a Redis Cluster. */
  redis: RedisConnection;
  /** Key prefix of everything this store writes, e.g. `pass:rm`. */
  root?: string;
  /** How long a reader trusts its cached idea of the active keyspace. */
  activeCacheMs?: number;
  /**
   * The projector's lease epoch (projector/src/leadership): every write is fenced by it. Absent
   * for readers and for a projector that is the only one (no lease).
   */
  fencing?: Fencing;
  /** Told why a reader's copy of a text index could not load (searches then read the word-start sets). */
  onTextMirrorError?: (error: unknown) => void;
}

/** The Redis read models as a fenced projector uses them: it raises a keyspace's fence before its first write there. */
export type RedisReadModels = ReadModelStore & { readonly root: string; raiseFence(id: string): Promise<void> };

export function createRedisReadModels(options: RedisReadModelsOptions): RedisReadModels {
  const { redis, fencing } = options;
  const root = options.root ?? 'pass:rm';
  const { active: activeKey, lease: leaseKey } = leaseKeys(root);
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
  // Only a reader that searches ever loads one (on its first search).
  const mirrors = new TextMirrors(redis, options.onTextMirrorError);
  const keyspace = (id: string) => new RedisKeyspace(redis, root, id, fencing, mirrors);
  const fenceKey = (id: string) => `${keyspacePrefix(root, id)}fence`;

  return {
    kind: 'redis',
    root,
    activeId,
    active: async () => keyspace(await activeId()),
    keyspace,
    activate: async (id) => {
      if (!fencing) await redis.set(activeKey, id);
      else {
        const epoch = String(fencing.token());
        if ((await runLua(redis, ACTIVATE, 2, [activeKey, leaseKey, id, epoch])) !== 1) throw new FencedWriteError(id, epoch);
      }
      cached = { id, at: Date.now() };
    },
    drop: async (id) => {
      if (id === (await redis.get(activeKey))) throw new Error(`Keyspace ${id} is active; activate another one first`);
      const epoch = fencing?.token();
      // One keyspace is one slot: a single UNLINK per batch even on a cluster.
      for await (const keys of scanKeys(redis, `${keyspacePrefix(root, id)}*`)) await unlinkKeys(redis, keys, true);
      if (epoch !== undefined) await redis.set(fenceKey(id), String(epoch), 'PX', DROPPED_FENCE_MS);
    },
    raiseFence: async (id) => {
      if (fencing) await runLua(redis, FENCE, 1, [fenceKey(id), String(fencing.token())]);
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
