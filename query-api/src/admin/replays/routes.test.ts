import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { positionToString, REPLAYS_KEPT, type EventStore } from '@pass/events';
import { ADMIN, startRecordedReadSide, type Client, type ReadSide } from '../../test-support/read-side';

/** The replays' reads of the store, held while `held` is set, failing while `broken` is (the one-event look-up of a request still answers). */
let held: Promise<void> | undefined;
let broken = false;
const holdingReplays = (store: EventStore): EventStore =>
  new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (name !== 'readAll' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (options?: { maxCount?: number }) => {
        if (held && options?.maxCount !== 1) await held;
        if (broken && options?.maxCount !== 1) throw new Error('store unreachable');
        return target.readAll(options);
      };
    },
  });

describe('the admin replays over HTTP', () => {
  let side: ReadSide;
  let admin: Client;

  beforeAll(async () => {
    side = await startRecordedReadSide({ replayStore: holdingReplays });
    admin = side.client();
    expect((await admin.request('POST', '/api/admin-login', ADMIN)).status).toBe(200);
  });
  afterAll(async () => {
    await side.close();
  });

  const head = async () => positionToString(await side.store.headPosition());
  const ready = async (id: string) => {
    await expect.poll(async () => (await admin.request('GET', `/api/admin/replays/${id}`)).body.status, { timeout: 20_000 }).toBe('ready');
  };
  const removeAll = async (ids: string[]) => {
    for (const id of ids) expect((await admin.request('DELETE', `/api/admin/replays/${id}`)).status).toBe(204);
  };

  it('refuse guests and members on every route', async () => {
    const member = side.client();
    await member.request('POST', '/api/register-user', { email: 'mallory@evil.io', password: 'pass1' });
    const id = 'rp0123456789abcdef';
    const reads = ['', '/main-data', '/countries', '/ranking', '/registry', '/chat-messages', '/diff/now'].map((path) => `/api/admin/replays/${id}${path}`);
    for (const [method, path] of [...reads.map((path) => ['GET', path] as const), ['POST', '/api/admin/replays'] as const, ['DELETE', `/api/admin/replays/${id}`] as const]) {
      const body = method === 'POST' ? { position: await head() } : undefined;
      expect((await side.client().request(method, path, body)).status, `${method} ${path}`).toBe(401);
      expect((await member.request(method, path, body)).status, `${method} ${path}`).toBe(403);
    }
  });

  it('refuse a moment in the future, before the first event, or no moment at all, with a message', async () => {
    const [first] = await side.store.readAll({ maxCount: 1 });
    const refusals = [
      { at: new Date(Date.now() + 3_600_000).toISOString() },
      { at: new Date(first!.recordedAt.getTime() - 1_000).toISOString() },
      { position: '999999999999/0' },
      { position: '0/0' },
      {},
      { at: 'yesterday' },
      { position: 'the end' },
      { at: new Date().toISOString(), position: await head() },
    ];
    for (const body of refusals) {
      const res = await admin.request('POST', '/api/admin/replays', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toEqual(expect.any(String));
    }
    const accepted = await admin.request('POST', '/api/admin/replays', { at: new Date().toISOString() });
    expect(accepted.status).toBe(202);
    await ready(accepted.body.id as string);
    await removeAll([accepted.body.id as string]);
  });

  it('answer 409 while a replay runs, then the bodies the public reads answer, and 204 on delete', async () => {
    let release = () => {};
    held = new Promise<void>((done) => (release = done));
    const started = await admin.request('POST', '/api/admin/replays', { position: await head() });
    expect(started.status).toBe(202);
    const { id } = started.body as { id: string };
    const running = await admin.request('GET', `/api/admin/replays/${id}`);
    expect(running.body).toMatchObject({ id, status: 'running', progress: 0, position: await head(), events: 0 });
    for (const path of ['main-data', 'countries', 'ranking', 'registry', 'chat-messages', 'diff/now']) {
      expect((await admin.request('GET', `/api/admin/replays/${id}/${path}`)).status, path).toBe(409);
    }
    release();
    held = undefined;
    await ready(id);
    const done = (await admin.request('GET', `/api/admin/replays/${id}`)).body;
    expect(done).toMatchObject({ status: 'ready', progress: 1, position: await head(), at: expect.any(String), events: (await side.store.readAll()).length });
    // Nothing happened since that moment: the replay answers what the site answers now.
    for (const [replayPath, livePath] of [
      ['main-data', '/api/main-data'],
      ['countries', '/api/countries'],
      ['ranking?page=1&pageSize=2&q=peru', '/api/ranking?page=1&pageSize=2&q=peru'],
      ['registry?pageSize=100', '/api/registry?pageSize=100'],
      ['chat-messages?limit=5', '/api/chat-messages?limit=5'],
    ]) {
      expect((await admin.request('GET', `/api/admin/replays/${id}/${replayPath}`)).body, replayPath).toEqual((await admin.request('GET', livePath!)).body);
    }
    expect((await admin.request('GET', `/api/admin/replays/${id}/ranking?pageSize=500`)).status).toBe(400);
    expect((await admin.request('DELETE', `/api/admin/replays/${id}`)).status).toBe(204);
    expect((await admin.request('GET', `/api/admin/replays/${id}`)).status).toBe(404);
    expect((await admin.request('GET', `/api/admin/replays/${id}/main-data`)).status).toBe(404);
    expect((await admin.request('DELETE', `/api/admin/replays/${id}`)).status).toBe(404);
  });

  it('report a replay that failed, answer 409 for its bodies, and delete it', async () => {
    broken = true;
    const started = await admin.request('POST', '/api/admin/replays', { position: await head() });
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    await expect.poll(async () => (await admin.request('GET', `/api/admin/replays/${id}`)).body.status, { timeout: 20_000 }).toBe('failed');
    broken = false;
    expect((await admin.request('GET', `/api/admin/replays/${id}`)).body).toMatchObject({ status: 'failed', error: 'store unreachable' });
    const read = await admin.request('GET', `/api/admin/replays/${id}/ranking`);
    expect(read.status).toBe(409);
    expect(read.body.error).toEqual(expect.any(String));
    expect((await admin.request('DELETE', `/api/admin/replays/${id}`)).status).toBe(204);
  });

  it('answer 404 for a replay that never was', async () => {
    for (const id of ['rp0123456789abcdef', 'nope', '..']) {
      expect((await admin.request('GET', `/api/admin/replays/${id}`)).status, id).toBe(404);
      expect((await admin.request('GET', `/api/admin/replays/${id}/main-data`)).status, id).toBe(404);
      expect((await admin.request('GET', `/api/admin/replays/now/diff/${id}`)).status, id).toBe(404);
    }
  });

  it(`keep at most ${REPLAYS_KEPT} replays: one more is refused until one is deleted`, async () => {
    const listed = async () => {
      const ids: string[] = [];
      for (;;) {
        const res = await admin.request('POST', '/api/admin/replays', { position: await head() });
        if (res.status === 429) return { ids, refusal: res.body as { error: string } };
        expect(res.status).toBe(202);
        ids.push(res.body.id as string);
      }
    };
    const { ids, refusal } = await listed();
    expect(refusal.error).toMatch(String(REPLAYS_KEPT));
    expect(ids).toHaveLength(REPLAYS_KEPT);
    await removeAll(ids.slice(0, 1));
    const again = await admin.request('POST', '/api/admin/replays', { position: await head() });
    expect(again.status).toBe(202);
    expect((await admin.request('POST', '/api/admin/replays', { position: await head() })).status).toBe(429);
    // Asked for all at once, no more than that are kept either.
    await removeAll([...ids.slice(1), again.body.id as string]);
    const position = await head();
    const racing = await Promise.all(Array.from({ length: REPLAYS_KEPT + 2 }, () => admin.request('POST', '/api/admin/replays', { position })));
    expect(racing.map((res) => res.status).sort()).toEqual([...Array<number>(REPLAYS_KEPT).fill(202), 429, 429]);
  });
});
