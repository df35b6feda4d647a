import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streams, type CommandContext, type EventStore, type Image, type UserEvent } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { newEvent } from '../kernel/new-event';
import { cardImageOf, cardPath } from './card-images';
import { startOrphanSweep } from './orphan-sweep';

let store: EventStore;
let dir: string;
beforeAll(async () => {
  store = await openPgliteEventStore();
  dir = await mkdtemp(join(tmpdir(), 'pass-card-images-'));
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const at = new Date('2026-01-01T10:00:00.000Z');
const ctx: CommandContext = { correlationId: 'c', causationId: 'c', actor: { type: 'system', id: 'test' }, now: at };
const imageOf = (memberId: string, n: number): Image => {
  const id = n.toString(16).padStart(32, '0');
  const path = cardPath(memberId, id);
  return { path, public_id: id, url: `/uploads/${path}` };
};
const card = (userId: string, image: Image): UserEvent => ({
  type: 'CertificatePosted',
  data: { userId, fullname: 'Ana', country: 'Spain', email: 'a@example.com', link: 'https://a.example.com', image, message: 'Hi', postedAt: at.toISOString() },
});
const chat = (userId: string, n: number): UserEvent => ({
  type: 'ChatMessageSent',
  data: { userId, messageId: `m${n}`, nickname: 'Ana', message: 'hi', priority: '', pointsSpent: 1, sentAt: at.toISOString() },
});
const append = (userId: string, events: UserEvent[]) => store.append(streams.user(userId), events.map((e) => newEvent(e, ctx)));

async function file(path: string, hoursOld: number) {
  const full = join(dir, path);
  await mkdir(dirname(full), { recursive: true });
  await writeFile(full, 'x');
  const when = new Date(Date.now() - hoursOld * 60 * 60_000);
  await utimes(full, when, when);
}

describe('a card image in the member stream', () => {
  it('is the last one set, read back past pages of other events, or none once deleted', async () => {
    const chats = Array.from({ length: 120 }, (_, i) => chat('u-read', i));
    await append('u-read', [card('u-read', imageOf('u-read', 1)), ...chats]);
    expect(await cardImageOf(store, streams.user('u-read'))).toEqual(imageOf('u-read', 1));
    await append('u-read', [card('u-read', imageOf('u-read', 2)), { type: 'MemberPostDeleted', data: { userId: 'u-read', deletedBy: 'admin', deletedAt: at.toISOString() } }]);
    expect(await cardImageOf(store, streams.user('u-read'))).toBeNull();
    // At a past revision: 0 is the first card, 121 the second.
    expect(await cardImageOf(store, streams.user('u-read'), 0)).toEqual(imageOf('u-read', 1));
    expect(await cardImageOf(store, streams.user('u-read'), 121)).toEqual(imageOf('u-read', 2));
    expect(await cardImageOf(store, streams.user('u-read'), -1)).toBeNull();
    expect(await cardImageOf(store, streams.user('nobody'))).toBeNull();
  });
});

describe('the orphan sweep', () => {
  it('checks the members a crash interrupted: keeps held, young, pre-layout and unknown files; removes the old ones no stream holds', async () => {
    const held = imageOf('u-sweep', 7);
    await append('u-sweep', [card('u-sweep', held)]);
    const replaced = imageOf('u-sweep', 6).path;
    const young = imageOf('u-sweep', 8).path;
    const neverPosted = imageOf('u-none', 1).path;
    await file(held.path, 2);
    await file(replaced, 2);
    await file(young, 0);
    await file(neverPosted, 2);
    // Interrupted changes leave their markers; a member with none was never interrupted.
    await file('pending/u-sweep.0000000000000001', 2);
    await file('pending/u-none.0000000000000002', 2);
    await file('pending/u-busy.0000000000000003', 0);
    const busy = imageOf('u-busy', 1).path;
    await file(busy, 2);
    await file('incoming/00000000000000000000000000000001.webp', 2);
    await file('incoming/00000000000000000000000000000002.webp', 0);
    await file('ab/00000000000000000000000000000003.webp', 2); // before this layout: never swept
    await file('cards/u-/notes.txt', 2); // not a card image's name
    await mkdir(join(dir, 'incoming', 'a-folder'), { recursive: true });

    await startOrphanSweep({ uploadsDir: dir, store, logger: pino({ level: 'silent' }) }).done;
    const kept = (path: string) => existsSync(join(dir, path));
    expect(kept(held.path)).toBe(true);
    expect(kept(young)).toBe(true);
    expect(kept('incoming/00000000000000000000000000000002.webp')).toBe(true);
    expect(kept('ab/00000000000000000000000000000003.webp')).toBe(true);
    expect(kept('cards/u-/notes.txt')).toBe(true);
    expect(kept('incoming/a-folder')).toBe(true);
    expect(kept(busy)).toBe(true); // its change is still in flight (young marker)
    expect(kept('pending/u-busy.0000000000000003')).toBe(true);
    expect(kept('pending/u-sweep.0000000000000001')).toBe(false);
    expect(kept('pending/u-none.0000000000000002')).toBe(false);
    expect(kept(replaced)).toBe(false);
    expect(kept(neverPosted)).toBe(false);
    expect(kept('incoming/00000000000000000000000000000001.webp')).toBe(false);
  });
});
