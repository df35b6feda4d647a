import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { openPgliteEventStore } from '@pass/events/event-store/pglite';
import type { EventStore } from '@pass/events';
import { broadcastPublisher, type LiveEvent } from './live/publisher';
import { createProjector, type Projector } from './projector';
import { projectInto } from './projections/apply';
import { positioned, recordedDay, ANA, BOB } from './projections/recorded-events';
import { createMemoryReadModels } from './read-models/memory';
import type { ReadModelStore } from './read-models/port';
import { appendEvents, toNewEvent } from './testing/append';
import { generateEvents } from './testing/generate-events';

const logger = pino({ level: 'silent' });

describe('projector over a PGlite event store', () => {
  let store: EventStore;
  let readModels: ReadModelStore;
  let projector: Projector | undefined;
  let heard: LiveEvent[];
  const bus = new EventEmitter();

  beforeEach(async () => {
    store = await openPgliteEventStore();
    readModels = createMemoryReadModels();
    heard = [];
    bus.removeAllListeners();
    for (const name of ['updatedMainData', 'globalMember', 'globalMessage', 'chatMessage', 'chatMessages'] as const) {
      bus.on(name, (payload) => heard.push({ name, payload } as LiveEvent));
    }
  });
  afterEach(async () => {
    await projector?.stop();
    projector = undefined;
    await store.close();
  });

  const start = async (overrides: Partial<Parameters<typeof createProjector>[0]> = {}) => {
    projector = createProjector({ eventStore: store, readModels, publisher: broadcastPublisher(bus), logger, maxBatchSize: 50, ...overrides });
    await projector.start();
    return projector;
  };

  it('catches up on stored events, then follows new ones, giving the same read model as projecting them directly', async () => {
    await appendEvents(store, recordedDay.slice(0, 20));
    const p = await start();
    await p.settled();
    expect((await readModels.active().then((k) => k.main())).userSeq).toBe(3);
    await appendEvents(store, recordedDay.slice(20));
    await p.settled();

    const direct = await createMemoryReadModels().active();
    await projectInto(direct, positioned(recordedDay));
    const [got, want] = [await (await readModels.active()).dump(), await direct.dump()];
    expect({ ...got, checkpoint: null }).toEqual({ ...want, checkpoint: null });
    expect(got.checkpoint).toBe((await p.status()).headPosition);
  });

  it('broadcasts figures, new posts, chat messages, and the history after a clear', async () => {
    const p = await start();
    const anaPosts = recordedDay.findIndex((e) => e.type === 'CertificatePosted');
    const firstPurchase = recordedDay.findIndex((e) => e.type === 'PointsPurchased');
    await appendEvents(store, recordedDay.slice(0, firstPurchase)); // supply, admin, three users, free points
    await p.settled();
    heard = [];
    await appendEvents(store, recordedDay.slice(firstPurchase, anaPosts + 1)); // Bob buys; Ana claims a pass and posts
    await p.settled();
    const names = heard.map((e) => e.name);
    expect(names).toContain('updatedMainData');
    expect(names).toContain('globalMember');
    const main = heard.findLast((e) => e.name === 'updatedMainData');
    expect(main?.payload).toMatchObject({ mainData: { sold: 1, members: 1, purchasesUsd: 5 }, countries: { distinct: 1, top: [{ country: 'Peru', users: 1 }] } });
    expect(heard.find((e) => e.name === 'globalMember')?.payload).toMatchObject({ user: { id: ANA, fullname: 'Ana María' }, message: 'Hola a todos' });

    const clear = recordedDay.findIndex((e) => e.type === 'ChatCleared');
    await appendEvents(store, recordedDay.slice(anaPosts + 1, clear));
    await p.settled();
    heard = [];
    const clearAndTalk = recordedDay.slice(clear, clear + 2); // ChatCleared, then Bob writes
    for (const e of clearAndTalk) await appendEvents(store, [e]);
    await p.settled();
    // A browser replaces its panel on chatMessages and appends on chatMessage.
    let panel: string[] = ['m1', 'm2'];
    for (const e of heard) {
      if (e.name === 'chatMessages') panel = e.payload.messages.map((m) => m.id);
      if (e.name === 'chatMessage') panel.push(e.payload.id);
    }
    expect(heard.some((e) => e.name === 'chatMessages')).toBe(true);
    expect(panel).toEqual(['m3']);
    expect((await (await readModels.active()).chat(50)).messages[0]).toMatchObject({ id: 'm3', userId: BOB });
  });

  it('restarts from its checkpoint without applying anything twice', async () => {
    const events = [...generateEvents({ users: 120, seed: 3 })];
    await appendEvents(store, events.slice(0, 300));
    const first = await start();
    await first.settled();
    await first.stop();
    await appendEvents(store, events.slice(300));
    expect((await first.status()).lagEvents).toBe(events.length - 300);

    const second = await start();
    await second.settled();
    const direct = await createMemoryReadModels().active();
    await projectInto(direct, positioned(events));
    const [got, want] = [await (await readModels.active()).dump(), await direct.dump()];
    expect({ ...got, checkpoint: null }).toEqual({ ...want, checkpoint: null });
    const status = await second.status();
    expect(status).toMatchObject({ running: true, caughtUp: true, lagEvents: 0, lagSeconds: 0, lastError: null });
    expect(status.position).toBe(status.headPosition);
  });

  it('stops at an event it cannot read, reports it, and never skips it', async () => {
    await appendEvents(store, recordedDay.slice(0, 5));
    await store.append('user-broken', [toNewEvent({ type: 'UserRegistered', data: { userId: 'x' } } as never)]);
    await appendEvents(store, recordedDay.slice(5, 8));
    const p = await start();
    await expect.poll(async () => (await p.status()).lastError, { timeout: 5_000 }).toMatch(/registeredAt|Invalid|expected/i);
    const status = await p.status();
    expect(status.lagEvents).toBe(4); // the unreadable event and the three after it
    expect(status.lagSeconds).toBeGreaterThanOrEqual(0);
    expect((await (await readModels.active()).main()).userSeq).toBe(1);
  });
});
