import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { createCommandApi, type CommandApi } from '@pass/command-api';
import type { EventStore } from '@pass/events';
import { openPgliteEventStore } from '@pass/events/store';
import { createRedisReadModels } from '@pass/projector';
import { createOpsRouter, readSideChecks } from './ops/router';
import { createQueryReads } from './query-api';

/** What an operator sees when Redis (the read models) is down: 503s, never wrong data or a hang. */
describe('query-api with its read models unreachable', () => {
  let url: string;
  let close: () => Promise<void>;
  let store: EventStore;
  let commandApi: CommandApi;

  beforeAll(async () => {
    const logger = pino({ level: 'silent' });
    store = await openPgliteEventStore();
    commandApi = await createCommandApi({ eventStore: store, logger, config: { uploadsDir: `/tmp/pass-qa-down-${process.pid}`, cookieSecure: false, sessionSecret: 's'.repeat(40) } });
    // Port 1 on loopback refuses connections; no retries, no offline queue: fail fast.
    const redis = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    redis.on('error', () => undefined);
    const readModels = createRedisReadModels({ redis, root: 'test:down' });
    const registry = new Registry();
    const app = express();
    app.use(createOpsRouter({ registry, logger, checks: readSideChecks({ readModels, eventStore: store }), timeoutMs: 500 }));
    app.use(createQueryReads({ readModels, sessions: commandApi.sessions, gateway: commandApi.gateway, eventStore: store, logger, metrics: registry }).router);
    const server = createServer(app);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      await new Promise((done) => server.close(done));
      redis.disconnect();
    };
  });
  afterAll(async () => {
    await close();
    await commandApi.close();
    await store.close();
  });

  it('answers 503 { error } to reads', async () => {
    for (const path of ['/api/main-data', '/api/countries', '/api/progress', '/api/ranking', '/api/registry?q=ana', '/api/chat-messages', '/api/global-post']) {
      const res = await fetch(url + path);
      expect(res.status, path).toBe(503);
      expect(await res.json(), path).toEqual({ error: 'Read models unavailable, try again shortly' });
    }
  });

  it('reports not ready, naming the read models, while staying alive', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { checks: Array<{ name: string; ok: boolean }> };
    expect(body.checks.find((c) => c.name === 'read-models')?.ok).toBe(false);
    expect(body.checks.find((c) => c.name === 'event-store')?.ok).toBe(true);
  });
});
