import type { Keyspace } from '../port';
import { scanKeys, type RedisConnection } from '../redis-admin';
import { CHAT_HISTORY_LIMIT, type ReadModelDump, type UserRow } from '../types';

/** Everything a keyspace holds, sorted so that two dumps compare (ReadModelDump). */
export async function dumpKeyspace(redis: RedisConnection, keyspace: Keyspace & { readonly prefix: string }): Promise<ReadModelDump> {
  const { prefix } = keyspace;
  const sets: ReadModelDump['sets'] = {};
  const names: string[] = [];
  for await (const batch of scanKeys(redis, `${prefix}z:*`)) names.push(...batch);
  for (const key of names.sort()) {
    const flat = await redis.zrange(key, 0, '-1', 'WITHSCORES');
    const entries: Array<[string, number]> = [];
    for (let i = 0; i < flat.length; i += 2) entries.push([flat[i]!, Number(flat[i + 1])]);
    if (entries.length > 0) sets[key.slice(prefix.length + 2)] = entries;
  }
  const rows = Object.values(await redis.hgetall(`${prefix}rows`))
    .map((json) => JSON.parse(json) as UserRow)
    .sort((a, b) => (a.key < b.key ? -1 : 1));
  const flatCountries = await redis.zrange(`${prefix}countries`, 0, '-1', 'WITHSCORES');
  const countries: Array<[string, number]> = [];
  for (let i = 0; i < flatCountries.length; i += 2) countries.push([flatCountries[i]!, -Number(flatCountries[i + 1])]);
  countries.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const emails = Object.entries(await redis.hgetall(`${prefix}emails`)).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return {
    checkpoint: await keyspace.checkpoint(),
    main: await keyspace.main(),
    rows,
    sets,
    emails,
    countries,
    chat: (await keyspace.chat(CHAT_HISTORY_LIMIT)).messages,
    posts: await keyspace.posts(),
    progress: await keyspace.progress(),
  };
}
