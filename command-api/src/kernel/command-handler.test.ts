import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { isDomainError, streams, type EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { userDecider } from '../members/decider';
import { memberWithPoints, testContext } from '../test-support/handler-fixtures';
import { CommandHandler } from './command-handler';

const logger = pino({ level: 'silent' });
let store: EventStore;
let handler: CommandHandler;
const nowMs = Date.parse('2026-03-01T12:00:00.000Z');
const clock = () => new Date(nowMs);
const ctx = () => testContext(clock());
const member = (points: number) => memberWithPoints(handler, points, clock);

beforeEach(async () => {
  store = await openPgliteEventStore();
  handler = new CommandHandler({ eventStore: store, logger });
});
afterEach(async () => {
  await store.close();
});

describe('command handler', () => {
  it('decides on fresh state when another process wrote to the stream (cache is never trusted blindly)', async () => {
    const userId = await member(10);
    const other = new CommandHandler({ eventStore: store, logger });
    // This process caches the member with 10 points; another process spends all of them.
    await handler.load(userDecider, streams.user(userId));
    for (let i = 0; i < 10; i++) {
      await other.handle(userDecider, streams.user(userId), { type: 'SendChatMessage', data: { userId, messageId: randomUUID(), message: 'x' }, now: clock() }, ctx());
    }
    await expect(
      handler.handle(userDecider, streams.user(userId), { type: 'SendChatMessage', data: { userId, messageId: randomUUID(), message: 'x' }, now: clock() }, ctx()),
    ).rejects.toMatchObject({ code: 'insufficient_points' });
    // And a refusal on stale state is re-checked: the other process credits points.
    await other.handle(userDecider, streams.user(userId), { type: 'CreditPurchase', data: { userId, provider: 'simulated', orderId: 'o', captureId: 'c', amountUsd: 1, points: 100 }, now: clock() }, ctx());
    const sent = await handler.handle(userDecider, streams.user(userId), { type: 'SendChatMessage', data: { userId, messageId: randomUUID(), message: 'x' }, now: clock() }, ctx());
    expect(sent.state.points).toBe(99);
  });

  it('decides commands queued on one stream one after another, appending the accepted ones together', async () => {
    const userId = await member(10);
    const send = () =>
      handler.handle(userDecider, streams.user(userId), { type: 'SendChatMessage', data: { userId, messageId: randomUUID(), message: 'x' }, now: clock() }, ctx());
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, send));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    expect(outcomes.filter((o) => o.status === 'rejected').every((o) => isDomainError(o.reason, 'insufficient_points'))).toBe(true);
    const recorded = await store.readStream(streams.user(userId));
    expect(recorded.filter((e) => e.type === 'ChatMessageSent')).toHaveLength(10);
    // Each accepted command answers the state and revision right after its own event.
    const points = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.state.points] : [])).sort((a, b) => a - b);
    expect(points).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const revisions = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.revision] : [])).sort((a, b) => a - b);
    expect(revisions).toEqual(recorded.filter((e) => e.type === 'ChatMessageSent').map((e) => e.revision));
  });

  it('stamps every event with the metadata every event carries', async () => {
    const userId = await member(10);
    const [recorded] = await store.readStream(streams.user(userId));
    expect(recorded?.metadata).toMatchObject({ schemaVersion: 1, actor: { type: 'system', id: 'test' } });
    expect(recorded?.metadata.eventId).toBe(recorded?.id);
    expect(typeof recorded?.metadata.correlationId).toBe('string');
    expect(typeof recorded?.metadata.causationId).toBe('string');
    expect(recorded?.metadata.occurredAt).toBe(new Date(nowMs).toISOString());
  });

  it('loads a stream longer than its read page whole, however its length falls on the pages', async () => {
    // Pages of 3 events. A member's stream: their registration, then one event per message, so
    // 2, 3, 6 and 9 events: within a page, and exactly one, two and three pages.
    const paged = new CommandHandler({ eventStore: store, logger, readPage: 3 });
    const asked: (number | undefined)[] = [];
    const counting = { readStream: (id: string, options?: { fromRevision?: number; maxCount?: number }) => (asked.push(options?.maxCount), store.readStream(id, options)) } as EventStore;
    for (const sent of [1, 2, 5, 8]) {
      const userId = await member(10);
      for (let i = 0; i < sent; i++) {
        await paged.handle(userDecider, streams.user(userId), { type: 'SendChatMessage', data: { userId, messageId: randomUUID(), message: `m${i}` }, now: clock() }, ctx());
      }
      const fresh = new CommandHandler({ eventStore: counting, logger, readPage: 3 });
      const loaded = await fresh.load(userDecider, streams.user(userId));
      expect(loaded.state.points).toBe(10 - sent);
      expect(loaded.revision).toBe(sent);
    }
    // Never more than a page held at once.
    expect(asked.length).toBeGreaterThan(4);
    expect(asked.every((n) => n === 3)).toBe(true);
  });
});
