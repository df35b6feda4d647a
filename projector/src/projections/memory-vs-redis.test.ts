import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { createMemoryReadModels } from '../read-models/memory';
import { createRedisReadModels } from '../read-models/redis';
import { deleteKeysUnder } from '../read-models/redis-admin';
import { parseQuery } from '../read-models/search';
import type { UserPageQuery } from '../read-models/types';
import { generateEvents } from '../test-support/generate-events';
import { projectInto } from './apply';
import { positioned, recordedDay } from '../test-support/recorded-events';

const reachable = await requireService('projector: memory vs Redis projections', testRedisUrl(), 6379);

/** A query as query-api's searchUsers makes it from a search box: the registry, or the ranking. */
function search(text: string, registry: boolean, offset: number): UserPageQuery {
  const { sets, registrySets } = parseQuery(text, registry);
  return { membersOnly: !registry, sets, ...(registrySets ? { registrySets } : {}), offset, limit: 50 };
}

describe.skipIf(!reachable)('the same events projected into memory and into Redis', () => {
  let redis: Redis;
  const root = `test:rm:${randomUUID()}`;

  beforeAll(() => {
    redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await deleteKeysUnder(redis, root);
    redis.disconnect();
  });

  it('give identical read models, query by query', async () => {
    const events = positioned([...recordedDay, ...generateEvents({ users: 1500, seed: 7 })]);
    const memory = await createMemoryReadModels().active();
    const inRedis = await createRedisReadModels({ redis, root }).active();
    for (let i = 0; i < events.length; i += 250) {
      const chunk = events.slice(i, i + 250);
      await projectInto(memory, chunk);
      await projectInto(inRedis, chunk);
    }
    const [m, r] = [await memory.dump(), await inRedis.dump()];
    expect(m.rows.length).toBe(1503);
    expect(r).toEqual(m);

    for (const query of <UserPageQuery[]>[
      { membersOnly: true, sets: [], offset: 0, limit: 50 },
      { membersOnly: true, sets: [], offset: 700, limit: 25 },
      { membersOnly: false, sets: [], offset: 1400, limit: 200 },
      { membersOnly: true, sets: ['ix:peru' as const], offset: 5, limit: 20 },
      { membersOnly: true, sets: ['ix:ana' as const, 'ix:peru' as const], offset: 0, limit: 50 },
      { membersOnly: false, sets: ['ix:united' as const, 'ix:states' as const], offset: 10, limit: 20 },
      { membersOnly: true, sets: ['ix:states' as const, 'ix:united' as const, 'ix:kim' as const], offset: 0, limit: 50 },
      { membersOnly: true, sets: ['ix:ana' as const, 'ix:smith' as const, 'ix:peru' as const, 'ix:chile' as const], offset: 0, limit: 50 },
      { membersOnly: false, sets: ['ix:mia' as const, 'ix:01/01/2026' as const], offset: 0, limit: 50 },
      // Word prefixes, and the registry's masked e-mail sets (parseQuery, as query-api sends them).
      search('an', true, 0),
      search('mar lo', true, 0),
      search('un st', false, 5),
      search('mem', false, 0),
      search('mem', true, 40),
      search('co', true, 20),
      search('co me', true, 0),
      search('an 01/01/2026', true, 0),
      { membersOnly: false, sets: [], email: 'member42@example.com', offset: 0, limit: 50 },
      { membersOnly: true, sets: [], email: 'member43@example.com', offset: 0, limit: 50 },
      { membersOnly: false, sets: [], email: 'nobody@example.com', offset: 0, limit: 50 },
    ]) {
      expect(await inRedis.users(query), JSON.stringify(query)).toEqual(await memory.users(query));
    }
    expect(await inRedis.countries(5)).toEqual(await memory.countries(5));
    expect(await inRedis.chat(50)).toEqual(await memory.chat(50));
  });
});
