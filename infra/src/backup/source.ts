/**
 * Where a backup reads the events: through the running standalone (PGlite is open in that one
 * process) or, when no process holds the store, from the store directly.
 */
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { positionToString, START, comparePositions, type EventStore } from '@pass/events';
import { openEventStore } from '@pass/events/store';
import type { Settings } from '../config/settings';
import { ArchiveError } from './archive';
import { dataFiles, snapshotFiles, type DataFile } from './data-dir';
import { backupAuthorization, BACKUP_EVENTS_PATH, siteSecret } from './endpoint';
import { eventPages, PAGE_SIZE, toBackupLine } from './events';

export interface EventSource {
  mode: 'live' | 'offline';
  /** The source's head position when the copy began (`commit/prepare`), null when empty. */
  head: string | null;
  /** Events as backup lines, in global order, a page at a time. */
  pages(): AsyncIterable<string[]>;
  /** The files to carry, listed after the events were read. */
  files(): Promise<DataFile[]>;
  close(): Promise<void>;
}

/** The embedded store's folder, when EVENT_STORE_URL names one. */
export function pgliteDir(settings: Settings): string | undefined {
  const url = settings.eventStoreUrl;
  if (!url.startsWith('pglite:') || url === 'pglite:memory') return undefined;
  return resolve(url.slice('pglite:'.length));
}

/** The pid of a live process holding the embedded store (its lock file), if any. */
export function storeOwner(settings: Settings): number | undefined {
  const dir = pgliteDir(settings);
  const lock = dir && join(dir, 'event-store.lock');
  if (!lock || !existsSync(lock)) return undefined;
  const pid = Number(readFileSync(lock, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

export async function openSource(settings: Settings): Promise<EventSource> {
  return storeOwner(settings) === undefined ? offlineSource(await openEventStore(settings.eventStoreUrl), settings) : liveSource(settings);
}

export async function offlineSource(store: EventStore, settings: Settings): Promise<EventSource> {
  const head = await store.headPosition();
  return {
    mode: 'offline',
    head: comparePositions(head, START) === 0 ? null : positionToString(head),
    async *pages() {
      for await (const page of eventPages(store, head)) yield page.map(toBackupLine);
    },
    files: () => dataFiles(settings.dataDir, settings.uploadsDir),
    close: () => store.close(),
  };
}

function serverUrl(settings: Settings): string {
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${settings.port}`;
}

async function liveSource(settings: Settings): Promise<EventSource> {
  const secret = await siteSecret(settings.sessionSecret, settings.dataDir);
  if (!secret) throw new ArchiveError(`the running site's secret is not readable (set SESSION_SECRET as the site has it, or run as the user owning ${settings.dataDir})`);
  const url = serverUrl(settings) + BACKUP_EVENTS_PATH;
  let res: Response;
  try {
    res = await fetch(url, { headers: { authorization: backupAuthorization(secret) } });
  } catch (error) {
    throw new ArchiveError(`the running site holds the store but does not answer at ${url} (${(error as Error).message}); set PORT and HOST as the site has them`);
  }
  if (res.status !== 200 || !res.body) throw new ArchiveError(`the running site refused the backup at ${url} (HTTP ${res.status}); are SESSION_SECRET and PORT the site's?`);
  const lines = createInterface({ input: Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), crlfDelay: Infinity })[Symbol.asyncIterator]();
  const first = await lines.next();
  const { head, snapshot } = first.done ? {} : (JSON.parse(first.value) as { head?: string | null; snapshot?: string });
  if (head === undefined || !snapshot || !/^\.backup-[\w-]+$/.test(snapshot)) throw new ArchiveError('the running site answered something else than a backup');
  const folder = join(settings.dataDir, snapshot);
  return {
    mode: 'live',
    head,
    pages: () => livePages(lines),
    files: () => snapshotFiles(folder),
    close: async () => {
      await lines.return?.();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

async function* livePages(lines: AsyncIterator<string>): AsyncGenerator<string[]> {
  let page: string[] = [];
  let count = 0;
  for (;;) {
    const next = await lines.next().catch((error: unknown) => {
      throw new ArchiveError(`the running site stopped sending events (${(error as Error).message})`);
    });
    if (next.done) throw new ArchiveError(`the running site stopped sending events after ${count}; nothing was kept`);
    if (next.value.startsWith('{"end":')) {
      const end = JSON.parse(next.value) as { count: number };
      if (end.count !== count + page.length) throw new ArchiveError('the running site sent a different number of events than it counted');
      if (page.length > 0) yield page;
      return;
    }
    page.push(next.value);
    if (page.length >= PAGE_SIZE) {
      count += page.length;
      yield page;
      page = [];
    }
  }
}
