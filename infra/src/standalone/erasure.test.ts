import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PURCHASE_OPTIONS } from '@pass/events';
import { smallPng } from '@pass/command-api/test-support';
import { describe, expect, it } from 'vitest';
import { Browser } from '../test-support/client';
import { standaloneSite } from '../test-support/standalone-site';

const { dataDir, start } = standaloneSite('erasure');

/** Every file under DATA_DIR, as bytes. */
const files = () =>
  readdirSync(dataDir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => ({ name: join(d.parentPath, d.name), bytes: readFileSync(join(d.parentPath, d.name)) }));

/** The member's key as the file key store keeps it (base64 in its shard line). */
function keyOf(memberId: string): Buffer {
  for (const f of files().filter((f) => f.name.includes('member-keys'))) {
    for (const line of f.bytes.toString('utf8').split('\n')) {
      if (line.includes(`"${memberId}"`)) return Buffer.from((JSON.parse(line) as { k: string }).k, 'base64');
    }
  }
  throw new Error('no key');
}

describe('standalone: a member erased', () => {
  it('who chatted, bought points and posted a card with an image leaves no readable copy under DATA_DIR (events, keys, snapshot, uploads, outbox) even when killed right after the 204; after a restart the other member and the totals are unchanged', { timeout: 120_000 }, async () => {
    const first = await start();
    const ann = new Browser(first.url);
    const bob = new Browser(first.url);
    const joined = await ann.request('POST', '/api/register-user', { email: 'ann.erased@example.com', password: 'pass1' });
    expect(joined.status).toBe(201);
    const annId: string = joined.body.id;
    expect((await bob.request('POST', '/api/register-user', { email: 'bob.stays@example.com', password: 'pass2' })).status).toBe(201);
    expect((await ann.request('POST', '/api/chat-messages', { message: 'ann secret words' })).status).toBe(201);
    // She buys points (test mode) and posts a card with an image, taking a pass.
    const order = await ann.request('POST', '/api/payments/orders', { amountUsd: PURCHASE_OPTIONS[0]!.amountUsd });
    expect((await ann.request('POST', `/api/payments/orders/${order.body.orderId as string}/capture`, {})).status).toBe(200);
    const form = new FormData();
    const card = { fullname: 'Ann Cardname', country: 'Spain', email: 'ann.erased@example.com', link: 'https://ann.example/page', message: 'ann card message', passes: '1' };
    for (const [k, v] of Object.entries(card)) form.set(k, v);
    form.set('image', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'me.png');
    const posted = await fetch(`${first.url}/api/register-special-user`, { method: 'POST', headers: { cookie: ann.cookieHeader() }, body: form });
    expect(posted.status).toBe(200);
    const imagePath: string = ((await posted.json()) as { user: { image: { path: string } } }).user.image.path;
    expect(files().some((f) => f.name.endsWith(imagePath))).toBe(true);
    expect((await bob.request('POST', '/api/chat-messages', { message: 'bob public words' })).status).toBe(201);
    // A clean stop writes the read-model snapshot: it holds Ann in clear.
    await first.stop('SIGTERM');
    expect(files().find((f) => f.name.endsWith('read-models.snapshot'))!.bytes.includes('ann secret words')).toBe(true);

    const second = await start();
    const before = (await new Browser(second.url).request('GET', '/api/main-data')).body;
    const annAgain = new Browser(second.url);
    expect((await annAgain.request('POST', '/api/register-user', { email: 'ann.erased@example.com', password: 'pass1' })).status).toBe(200);
    // A reset link mailed to her waits in the outbox (no SMTP_URL): her address is in it.
    expect((await new Browser(second.url).request('POST', '/api/password-reset', { email: 'ann.erased@example.com' })).status).toBeLessThan(300);
    await expect.poll(() => files().filter((f) => f.name.includes('outbox') && f.name.endsWith('.eml')).length, { timeout: 10_000 }).toBe(1);
    const key = keyOf(annId);
    expect((await annAgain.request('DELETE', '/api/my-account', { password: 'pass1' })).status).toBe(204);
    await second.stop('SIGKILL');

    for (const f of files()) {
      expect(f.name).not.toContain(annId);
      for (const secret of ['ann.erased@example.com', 'ann secret words', 'Ann Cardname', 'https://ann.example/page', 'ann card message', key.toString('base64'), key.toString('hex')]) {
        expect(f.bytes.includes(secret), `${secret} in ${f.name}`).toBe(false);
      }
      expect(f.bytes.includes(key), `the key in ${f.name}`).toBe(false);
    }

    const third = await start();
    const guest = new Browser(third.url);
    const chat = (await guest.request('GET', '/api/chat-messages?limit=50')).body;
    expect(JSON.stringify(chat)).toContain('bob public words');
    expect(JSON.stringify(chat)).not.toContain('ann secret words');
    const main = (await guest.request('GET', '/api/main-data')).body;
    // Funds raised and passes taken stay as history has them; she leaves the member count and her country.
    expect(main).toEqual({ ...before, members: before.members - 1 });
    expect(JSON.stringify((await guest.request('GET', '/api/countries')).body)).not.toContain('Spain');
    const registry = JSON.stringify((await guest.request('GET', '/api/registry')).body);
    expect(registry).not.toContain(annId);
    // Bob is untouched and Ann's e-mail can join again, as a new member.
    expect((await new Browser(third.url).request('POST', '/api/register-user', { email: 'bob.stays@example.com', password: 'pass2' })).status).toBe(200);
    const rejoined = await new Browser(third.url).request('POST', '/api/register-user', { email: 'ann.erased@example.com', password: 'newpw3' });
    expect(rejoined.status).toBe(201);
    expect(rejoined.body.id).not.toBe(annId);
  });
});
