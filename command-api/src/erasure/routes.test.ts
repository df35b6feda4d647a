import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streams } from '@pass/events';
import { EncryptingEventStore, MemoryKeyStore } from '@pass/events/personal-data';
import { openPgliteEventStore, type SqlEventStore } from '@pass/events/store';
import { cardPath } from '../uploads/card-images';
import { ADMIN, startHarness, testEmailStream, type Harness } from '../test-support/harness';
import { joinedMember } from '../test-support/members';

let h: Harness;
let inner: SqlEventStore;
beforeAll(async () => {
  inner = await openPgliteEventStore();
  h = await startHarness({ store: new EncryptingEventStore(inner, new MemoryKeyStore()) });
});
afterAll(async () => {
  await h?.close();
  await inner?.close();
});

const rawRows = async () => (await inner.client.query<{ row: string }>('SELECT data::text AS row FROM event_store.events')).rows.map((r) => r.row).join('\n');

describe('DELETE /api/my-account', () => {
  it('with a wrong password: 400 on the password field, nothing erased', async () => {
    const { b, user } = await joinedMember(h, undefined, 'pass1');
    const res = await b.request('DELETE', '/api/my-account', { password: 'nope1' });
    expect(res).toMatchObject({ status: 400, body: { fields: { password: expect.any(String) } } });
    expect((await b.request('GET', '/api/my-data')).status).toBe(200);
    expect((await h.store.readStream(streams.user(user.id))).map((e) => e.type)).toEqual(['UserRegistered']);
  });

  it('204, the session ends, the e-mail and chat texts read as erased, the image files go, and the e-mail can join again as a new member', async () => {
    const { b, user, address } = await joinedMember(h, 'erase.me@example.com', 'pass1');
    expect((await b.request('POST', '/api/chat-messages', { message: 'a secret line' })).status).toBe(201);
    const image = join(h.uploadsDir, cardPath(user.id, 'a'.repeat(32)));
    mkdirSync(join(image, '..'), { recursive: true });
    writeFileSync(image, 'webp');

    expect((await b.request('DELETE', '/api/my-account', { password: 'pass1' })).status).toBe(204);
    expect((await b.request('GET', '/api/my-data')).status).toBe(401);
    expect(existsSync(image)).toBe(false);
    const stream = await h.store.readStream(streams.user(user.id));
    expect(stream.map((e) => e.type)).toEqual(['UserRegistered', 'ChatMessageSent', 'MemberErased']);
    expect(stream[0]!.data).toMatchObject({ email: '' });
    expect(stream[1]!.data).toMatchObject({ message: '', nickname: '' });
    expect(stream[2]!.data).toMatchObject({ userId: user.id, requestedBy: 'member' });
    expect((await h.store.readStream(testEmailStream(address))).map((e) => e.type)).toEqual(['EmailReserved', 'EmailReleased']);
    const raw = await rawRows();
    for (const secret of [address, 'a secret line']) expect(raw).not.toContain(secret);

    const again = await h.browser().request('POST', '/api/register-user', { email: address, password: 'other2' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(user.id);
    expect(again.body.email).toBe(address);
  });

  it('an erasure cut short before the e-mail was released: the e-mail still joins again, as a new member', async () => {
    const { user, address } = await joinedMember(h, 'cut.short@example.com', 'pass1');
    // The member's event alone, as a crash right after it would leave the streams.
    await h.store.append(streams.user(user.id), [
      { id: randomUUID(), type: 'MemberErased', data: { userId: user.id, requestedBy: 'member', erasedAt: new Date().toISOString() }, metadata: { schemaVersion: 1 } },
    ]);
    const again = await h.browser().request('POST', '/api/register-user', { email: address, password: 'pass1' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(user.id);
  });

  it('is refused to guests', async () => {
    expect((await h.browser().request('DELETE', '/api/my-account', { password: 'pass1' })).status).toBe(401);
  });
});

describe('DELETE /api/admin/members/:userId', () => {
  it('an admin erases a member: 204, the member is signed out, a second erasure is a 404', async () => {
    const { b, user } = await joinedMember(h);
    const admin = h.browser();
    expect((await admin.request('POST', '/api/admin-login', ADMIN)).status).toBe(200);
    expect((await admin.request('DELETE', `/api/admin/members/${user.id}`)).status).toBe(204);
    expect((await b.request('GET', '/api/my-data')).status).toBe(401);
    const erased = (await h.store.readStream(streams.user(user.id))).at(-1)!;
    expect(erased).toMatchObject({ type: 'MemberErased', data: { requestedBy: 'admin', adminId: expect.any(String) } });
    expect((await admin.request('DELETE', `/api/admin/members/${user.id}`)).status).toBe(404);
    expect((await admin.request('DELETE', '/api/admin/members/no-such-member')).status).toBe(404);
  });

  it('is refused to members', async () => {
    const { b, user } = await joinedMember(h);
    expect((await b.request('DELETE', `/api/admin/members/${user.id}`)).status).toBeGreaterThanOrEqual(401);
    expect((await h.store.readStream(streams.user(user.id))).map((e) => e.type)).toEqual(['UserRegistered']);
  });
});
