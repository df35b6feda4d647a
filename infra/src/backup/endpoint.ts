/**
 * The standalone's backup endpoint. PGlite lets one process open the store, so a consistent copy
 * of a live site is read by that process: `GET /ops/backup/events` streams every event up to the
 * head it finds when asked, as JSON lines between a first line naming the head and a last one
 * counting the events (the CLI refuses a stream without it), and links the files into a snapshot
 * folder in DATA_DIR at that instant (`linkSnapshotSync`), which the CLI copies and removes. Only
 * the operator may ask: the request carries a token signed with the site's session secret, which
 * only someone who can read the site's settings or DATA_DIR can make.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { Router } from 'express';
import type { Logger } from 'pino';
import { positionToString, START, comparePositions, type EventStore } from '@pass/events';
import { linkSnapshotSync, removeStaleSnapshots } from './data-dir';
import { eventPages, toBackupLine } from './events';

export const BACKUP_EVENTS_PATH = '/ops/backup/events';
/** How far a token's time may be from the server's: a captured token is soon worthless. */
const TOKEN_WINDOW_SECONDS = 300;

const sign = (secret: string, seconds: number) => createHmac('sha256', secret).update(`pass-backup:${seconds}`).digest('hex');

/** `Authorization: Backup <unix seconds>.<HMAC-SHA256(secret, "pass-backup:<seconds>")>`. */
export function backupAuthorization(secret: string, now = Date.now()): string {
  const seconds = Math.floor(now / 1000);
  return `Backup ${seconds}.${sign(secret, seconds)}`;
}

export function verifyBackupAuthorization(header: string | undefined, secret: string, now = Date.now()): boolean {
  const match = /^Backup (\d{1,12})\.([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  const seconds = Number(match[1]);
  if (Math.abs(now / 1000 - seconds) > TOKEN_WINDOW_SECONDS) return false;
  return timingSafeEqual(Buffer.from(match[2]!, 'hex'), Buffer.from(sign(secret, seconds), 'hex'));
}

/** The secret the site signs with: SESSION_SECRET, else the one generated into DATA_DIR. */
export async function siteSecret(sessionSecret: string | undefined, dataDir: string): Promise<string | undefined> {
  if (sessionSecret) return sessionSecret;
  try {
    const kept = (await readFile(join(dataDir, 'session-secret'), 'utf8')).trim();
    return kept.length >= 32 ? kept : undefined;
  } catch {
    return undefined;
  }
}

async function send(res: ServerResponse, text: string): Promise<void> {
  if (!res.write(text)) await once(res, 'drain');
}

export interface BackupEndpointOptions {
  eventStore: EventStore;
  secret: () => Promise<string | undefined>;
  /** Where the site's files are: each backup links them into a snapshot when it reads the head. */
  dataDir: string;
  uploadsDir: string;
  logger: Logger;
}

export function backupRouter(options: BackupEndpointOptions): Router {
  const router = Router();
  const log = options.logger.child({ component: 'backup' });
  router.get(BACKUP_EVENTS_PATH, async (req, res) => {
    const secret = await options.secret();
    if (!secret || !verifyBackupAuthorization(req.headers.authorization, secret)) {
      res.status(403).json({ error: 'backup: not authorized' });
      return;
    }
    let gone = false;
    res.on('close', () => (gone = true));
    await removeStaleSnapshots(options.dataDir);
    const head = await options.eventStore.headPosition();
    // At once after the head, in one synchronous step: the files every event up to it names.
    const snapshot = basename(linkSnapshotSync(options.dataDir, options.uploadsDir));
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    await send(res, JSON.stringify({ head: comparePositions(head, START) === 0 ? null : positionToString(head), snapshot }) + '\n');
    let count = 0;
    try {
      for await (const page of eventPages(options.eventStore, head)) {
        if (gone) return;
        count += page.length;
        await send(res, page.map((e) => toBackupLine(e) + '\n').join(''));
      }
      res.end(JSON.stringify({ end: true, count }) + '\n');
      log.info({ events: count, head: positionToString(head) }, 'backup: events sent');
    } catch (error) {
      // Without the last line the CLI refuses the copy; the site goes on.
      log.error({ err: error, events: count }, 'backup: sending events failed');
      res.destroy();
    }
  });
  return router;
}
