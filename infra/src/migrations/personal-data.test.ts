import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPostgresSchema, requireService, testPostgresUrl } from '@pass/events/test-support';
import { openEventStore, openPersonalDataEventStore, SqlEventStore } from '@pass/events/store';
import type { NewEvent, RecordedEvent } from '@pass/events';
import { parseSettings } from '../config/settings';
import { encryptPersonalData } from './personal-data';

const root = mkdtempSync(join(tmpdir(), 'pass-migrate-pd-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const at = '2026-01-01T00:00:00.000Z';
const event = (type: string, data: Record<string, unknown>): NewEvent => ({ id: randomUUID(), type, data, metadata: { schemaVersion: 1 } });
const MEMBERS = 300;
const email = (i: number) => `member${i}@old.example`;

/** A store as the site wrote it before personal data was encrypted. */
async function plaintextSite(dataDir: string): Promise<void> {
  const store = await openEventStore(`pglite:${join(dataDir, 'events')}`);
  for (let i = 0; i < MEMBERS; i++) {
    const userId = `u${i}`;
    await store.append(`email-${i}`, [event('EmailReserved', { email: email(i), userId, reservedAt: at })]);
    await store.append(`user-${userId}`, [
      event('UserRegistered', { userId, email: email(i), passwordHash: 'h', points: 0, priority: '', registeredAt: at }),
      event('FreePointAwarded', { userId, points: 1, awardedAt: at }),
      event('ChatMessageSent', { userId, messageId: randomUUID(), nickname: `nick${i}`, message: `old chat ${i}`, priority: '', pointsSpent: 0, sentAt: at }),
      ...(i % 10 === 0
        ? [
            event('CertificatePosted', {
              userId,
              fullname: `Old Name ${i}`,
              country: 'Chile',
              email: email(i),
              link: '',
              message: `card text ${i}`,
              image: { path: 'ab/c.webp', public_id: 'c', url: '/uploads/ab/c.webp' },
              postedAt: at,
            }),
          ]
        : []),
    ]);
  }
  await store.close();
  writeFileSync(join(dataDir, 'read-models.snapshot'), `cache with ${email(1)}`);
}

const rows = async (dataDir: string) => {
  const store = await openEventStore(`pglite:${join(dataDir, 'events')}`);
  try {
    return (await (store as SqlEventStore).client.query<{ row: string }>('SELECT data::text AS row FROM event_store.events ORDER BY global_position')).rows.map((r) => r.row);
  } finally {
    await store.close();
  }
};

const readThrough = async (dataDir: string): Promise<RecordedEvent[]> => {
  const store = await openPersonalDataEventStore(`pglite:${join(dataDir, 'events')}`, { keysDir: join(dataDir, 'member-keys') });
  try {
    return await store.readAll({ maxCount: 10_000 });
  } finally {
    await store.close();
  }
};

describe('npm run migrate:personal-data', () => {
  it('encrypts every personal field stored in clear, reads back the same, and a second run changes nothing', { timeout: 120_000 }, async () => {
    const dataDir = join(root, 'site');
    await plaintextSite(dataDir);
    const before = await readThrough(dataDir);
    const settings = parseSettings({ DATA_DIR: dataDir });

    const report = await encryptPersonalData(settings);
    expect(report).toEqual({ scanned: MEMBERS * 3 + MEMBERS / 10, encrypted: MEMBERS * 3 + MEMBERS / 10 });

    const stored = (await rows(dataDir)).join('\n');
    for (const clear of [email(0), email(299), 'nick7', 'old chat 7', 'Old Name 10', 'card text 10']) expect(stored).not.toContain(clear);
    expect(stored).toContain('Chile');
    // The table's files were rewritten: no data file of the events table holds the clear text.
    const base = join(dataDir, 'events', 'base');
    for (const f of readdirSync(base, { recursive: true, withFileTypes: true }).filter((d) => d.isFile())) {
      expect(readFileSync(join(f.parentPath, f.name)).includes(email(42))).toBe(false);
    }
    expect(existsSync(join(dataDir, 'read-models.snapshot'))).toBe(false);
    expect(await readThrough(dataDir)).toEqual(before);

    const once = await rows(dataDir);
    expect(await encryptPersonalData(settings)).toEqual({ scanned: report.scanned, encrypted: 0 });
    expect(await rows(dataDir)).toEqual(once);
  });

  it('refuses while the site holds the store, and changes nothing', async () => {
    const dataDir = join(root, 'running');
    await plaintextSite(dataDir);
    const running = await openEventStore(`pglite:${join(dataDir, 'events')}`);
    try {
      await expect(encryptPersonalData(parseSettings({ DATA_DIR: dataDir }))).rejects.toThrow(/the site is running \(process \d+\).*stop it first/);
    } finally {
      await running.close();
    }
    expect((await rows(dataDir)).join('\n')).toContain(email(5));
  });
});

const pgUrl = testPostgresUrl();
const pgUp = await requireService('migrate:personal-data on PostgreSQL', pgUrl, 5432);

describe.skipIf(!pgUp)('npm run migrate:personal-data on PostgreSQL', () => {
  it('encrypts the clear fields in the schema EVENT_STORE_URL names, keys in its member_keys', { timeout: 60_000 }, async () => {
    const schema = `migrate_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const url = new URL(pgUrl);
    url.searchParams.set('schema', schema);
    try {
      const plain = await openEventStore(url.toString());
      await plain.append('user-p1', [event('UserRegistered', { userId: 'p1', email: 'pg.member@old.example', passwordHash: 'h', points: 0, priority: '', registeredAt: at })]);
      await plain.close();
      const report = await encryptPersonalData(parseSettings({ DATA_DIR: join(root, 'pg-site'), EVENT_STORE_URL: url.toString() }));
      expect(report).toEqual({ scanned: 1, encrypted: 1 });
      const store = await openPersonalDataEventStore(url.toString());
      try {
        const raw = await (store.inner as SqlEventStore).client.query<{ row: string }>(`SELECT data::text AS row FROM "${schema}".events`);
        expect(raw.rows[0]!.row).not.toContain('pg.member@old.example');
        expect((await store.readStream('user-p1'))[0]!.data).toMatchObject({ email: 'pg.member@old.example' });
      } finally {
        await store.close();
      }
    } finally {
      await dropPostgresSchema(pgUrl, schema);
    }
  });
});
