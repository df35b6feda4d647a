import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { StreamDeletedError } from '@eventstore/db-client';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { emailStreams, isUnkeyedEmailStream, type EventStore } from '@pass/events';
import { EMAIL_STREAM_KEY_ID, EncryptingEventStore, installationKey, MemoryKeyStore, type KeyStore } from '@pass/events/personal-data';
import { createEsdbEventStore, FakeEsdb } from '@pass/events/test-support/esdb';
import { esdbTombstones, openEventStore, openPersonalDataEventStore, SqlEventStore } from '@pass/events/store';
import { dropPostgresSchema, requireService, testPostgresUrl } from '@pass/events/test-support';
import { serveHarness, startHarness } from '@pass/command-api/test-support';
import { parseSettings } from '../config/settings';
import { Browser } from '../test-support/client';
import { spawnStandalone } from '../test-support/spawn-process';
import { composeCommandApi } from '../wiring/command-side';
import { UNKEYED_STORE_MESSAGE } from '../wiring/email-stream-key';
import { Resources } from '../wiring/lifecycle';
import { rekeyEmailStreams, rekeyEmailStreamsOf } from './email-streams';

const root = mkdtempSync(join(tmpdir(), 'pass-migrate-streams-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const repo = resolve(import.meta.dirname, '../../..');

/** The name stores gave an address's stream before keyed names. */
const unkeyed = (email: string) => `email-${createHash('sha256').update(email.toLowerCase()).digest('hex')}`;
const WRONG_PASSWORD = 'This email is already registered with a different password';

interface Site {
  members: Record<'ann' | 'bob' | 'dora', { email: string; password: string; id: string }>;
}

/** Members as the site makes them: Ann and Dora stay (Dora erased once, then joined again), Bob is erased. */
async function populate(url: string): Promise<Site> {
  const m = (name: string) => ({ email: `${name}.${randomUUID().slice(0, 6)}@old-site.com`, password: `${name}pw1`, id: '' });
  const members = { ann: m('ann'), bob: m('bob'), dora: m('dora') };
  for (const member of Object.values(members)) {
    const joined = await new Browser(url).request('POST', '/api/register-user', { email: member.email, password: member.password });
    expect(joined.status).toBe(201);
    member.id = joined.body.id;
  }
  for (const who of ['bob', 'dora'] as const) {
    const b = new Browser(url);
    expect((await b.request('POST', '/api/register-user', members[who])).status).toBe(200);
    expect((await b.request('DELETE', '/api/my-account', { password: members[who].password })).status).toBe(204);
  }
  const again = await new Browser(url).request('POST', '/api/register-user', { email: members.dora.email, password: members.dora.password });
  expect(again.status).toBe(201);
  members.dora.id = again.body.id;
  return { members };
}

/**
 * Makes the store as the site wrote it before keyed names: every e-mail stream under the unkeyed
 * name, and no installation key (`dropKey` removes it from the key store where it lives).
 */
async function unkey(store: SqlEventStore, key: Buffer, emails: string[], dropKey: () => Promise<void>): Promise<void> {
  const named = emailStreams(key);
  const schema = `"${store.schema}"`;
  for (const email of emails) {
    for (const table of ['events', 'streams']) await store.client.query(`UPDATE ${schema}.${table} SET stream_id = $1 WHERE stream_id = $2`, [unkeyed(email), named(email)]);
  }
  await dropKey();
}

const emailRows = async (store: SqlEventStore) =>
  (await store.client.query<{ stream_id: string; xmin: string }>(`SELECT stream_id, xmin::text AS xmin FROM "${store.schema}".events WHERE stream_id LIKE 'email-%'`)).rows;

async function cli(dataDir: string, ...args: string[]): Promise<string> {
  const { stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(repo, 'infra/src/migrations/email-streams-cli.ts'), ...args], {
    cwd: repo,
    env: { ...process.env, DATA_DIR: dataDir, EVENT_STORE_URL: '', NODE_ENV: 'test' },
  });
  return stderr;
}

describe('npm run migrate:email-streams on the standalone store', () => {
  it('a store written before keyed names is refused at start; migrated in one transaction, its old names gone from the files; the site then keeps one account per e-mail', { timeout: 240_000 }, async () => {
    const dataDir = join(root, 'site');
    const first = await spawnStandalone({ DATA_DIR: dataDir });
    const { members } = await populate(first.url);
    expect(await first.stop('SIGTERM')).toBe(0);
    const emails = Object.values(members).map((m) => m.email);

    // What the site stores now: no name a dictionary of addresses computes.
    const keyFile = join(dataDir, 'member-keys', `${createHash('sha256').update(EMAIL_STREAM_KEY_ID).digest('hex').slice(0, 2)}.keys`);
    const keyLine = readFileSync(keyFile, 'utf8').split('\n').find((line) => line.includes(EMAIL_STREAM_KEY_ID))!;
    const key = Buffer.from((JSON.parse(keyLine) as { k: string }).k, 'base64');
    let store = (await openEventStore(`pglite:${join(dataDir, 'events')}`)) as SqlEventStore;
    const keyed = await emailRows(store);
    expect(keyed.length).toBe(6);
    for (const email of emails) expect(keyed.map((r) => r.stream_id)).not.toContain(unkeyed(email));
    expect(keyed.map((r) => r.stream_id).sort()).toEqual(emails.flatMap((e, i) => Array<string>(i + 1).fill(emailStreams(key)(e))).sort());

    await unkey(store, key, emails, async () => writeFileSync(keyFile, readFileSync(keyFile, 'utf8').replace(`${keyLine}\n`, '')));
    await store.close();

    const refused = await spawnStandalone({ DATA_DIR: dataDir }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refused).toContain('exited with 1');
    expect(refused).toContain(UNKEYED_STORE_MESSAGE.slice(0, 60));

    expect(await cli(dataDir)).toContain('then run: npm run migrate:email-streams -- --confirm');
    store = (await openEventStore(`pglite:${join(dataDir, 'events')}`)) as SqlEventStore;
    expect((await emailRows(store)).every((r) => isUnkeyedEmailStream(r.stream_id))).toBe(true);
    await store.close();

    expect(await cli(dataDir, '--confirm')).toMatch(/: 3 e-mail streams renamed \(1 of erased addresses\), \d+ events looked at/);
    store = (await openEventStore(`pglite:${join(dataDir, 'events')}`)) as SqlEventStore;
    const migrated = await emailRows(store);
    await store.close();
    expect(migrated).toHaveLength(6);
    expect(migrated.filter((r) => isUnkeyedEmailStream(r.stream_id))).toEqual([]);
    // Every renamed row was written by one transaction.
    expect(new Set(migrated.map((r) => r.xmin)).size).toBe(1);
    // The old names left the events table's files (VACUUM FULL rewrote them).
    const base = join(dataDir, 'events', 'base');
    for (const f of readdirSync(base, { recursive: true, withFileTypes: true }).filter((d) => d.isFile())) {
      const bytes = readFileSync(join(f.parentPath, f.name));
      for (const email of emails) expect(bytes.includes(unkeyed(email).slice(6)), `${email}'s old name in ${f.name}`).toBe(false);
    }
    expect(await cli(dataDir, '--confirm')).toMatch(/: 0 e-mail streams renamed/);

    const second = await spawnStandalone({ DATA_DIR: dataDir });
    try {
      const join = (email: string, password: string) => new Browser(second.url).request('POST', '/api/register-user', { email, password });
      // One account per e-mail still: a second registration is refused, the owner signs in.
      expect(await join(members.ann.email, 'other1')).toEqual({ status: 401, body: expect.objectContaining({ error: WRONG_PASSWORD }) });
      expect(await join(members.ann.email.toUpperCase(), members.ann.password)).toMatchObject({ status: 200, body: { id: members.ann.id } });
      expect(await join(members.dora.email, members.dora.password)).toMatchObject({ status: 200, body: { id: members.dora.id } });
      // Bob was erased: his address joins again, as a new member.
      const bob = await join(members.bob.email, 'newbob1');
      expect(bob.status).toBe(201);
      expect(bob.body.id).not.toBe(members.bob.id);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
    store = (await openEventStore(`pglite:${join(dataDir, 'events')}`)) as SqlEventStore;
    const after = (await emailRows(store)).map((r) => r.stream_id);
    await store.close();
    expect(after.filter((id) => isUnkeyedEmailStream(id))).toEqual([]);
  });

  it('refuses while the site holds the store, and a store in memory', async () => {
    const dataDir = join(root, 'running');
    const running = await openEventStore(`pglite:${join(dataDir, 'events')}`);
    try {
      await expect(rekeyEmailStreams(parseSettings({ DATA_DIR: dataDir }))).rejects.toThrow(/the site is running \(process \d+\).*stop it first/);
    } finally {
      await running.close();
    }
    await expect(rekeyEmailStreams(parseSettings({ DATA_DIR: dataDir, EVENT_STORE_URL: 'pglite:memory' }))).rejects.toThrow(/in memory/);
  });
});

const pgUrl = testPostgresUrl();
const pgUp = await requireService('migrate:email-streams on PostgreSQL', pgUrl, 5432);

describe.skipIf(!pgUp)('npm run migrate:email-streams on PostgreSQL', () => {
  it('renames in the schema EVENT_STORE_URL names, the key in its member_keys; sign-in and one account per e-mail hold', { timeout: 120_000 }, async () => {
    const schema = `rekey_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const url = new URL(pgUrl);
    url.searchParams.set('schema', schema);
    const settings = parseSettings({ DATA_DIR: join(root, 'pg-site'), EVENT_STORE_URL: url.toString(), SESSION_SECRET: 's'.repeat(40) });
    const commandApi = async (store: EventStore) => {
      const resources = new Resources();
      const { commandApi: api } = await composeCommandApi(settings, store, pino({ level: 'silent' }), resources);
      return serveHarness(api, { store, uploadsDir: settings.uploadsDir, close: resources.close });
    };
    try {
      let store = await openPersonalDataEventStore(url.toString());
      const first = await commandApi(store);
      const { members } = await populate(first.url);
      await first.close();
      const key = (await installationKey(store.keys, EMAIL_STREAM_KEY_ID))!;
      const sql = store.inner as SqlEventStore;
      await unkey(sql, key, Object.values(members).map((m) => m.email), async () => void (await sql.client.query(`DELETE FROM "${schema}".member_keys WHERE member_id = $1`, [EMAIL_STREAM_KEY_ID])));
      await store.close();

      store = await openPersonalDataEventStore(url.toString());
      await expect(commandApi(store)).rejects.toThrow(UNKEYED_STORE_MESSAGE);
      await store.close();

      expect(await rekeyEmailStreams(settings)).toMatchObject({ renamed: 3, erased: 1 });
      store = await openPersonalDataEventStore(url.toString());
      const rows = await emailRows(store.inner as SqlEventStore);
      expect(rows.filter((r) => isUnkeyedEmailStream(r.stream_id))).toEqual([]);
      expect(new Set(rows.map((r) => r.xmin)).size).toBe(1);
      const streamsRows = await (store.inner as SqlEventStore).client.query<{ stream_id: string }>(`SELECT stream_id FROM "${schema}".streams WHERE stream_id LIKE 'email-%'`);
      expect(streamsRows.rows.filter((r) => isUnkeyedEmailStream(r.stream_id))).toEqual([]);
      const second = await commandApi(store);
      try {
        const join = (email: string, password: string) => second.browser().request('POST', '/api/register-user', { email, password });
        expect((await join(members.ann.email, 'other1')).status).toBe(401);
        expect(await join(members.ann.email, members.ann.password)).toMatchObject({ status: 200, body: { id: members.ann.id } });
      } finally {
        await second.close();
        await store.close();
      }
    } finally {
      await dropPostgresSchema(pgUrl, schema);
    }
  });
});

describe('npm run migrate:email-streams on KurrentDB (the client calls as documented; no server runs here)', () => {
  /**
   * The fake server, with hard deletes as KurrentDB documents them: a tombstoned stream reads as
   * deleted and takes no append, while $all keeps returning its events until a scavenge.
   */
  function kurrent() {
    const fake = new FakeEsdb();
    const tombstoned = new Set<string>();
    const client = {
      ...fake.asClient(),
      readStream: (name: string, options?: object) => {
        if (!tombstoned.has(name)) return fake.readStream(name, options);
        return (async function* () {
          yield* [];
          throw new StreamDeletedError(undefined, name);
        })();
      },
      appendToStream: (name: string, ...rest: unknown[]) => {
        if (tombstoned.has(name)) return Promise.reject(new StreamDeletedError(undefined, name));
        return (fake.appendToStream as (...a: unknown[]) => Promise<unknown>)(name, ...rest);
      },
      tombstoneStream: async (name: string) => {
        if (tombstoned.has(name)) throw new StreamDeletedError(undefined, name);
        tombstoned.add(name);
        return {};
      },
      dispose: async () => undefined,
    };
    return { fake, tombstoned, store: createEsdbEventStore(client as never), tombstones: () => Promise.resolve(esdbTombstones(client as never, StreamDeletedError)) };
  }

  it('copies each stream under its keyed name, sealed as stored, then tombstones the old one; a second run changes nothing; sign-in and one account per e-mail hold', { timeout: 60_000 }, async () => {
    const { fake, tombstoned, store, tombstones } = kurrent();
    const keys: KeyStore = new MemoryKeyStore();
    const site = new EncryptingEventStore(store, keys);
    // The site as it ran before: the harness names streams with a key that is then forgotten.
    const before = await startHarness({ store: site, config: { emailStreamKey: Buffer.alloc(32, 1) } });
    const { members } = await populate(before.url);
    await before.close();
    const oldKey = Buffer.alloc(32, 1);
    for (const record of fake.log) {
      const email = Object.values(members).find((m) => emailStreams(oldKey)(m.email) === record.streamId)?.email;
      if (email) record.streamId = unkeyed(email);
    }
    const sealed = fake.log.filter((r) => isUnkeyedEmailStream(r.streamId)).map((r) => ({ streamId: r.streamId, type: r.type, data: r.data }));
    expect(sealed).toHaveLength(6);
    expect(JSON.stringify(sealed)).not.toContain('@old-site.com');

    const report = await rekeyEmailStreamsOf(store, keys, tombstones);
    expect(report).toMatchObject({ renamed: 3, erased: 1 });
    const key = (await installationKey(keys, EMAIL_STREAM_KEY_ID))!;
    expect([...tombstoned].sort()).toEqual([...new Set(sealed.map((s) => s.streamId))].sort());
    for (const member of [members.ann, members.dora]) {
      const copied = await store.readStream(emailStreams(key)(member.email));
      const original = sealed.filter((s) => s.streamId === unkeyed(member.email));
      expect(copied.map((e) => ({ type: e.type, data: e.data }))).toEqual(original.map((s) => ({ type: s.type, data: s.data })));
    }
    // $all still shows the old events until a scavenge; a second run finds them tombstoned and moves nothing.
    expect(await rekeyEmailStreamsOf(store, keys, tombstones)).toMatchObject({ renamed: 0, erased: 0 });

    const after = await startHarness({ store: site, config: { emailStreamKey: key } });
    try {
      const join = (email: string, password: string) => after.browser().request('POST', '/api/register-user', { email, password });
      expect((await join(members.ann.email, 'other1')).status).toBe(401);
      expect(await join(members.ann.email, members.ann.password)).toMatchObject({ status: 200, body: { id: members.ann.id } });
      expect((await join(members.bob.email, 'newbob1')).status).toBe(201);
    } finally {
      await after.close();
    }
  });
});
