import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { fundsRaised, type DomainEvent } from '@pass/events';
import { ERASED_VALUE, personalFieldsOf } from '@pass/events/personal-data';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { createMemoryReadModels } from '../read-models/memory';
import { createRedisReadModels } from '../read-models/redis';
import { deleteKeysUnder } from '../read-models/redis-admin';
import type { Keyspace } from '../read-models/port';
import { generateEvents } from '../test-support/generate-events';
import { ANA, BOB, positioned, recordedDay } from '../test-support/recorded-events';
import { projectInto } from './apply';
import type { PositionedEvent } from './types';

const erased: DomainEvent = { type: 'MemberErased', data: { userId: BOB, requestedBy: 'member', erasedAt: '2026-11-03T12:00:00.000Z' } };
// Bob chats once more after the chat was cleared, so the history holds a line of his to drop.
const bobChats: DomainEvent = {
  type: 'ChatMessageSent',
  data: { userId: BOB, messageId: 'm9', nickname: 'Bob Stone', message: 'still here', priority: 'specialUser', pointsSpent: 0, sentAt: '2026-11-03T11:00:00.000Z' },
};
const history = [...recordedDay, bobChats, ...generateEvents({ users: 300, seed: 3 })];

/** The events as the store reads them once Bob's key is destroyed: his personal fields ''. */
const shredded = (events: DomainEvent[]): DomainEvent[] =>
  events.map((e) => {
    const spec = personalFieldsOf(e.type);
    const data = e.data as Record<string, unknown>;
    if (!spec || data[spec.owner] !== BOB) return e;
    return { ...e, data: { ...data, ...Object.fromEntries(spec.fields.map((f) => [f, ERASED_VALUE])) } } as DomainEvent;
  });

async function project(ks: Keyspace, events: PositionedEvent[], size: number): Promise<Keyspace> {
  for (let i = 0; i < events.length; i += size) await projectInto(ks, events.slice(i, i + size));
  return ks;
}

const reachable = await requireService('projector: erasure in Redis', testRedisUrl(), 6379);
const redis = reachable ? new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 }) : undefined;
const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await deleteKeysUnder(redis!, root);
  redis?.disconnect();
});

const adapters: [string, () => Promise<Keyspace>][] = [['memory', () => createMemoryReadModels().active()]];
if (redis) {
  adapters.push([
    'Redis',
    () => {
      const root = `test:erasure:${randomUUID()}`;
      roots.push(root);
      return createRedisReadModels({ redis, root }).active();
    },
  ]);
}

describe.each(adapters)('a member erased (%s read models)', (_name, fresh) => {
  it('leaves the member count, ranking, registry, countries, chat and posts; totals stay true to history', async () => {
    const before = await project(await fresh(), positioned(history), 100);
    const mainBefore = await before.main();
    const ks = await project(await fresh(), positioned([...history, erased]), 100);

    const main = await ks.main();
    expect(main).toEqual({ ...mainBefore, members: mainBefore.members - 1 });
    expect(fundsRaised(main)).toBe(fundsRaised(mainBefore));
    expect(await ks.userById(BOB)).toBeNull();
    expect(await ks.userById(ANA)).not.toBeNull();
    const ranking = await ks.users({ membersOnly: true, sets: [], offset: 0, limit: 500 });
    expect(ranking.rows.some((r) => r.row.userId === BOB)).toBe(false);
    expect(ranking.total).toBe((await before.users({ membersOnly: true, sets: [], offset: 0, limit: 1 })).total - 1);
    expect((await ks.users({ membersOnly: false, sets: [], email: 'bob@mail.org', offset: 0, limit: 5 })).total).toBe(0);
    expect((await ks.users({ membersOnly: false, sets: ['ix:bob' as const], offset: 0, limit: 5 })).rows.map((r) => r.row.userId)).not.toContain(BOB);
    const chile = (c: Awaited<ReturnType<Keyspace['countries']>>) => c.top.find((x) => x.country === 'Chile')?.users ?? 0;
    expect(chile(await ks.countries(50))).toBe(chile(await before.countries(50)) - 1);
    expect((await before.chat(500)).messages.some((m) => m.userId === BOB)).toBe(true);
    expect((await ks.chat(500)).messages).toEqual((await before.chat(500)).messages.filter((m) => m.userId !== BOB));
    expect((await ks.posts()).some((p) => p.user.id === BOB)).toBe(false);
    const dump = JSON.stringify(await ks.dump());
    for (const secret of ['bob@mail.org', 'Bob Stone', 'still here']) expect(dump).not.toContain(secret);
  });

  it('a rebuild from zero, reading the erased fields as empty, gives the same read models, whatever the batches', async () => {
    const live = await project(await fresh(), positioned([...history, erased]), 100);
    const rebuilt = await project(await fresh(), positioned([...shredded(history), erased]), 500);
    const oneBatch = await project(await fresh(), positioned([...shredded(history), erased]), 100_000);
    expect(await rebuilt.dump()).toEqual(await live.dump());
    expect(await oneBatch.dump()).toEqual(await live.dump());
  });
});
