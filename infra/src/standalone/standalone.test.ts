import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AdViewTickets } from '@pass/command-api';
import { Browser, nextEvent } from '../test-support/client';
import { standaloneSite } from '../test-support/standalone-site';

const { dataDir, start } = standaloneSite('journey');

/** Everything a reader sees, without the fields that legitimately change between reads. */
async function readSide(origin: string) {
  const guest = new Browser(origin);
  const [main, chat, ranking, registry, countries] = await Promise.all(
    ['/api/main-data', '/api/chat-messages?limit=50', '/api/ranking', '/api/registry', '/api/countries'].map((p) => guest.request('GET', p)),
  );
  for (const r of [main, chat, ranking, registry, countries]) expect(r!.status).toBe(200);
  return { main: main!.body, chat: chat!.body, ranking: ranking!.body, registry: registry!.body, countries: countries!.body };
}

describe('standalone over real HTTP and Socket.IO', () => {
  it('register → free point → chat arrives live, is read back, and survives a restart', async () => {
    const first = await start();
    const ready = await fetch(`${first.url}/readyz`);
    expect(ready.status).toBe(200);

    const member = new Browser(first.url);
    const watcher = new Browser(first.url);
    // Polling first, as browsers connect: only Socket.IO may answer /socket.io/ requests.
    const socket = await watcher.socket(first.url, 'polling-first');
    try {
      const joined = await member.request('POST', '/api/register-user', { email: 'journey@example.com', password: 'pass1' });
      expect([200, 201]).toContain(joined.status);
      expect(joined.body).toMatchObject({ registered: true });
      const startPoints: number = joined.body.chatCount;
      // A countdown that started 29 s ago: its ticket signed with the secret standalone keeps in its data folder.
      const secret = readFileSync(join(dataDir, 'session-secret'), 'utf8').trim();
      const ticket = new AdViewTickets(secret).issue(joined.body.id, new Date(Date.now() - 29_000)).ticket;
      const point = await member.request('POST', '/api/free-point', { ticket });
      expect(point.status).toBe(200);
      expect(point.body.user.chatCount).toBe(startPoints + 1);

      const arrived = nextEvent(socket, 'chatMessage', (m) => m.message === 'Hello from HTTP');
      const sent = await member.request('POST', '/api/chat-messages', { message: 'Hello from HTTP' });
      expect(sent.status).toBe(201);
      expect(await arrived).toMatchObject({ userId: joined.body.id, message: 'Hello from HTTP' });
      expect(sent.body.user.chatCount).toBe(startPoints);

      const main = await member.request('GET', '/api/main-data');
      expect(main.body).toMatchObject({ globalMessages: 1 });
      const chat = await member.request('GET', '/api/chat-messages?limit=50');
      expect(chat.body.messages.map((m: { message: string }) => m.message)).toEqual(['Hello from HTTP']);
    } finally {
      watcher.close();
    }
    const before = await readSide(first.url);
    expect(await first.stop('SIGTERM')).toBe(0);

    // Same DATA_DIR: the in-memory read models are rebuilt from the store, equal to before.
    const second = await start();
    expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
    expect(await readSide(second.url)).toEqual(before);
    // The session survives too (file sessions + the generated secret live in DATA_DIR).
    const again = new Browser(second.url);
    for (const [k, v] of member.cookies) again.cookies.set(k, v);
    const me = await again.request('GET', '/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'journey@example.com', chatCount: before.registry.items[0].points });
    expect(await second.stop('SIGTERM')).toBe(0);
  }, 60_000);
});
