import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import express, { type Express } from 'express';

/** Who relies on the Express details below. */
export const FAST_LANE = 'the fast lane (infra/src/http/fast-lane.ts)';

/**
 * The installed version of `name`, resolved from `from` (a file URL or path; default: this
 * module), as the package.json of its entry point says.
 */
export function versionOf(name: string, from: string = import.meta.url): string {
  let dir = dirname(createRequire(from).resolve(name));
  for (;;) {
    try {
      const found = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (found.name === name) return found.version ?? 'unknown';
    } catch {
      // No package.json here: look further up.
    }
    if (dirname(dir) === dir) return 'unknown';
    dir = dirname(dir);
  }
}

/** `<library> <version> changed <detail>: <user> relies on <what>`. */
export function libraryChanged(library: string, detail: string, what: string, user: string = FAST_LANE): string {
  return `${library} changed ${detail}: ${user} relies on ${what}`;
}

/** Throws `libraryChanged(...)` unless `holds()` is true (a throw of its own counts as false, and is the cause). */
function expectDetail(holds: () => boolean, detail: string, what: string): void {
  let cause: unknown;
  try {
    if (holds()) return;
  } catch (error) {
    cause = error;
  }
  throw new Error(libraryChanged(`Express ${versionOf('express')}`, detail, what), cause === undefined ? undefined : { cause });
}

/**
 * What the fast lane reaches for inside Express, checked once when a lane is built, never per
 * request: after an upgrade that changed any of it the lane refuses to start, saying which
 * detail changed, rather than answer unlike Express. `app.request`'s getters come from `app`;
 * the settings they read, from a probe app with known ones. fast-lane-libraries.test.ts runs
 * this and checks the rest (the JSON parser and compression outside Express, and what the write
 * coalescing of query-api relies on of Socket.IO and engine.io).
 */
export function checkFastLaneLibraries(app: Express): void {
  const probe = express();
  probe.set('trust proxy', 'loopback');
  const get = (name: string, receiver: object): unknown => Reflect.get(app.request, name, receiver);

  const ip = (remoteAddress: string) => get('ip', { app: probe, headers: { 'x-forwarded-for': '203.0.113.7' }, socket: { remoteAddress }, connection: { remoteAddress } });
  expectDetail(
    () => ip('127.0.0.1') === '203.0.113.7' && ip('198.51.100.1') === '198.51.100.1',
    'the request getter `ip`',
    "Reflect.get(app.request, 'ip', receiver) resolving X-Forwarded-For through the receiver's app's `trust proxy` on a bare { app, headers, socket, connection }",
  );

  const parser = express();
  parser.set('query parser', (text: string) => ({ parsed: text }));
  expectDetail(
    () => isDeepStrictEqual(get('query', { app: parser, url: '/api/ranking?page=2&q=a%20b' }), { parsed: 'page=2&q=a%20b' }),
    'the request getter `query`',
    "Reflect.get(app.request, 'query', receiver) giving the query string of a bare { app, url } to the app's `query parser fn`",
  );

  const fresh = (etag: string) => get('fresh', { method: 'GET', headers: { 'if-none-match': 'W/"2-abc"' }, res: { statusCode: 200, get: (name: string) => (name === 'ETag' ? etag : undefined) } });
  expectDetail(
    () => fresh('W/"2-abc"') === true && fresh('W/"2-other"') === false,
    'the request getter `fresh`',
    "Reflect.get(app.request, 'fresh', receiver) comparing If-None-Match with res.get('ETag') on a bare { method, headers, res: { statusCode, get } }",
  );

  expectDetail(
    () => {
      const etagOf = probe.get('etag fn') as unknown;
      if (typeof etagOf !== 'function') return false;
      const etag = (etagOf as (body: Buffer) => unknown)(Buffer.from('{}'));
      return typeof etag === 'string' && etag.startsWith('W/"') && etag !== (etagOf as (body: Buffer) => unknown)(Buffer.from('[]'));
    },
    "the setting 'etag fn'",
    "app.get('etag fn') being the function res.send computes its (weak) ETag with, from the body's bytes",
  );
}
