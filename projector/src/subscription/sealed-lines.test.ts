import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { DomainEvent, RecordedEvent } from '@pass/events';
import { EncryptingEventStore, MemoryKeyStore } from '@pass/events/personal-data';
import { openPgliteEventStore, type SqlEventStore } from '@pass/events/store';
import { projectInto } from '../projections/apply';
import { projectBatch } from '../projections/batch';
import { chatLinesLeavingHistory } from '../projections/chat-history';
import { createProjector, type Projector } from '../projector';
import { createMemoryReadModels } from '../read-models/memory';
import { emptyMain } from '../read-models/types';
import { appendEvents } from '../test-support/append';
import { chattySite } from '../test-support/chat-site';
import { positioned } from '../test-support/recorded-events';
import { SealedLines } from './sealed-lines';

const logger = pino({ level: 'silent' });
const site = chattySite();
const { register, say, erase, clear } = site;
const types = (...spec: Array<[DomainEvent['type'], number]>) => spec.flatMap(([type, n]) => Array.from({ length: n }, () => ({ type })));

describe('chat lines a batch takes out of the history', () => {
  it('are the lines followed by as many lines as the history keeps, or by a clear, with no erasure between', () => {
    expect(chatLinesLeavingHistory(types(['ChatMessageSent', 105]))).toEqual([0, 1, 2, 3, 4]);
    expect(chatLinesLeavingHistory(types(['ChatMessageSent', 100]))).toEqual([]);
    expect(chatLinesLeavingHistory(types(['ChatMessageSent', 3], ['FreePointAwarded', 2], ['ChatCleared', 1], ['ChatMessageSent', 1]))).toEqual([0, 1, 2]);
    // An erasure may leave room for older lines: none before it leaves on account of what follows it.
    expect(chatLinesLeavingHistory(types(['ChatMessageSent', 60], ['MemberErased', 1], ['ChatMessageSent', 150]))).toEqual(Array.from({ length: 50 }, (_, i) => 61 + i));
    expect(chatLinesLeavingHistory(types(['ChatMessageSent', 2], ['MemberErased', 1], ['ChatCleared', 1]))).toEqual([]);
  });

  it('are counted when left sealed, never written nor announced', () => {
    const events = positioned([register('a'), ...say('a', 105)]);
    for (const i of chatLinesLeavingHistory(events.map((e) => e.event))) events[i]!.sealed = true;
    const { batch, live } = projectBatch(events, { checkpoint: null, main: emptyMain(), users: new Map(), posts: [], progressDay: null });
    const written = batch!.writes.flatMap((w) => (w.op === 'chatPush' ? [w.message.message] : []));
    expect(written).toHaveLength(100);
    expect(written[0]).toBe(`line ${site.sent - 99}`);
    expect(live.filter((n) => n.kind === 'chatMessage')).toHaveLength(100);
    expect(batch!.writes.find((w) => w.op === 'main')).toMatchObject({ main: { globalMessages: 105 } });
  });

  it('cut a batch short by an unreadable event before the first line the shorter batch keeps', () => {
    const recorded = positioned([...say('a', 130), clear(), ...say('a', 3)]).map(
      (p, i): RecordedEvent => ({ id: `e${i}`, streamId: 's', revision: i, position: p.position, type: p.event.type, data: p.event.data, metadata: {}, recordedAt: new Date(0) }),
    );
    const lines = new SealedLines(() => true);
    expect(lines.choose(recorded).size).toBe(130);
    const parsedAll = positioned(recorded.map((r) => ({ type: r.type, data: r.data }) as DomainEvent));
    expect(lines.mark(recorded, parsedAll.map((p) => ({ ...p })))).toHaveLength(134);
    // Without the clear (unreadable, say), lines 30 to 129 would stay in the history.
    const cut = lines.mark(recorded, parsedAll.slice(0, 130).map((p) => ({ ...p })));
    expect(cut).toHaveLength(30);
    expect(cut.every((p) => p.sealed)).toBe(true);
    expect(new SealedLines(() => false).choose(recorded).size).toBe(0);
  });
});

describe('a catch-up over sealed personal data', () => {
  let projector: Projector | undefined;
  let inner: SqlEventStore | undefined;
  afterEach(async () => {
    await projector?.stop();
    await inner?.close();
    projector = inner = undefined;
  });

  it('leaves the lines its batches take out of the history unopened, with the same read models, and opens live ones', async () => {
    inner = await openPgliteEventStore();
    const store = new EncryptingEventStore(inner, new MemoryKeyStore());
    const history = [...['a', 'b', 'c'].map(register), ...say('a', 160), ...say('c', 20), erase('c'), ...say('b', 30), clear(), ...say('a', 120)];
    await appendEvents(store, history);
    // A sealed text that no longer verifies stops a projector that opens it. These two lines
    // leave the history within the catch-up's batch, so it never does.
    const lines = history.filter((e): e is Extract<DomainEvent, { type: 'ChatMessageSent' }> => e.type === 'ChatMessageSent');
    // The first line (179 lines follow it before the erasure) and one cleared by the clear.
    for (const line of [lines[0]!, lines[200]!]) {
      await inner.client.query(`UPDATE event_store.events SET data = jsonb_set(data, '{nickname}', to_jsonb($1::text)) WHERE data->>'messageId' = $2`, [
        'pd1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        line.data.messageId,
      ]);
    }
    const readModels = createMemoryReadModels();
    projector = createProjector({ eventStore: store, readModels, logger, maxBatchSize: 1_000 });
    await projector.start();
    await projector.caughtUp();
    expect((await projector.status()).lastError).toBeNull();

    const direct = await createMemoryReadModels().active();
    await projectInto(direct, positioned(history));
    const projected = await (await readModels.active()).dump();
    const withoutCheckpoint = ({ checkpoint: _, ...rest }: Awaited<ReturnType<typeof direct.dump>>) => rest;
    expect(withoutCheckpoint(projected)).toEqual(withoutCheckpoint(await direct.dump()));
    expect(projected.chat.map((m) => m.message)).toEqual(Array.from({ length: 100 }, (_, i) => `line ${site.sent - 99 + i}`));
    expect(projected.main.globalMessages).toBe(120);

    // Live, every line is opened and pushed, even 150 in one batch.
    const live = say('b', 150);
    await appendEvents(store, live);
    await projector.settled();
    await projectInto(direct, positioned([...history, ...live]).slice(history.length));
    expect(withoutCheckpoint(await (await readModels.active()).dump())).toEqual(withoutCheckpoint(await direct.dump()));
  });
});
