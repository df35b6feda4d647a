import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { openPgliteEventStore } from '@pass/events/store';
import { Registry } from 'prom-client';
import { CHAT_PANEL_MESSAGES, positionFromString, type EventStore } from '@pass/events';
import { broadcastPublisher, type LiveEvent } from './live/publisher';
import { CATCH_UP_PUSH_MS } from './live/pusher';
import { createProjector, type Projector } from './projector';
import { projectInto, toPositioned } from './projections/apply';
import { positioned, recordedDay, ANA, BOB } from './test-support/recorded-events';
import { createMemoryReadModels } from './read-models/memory';
import type { Keyspace, ReadModelStore } from './read-models/port';
import type { WriteBatch } from './read-models/types';
import { readUpdatedMainData } from './read-models/views';
import { appendEvents, toNewEvent } from './test-support/append';
import { generateEvents } from './test-support/generate-events';

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

  /** `target` with some of its methods replaced; every other member reads through to it. */
  const keyspaceWith = (target: Keyspace, overrides: Partial<Keyspace>): Keyspace =>
    new Proxy(target, {
      get(t, prop) {
        if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof Keyspace];
        const value: unknown = Reflect.get(t, prop);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
      },
    });
  /** The test's read models, with `keyspace` as both the active one and every one asked for. */
  const serving = (keyspace: Keyspace): ReadModelStore => ({ ...readModels, active: async () => keyspace, keyspace: () => keyspace });

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

  /** What a browser connected during the whole catch-up shows, from the pushes alone. */
  const browserAfter = (pushes: LiveEvent[]) => {
    let figures: unknown;
    let popup: unknown;
    let panel: string[] = [];
    for (const e of pushes) {
      if (e.name === 'updatedMainData') figures = e.payload;
      if (e.name === 'chatMessages') panel = e.payload.messages.map((m) => m.id);
      if (e.name === 'chatMessage' && !panel.includes(e.payload.id)) panel.push(e.payload.id);
      if (e.name === 'globalMember' || e.name === 'globalMessage') popup = e.payload;
    }
    return { figures, panel, popup };
  };

  /** What a reload shows: the read models as they are stored. */
  const reloadShows = async (ks: Keyspace) => ({
    figures: await readUpdatedMainData(ks),
    panel: (await ks.chat(CHAT_PANEL_MESSAGES)).messages.map((m) => m.id),
  });

  it('while catching up, pushes the latest state now and then instead of after every batch, ending on what a reload shows', async () => {
    const generated = [...generateEvents({ users: 150, seed: 7 })];
    // recordedDay in the middle: a chat clear, with messages before and after it.
    const events = [...generated.slice(0, 400), ...recordedDay, ...generated.slice(400)];
    await appendEvents(store, events);

    const started = performance.now();
    const p = await start({ maxBatchSize: 5 });
    await p.caughtUp();
    await p.settled();
    const elapsed = performance.now() - started;

    const browser = browserAfter(heard);
    const reload = await reloadShows(await readModels.active());
    expect(browser.figures).toEqual(reload.figures);
    expect(browser.panel.slice(-CHAT_PANEL_MESSAGES)).toEqual(reload.panel);
    const direct = await projectInto(await createMemoryReadModels().active(), positioned(events));
    const lastPost = direct.live.findLast((n) => n.kind === 'globalMember' || n.kind === 'globalMessage');
    expect(browser.popup).toEqual(lastPost && 'post' in lastPost ? lastPost.post : undefined);
    // ~190 batches, but the figures went out once per CATCH_UP_PUSH_MS at most, plus the final state.
    const figurePushes = heard.filter((e) => e.name === 'updatedMainData').length;
    expect(figurePushes).toBeLessThanOrEqual(Math.floor(elapsed / CATCH_UP_PUSH_MS) + 2);
    expect(figurePushes).toBeLessThan(events.length / 5 / 4);

    // Caught up: each new batch is pushed as it is stored, as before.
    heard = [];
    await appendEvents(store, [{ type: 'ChatMessageSent', data: { userId: BOB, messageId: 'm-live', nickname: 'Bob', message: 'still here', priority: '', pointsSpent: 1, sentAt: new Date().toISOString() } }]);
    await p.settled();
    expect(heard.map((e) => e.name)).toEqual(['updatedMainData', 'chatMessage']);
  });

  it('falls behind while live, catches the backlog up again with coalesced pushes, and ends on what a reload shows', async () => {
    await appendEvents(store, recordedDay.slice(0, 5));
    const stored = await readModels.active();
    const stall: { until?: Promise<void> } = {};
    const stalling = keyspaceWith(stored, {
      apply: async (batch: WriteBatch) => {
        await stall.until;
        return stored.apply(batch);
      },
    });
    const p = await start({ readModels: serving(stalling), maxBatchSize: 5 });
    await p.caughtUp();
    await p.settled();

    // The read models stall while members keep acting: a backlog builds up behind one live batch.
    let resume!: () => void;
    stall.until = new Promise((done) => (resume = done));
    heard = [];
    const events = [...generateEvents({ users: 150, seed: 13 })];
    await appendEvents(store, events);
    resume();
    await p.settled();

    const figurePushes = heard.filter((e) => e.name === 'updatedMainData').length;
    expect(figurePushes).toBeLessThan(events.length / 5 / 4);
    const reload = await reloadShows(stored);
    const browser = browserAfter(heard);
    expect(browser.figures).toEqual(reload.figures);
    expect(browser.panel.slice(-CHAT_PANEL_MESSAGES)).toEqual(reload.panel.slice(-browser.panel.length));
    expect(await p.status()).toMatchObject({ caughtUp: true, lagEvents: 0, lastError: null });
    const direct = await createMemoryReadModels().active();
    await projectInto(direct, positioned([...recordedDay.slice(0, 5), ...events]));
    expect({ ...(await stored.dump()), checkpoint: null }).toEqual({ ...(await direct.dump()), checkpoint: null });
  });

  it('re-projects a catch-up batch refused because another writer moved the checkpoint, and browsers still end on the stored state', async () => {
    const events = [...generateEvents({ users: 150, seed: 11 })];
    await appendEvents(store, events);
    const stored = await readModels.active();
    // A second projector started by mistake stores the next few events first, just before this
    // projector's 4th batch: that batch expects a checkpoint that is no longer there.
    const competitor = async () => {
      const checkpoint = await stored.checkpoint();
      const next = await store.readAll({ ...(checkpoint ? { after: positionFromString(checkpoint) } : {}), maxCount: 7 });
      await projectInto(stored, toPositioned(next), checkpoint);
    };
    let applies = 0;
    const raced = keyspaceWith(stored, {
      apply: async (batch: WriteBatch) => {
        if (++applies === 4) await competitor();
        return stored.apply(batch);
      },
    });
    const registry = new Registry();

    // Each catch-up batch stored on its own, so the 4th apply is the 4th batch's.
    const p = await start({ readModels: serving(raced), metrics: registry, maxBatchSize: 5, catchUpWindow: { events: 1, writes: 1 } });
    await p.caughtUp();
    await p.settled();

    const errors = await registry.getSingleMetric('pass_projector_errors_total')!.get();
    expect(errors.values.reduce((sum, v) => sum + v.value, 0)).toBe(1);
    expect(await p.status()).toMatchObject({ caughtUp: true, lagEvents: 0, lastError: null });
    const direct = await createMemoryReadModels().active();
    await projectInto(direct, positioned(events));
    const [got, want] = [await stored.dump(), await direct.dump()];
    expect({ ...got, checkpoint: null }).toEqual({ ...want, checkpoint: null });
    const reload = await reloadShows(stored);
    expect(browserAfter(heard).figures).toEqual(reload.figures);
  });

  it('builds the search index once caught up, and again from the stored rows when the catch-up or the build is cut off', async () => {
    const events = [...generateEvents({ users: 150, seed: 5 })];
    await appendEvents(store, events);
    const stored = await readModels.active();
    // The 4th catch-up apply and the first write of the index build fail once each (Redis
    // unreachable for a moment): the projector resubscribes from what is stored.
    let applies = 0;
    let buildFailed = false;
    const flaky = keyspaceWith(stored, {
      apply: async (batch: WriteBatch) => {
        if (++applies === 4) throw new Error('Redis went away');
        if (!buildFailed && batch.writes.some((w) => w.op === 'zaddMany')) {
          buildFailed = true;
          throw new Error('Redis went away during the build');
        }
        return stored.apply(batch);
      },
    });
    // Windows of 3 batches: the 4th apply is a window in the middle of the catch-up.
    const p = await start({ readModels: serving(flaky), maxBatchSize: 20, catchUpWindow: { events: 60, writes: 10_000 } });
    await expect.poll(async () => (await p.status()).caughtUp, { timeout: 20_000 }).toBe(true);
    await p.settled();
    expect(buildFailed).toBe(true);
    expect(await stored.indexState()).toBe('complete');

    const direct = await createMemoryReadModels().active();
    await projectInto(direct, positioned(events));
    expect({ ...(await stored.dump()), checkpoint: null }).toEqual({ ...(await direct.dump()), checkpoint: null });
  });

  it('live, pushes after every batch the figures a reload shows, reading the countries only after a batch that moved them or a restart', async () => {
    const stored = await readModels.active();
    let countryReads = 0;
    const stall: { until?: Promise<void> } = {};
    const counting = keyspaceWith(stored, {
      countries: (limit: number) => {
        countryReads++;
        return stored.countries(limit);
      },
      snapshot: async (userIds: Iterable<string>) => {
        await stall.until;
        return stored.snapshot(userIds);
      },
    });
    const p = await start({ readModels: serving(counting) });
    await p.caughtUp();
    const events = [...generateEvents({ users: 12, seed: 21 })];
    const direct = await createMemoryReadModels().active();
    let moved = 0;
    for (const [i, e] of events.entries()) {
      await appendEvents(store, [e]);
      await p.settled();
      const alone = await projectInto(direct, positioned([e], i + 1));
      if (alone.live.some((n) => n.kind === 'mainData' && n.countriesChanged)) moved++;
      expect(browserAfter(heard).figures).toEqual((await reloadShows(stored)).figures);
    }
    const figurePushes = heard.filter((e) => e.name === 'updatedMainData').length;
    expect(moved).toBeGreaterThan(3);
    expect(figurePushes).toBeGreaterThan(2 * moved);
    expect(countryReads).toBeLessThanOrEqual(moved + 1);

    // A second projector, started by mistake, stores a member from a new country first: this one's
    // batch is refused, it restarts from the stored checkpoint, and its next push reads the countries again.
    const checkpoint = await stored.checkpoint();
    const generated = [...generateEvents({ users: 5, seed: 22, allMembers: true })];
    const holder = (generated.find((e) => e.type === 'CertificatePosted')!.data as { userId: string }).userId;
    const arrival = generated
      .filter((e) => (e.data as { userId?: string }).userId === holder)
      .map((e) => (e.type === 'CertificatePosted' ? { ...e, data: { ...e.data, country: 'Iceland' } } : e));
    let resume!: () => void;
    stall.until = new Promise((done) => (resume = done));
    await appendEvents(store, arrival);
    await projectInto(stored, toPositioned(await store.readAll({ after: positionFromString(checkpoint!) })), checkpoint);
    resume();
    await expect.poll(async () => (await p.status()).lastError).toMatch(/not where this projector left them/);
    await p.settled();
    heard = [];
    await appendEvents(store, [{ type: 'FreePointAwarded', data: { userId: holder, points: 1, awardedAt: '2026-06-01T10:00:00.000Z' } }]);
    await p.settled();
    const shown = browserAfter(heard).figures;
    expect(shown).toEqual((await reloadShows(stored)).figures);
    expect(shown).toMatchObject({ countries: { top: expect.arrayContaining([{ country: 'Iceland', users: 1 }]) } });
  });

  it('stopped while it subscribes again, lets that finish first and then projects nothing more', async () => {
    await appendEvents(store, recordedDay.slice(0, 5));
    const order: string[] = [];
    const gate: { until?: Promise<void> } = {};
    let entered!: () => void;
    const inHook = new Promise<void>((done) => (entered = done));
    // The runtime points readers at the keyspace here; a late one would undo a rebuild's switch.
    const onSubscribe = async () => {
      if (!gate.until) return;
      entered();
      await gate.until;
      order.push('readers pointed');
    };
    const p = await start({ maxBatchSize: 5, onSubscribe });
    await p.caughtUp();
    await p.settled();
    let open!: () => void;
    gate.until = new Promise((done) => (open = done));
    const events = [...generateEvents({ users: 30, seed: 9 })];
    await appendEvents(store, events.slice(0, 50)); // a full live batch: it catches up again, subscribing anew
    await inHook;

    const stopping = p.stop().then(() => order.push('stopped'));
    await Promise.race([stopping, new Promise((r) => setTimeout(r, 100))]);
    open();
    await stopping;
    expect(order).toEqual(['readers pointed', 'stopped']);

    const stored = await readModels.active();
    const at = await stored.checkpoint();
    await appendEvents(store, events.slice(50));
    await new Promise((r) => setTimeout(r, 500));
    expect(await stored.checkpoint()).toBe(at);
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
