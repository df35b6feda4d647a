import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthenticatedRequest, FailedImageJobs, SessionVerifier } from '@pass/events';
import type { QueryApiDeps } from '../deps';
import { adminRoutes } from './routes';

/** Sessions by cookie value: `admin`, `member`, anything else a guest. */
const sessions: SessionVerifier = {
  verify: async (cookie) =>
    ({
      admin: cookie === 'admin' ? { id: 'a1' } : null,
      user: cookie === 'member' ? { id: 'u1' } : null,
    }) as unknown as AuthenticatedRequest,
};

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

async function serve(imageJobs?: QueryApiDeps['imageJobs']) {
  const deps = { sessions, logger: pino({ level: 'silent' }), ...(imageJobs ? { imageJobs } : {}) } as unknown as QueryApiDeps;
  const app = express().use(adminRoutes(deps));
  server = createServer(app);
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', () => done()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/admin/image-jobs`;
  return (cookie?: string) => fetch(url, { headers: cookie ? { cookie } : {} });
}

describe('GET /api/admin/image-jobs: the dead letters of image processing', () => {
  it('lists the jobs that failed every attempt, for the admin only', async () => {
    const dead: FailedImageJobs = { queue: 'bullmq', total: 1, jobs: [{ id: '7', failedAt: '2026-11-24T10:00:00.000Z', attempts: 3, reason: 'ENOSPC: no space left on device' }] };
    const asked: number[] = [];
    const get = await serve({ list: async (limit) => (asked.push(limit), dead) });
    const res = await get('admin');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(dead);
    expect(asked[0]).toBeGreaterThan(0);
    expect((await get('member')).status).toBe(403);
    expect((await get()).status).toBe(401);
  });

  it('says images are processed in-process (nothing queued) where there is no queue', async () => {
    const get = await serve();
    expect(await (await get('admin')).json()).toEqual({ queue: 'in-process', total: 0, jobs: [] });
  });

  it('answers 503 when the queue cannot be read', async () => {
    const get = await serve({ list: () => Promise.reject(new Error('redis down')) });
    expect((await get('admin')).status).toBe(503);
  });
});
