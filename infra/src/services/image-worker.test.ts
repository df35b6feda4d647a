import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullMqImageJobs, commandApiRedisKeys, ImageJobFailures } from '@pass/command-api';
import { smallPng } from '@pass/command-api/test-support';
import { eventually, requireService, testRedisUrl } from '@pass/events/test-support';
import { spawnService, type SpawnedService } from '../test-support/spawn-process';

const redisUrl = testRedisUrl();
const redisUp = await requireService('infra: image-worker process (Redis)', redisUrl, 6379);

/**
 * The image worker as its own process, fed by a producer as command-api runs it (no worker of
 * its own), on a fresh key prefix of the test Redis.
 */
describe.skipIf(!redisUp)('image-worker process', () => {
  const prefix = `test:image-worker:${randomUUID().slice(0, 8)}:`;
  const queuePrefix = commandApiRedisKeys(prefix).imageJobs;
  const logger = pino({ level: 'silent' });
  let dir: string;
  let uploads: string;
  let worker: SpawnedService;
  let failures: ImageJobFailures;
  let queue: Queue;
  const producers: BullMqImageJobs[] = [];

  /** command-api's side of the queue: adds a job and waits for its answer. */
  function producer(retries: { attempts: number; backoffMs: number }) {
    const jobs = new BullMqImageJobs({ redisUrl, uploadsDir: uploads, logger, prefix: queuePrefix, runWorker: false, retries });
    producers.push(jobs);
    return jobs;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pass-image-worker-'));
    uploads = join(dir, 'uploads');
    worker = await spawnService('image-worker', { REDIS_URL: redisUrl, REDIS_PREFIX: prefix, UPLOADS_DIR: uploads });
    failures = new ImageJobFailures({ redisUrl, prefix: queuePrefix });
    queue = new Queue('image-processing', { connection: { host: new URL(redisUrl).hostname, port: Number(new URL(redisUrl).port || 6379) }, prefix: queuePrefix });
  }, 60_000);

  afterAll(async () => {
    for (const p of producers) await p.close();
    await failures?.close();
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await worker?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers /readyz and re-encodes a queued upload into the shared uploads folder', async () => {
    expect((await fetch(`${worker.url}/readyz`)).status).toBe(200);
    expect(await queue.getWorkersCount()).toBe(1);
    const image = await producer({ attempts: 1, backoffMs: 10 }).processImage(await smallPng());
    expect(image.url).toMatch(/^\/uploads\/.+\.webp$/);
    expect(existsSync(join(uploads, image.path))).toBe(true);
  });

  it('retries a job that failed for a passing reason, and the request gets its image', async () => {
    await rm(uploads, { recursive: true, force: true });
    // The uploads folder cannot be created while a file holds its name: the first attempt fails.
    await writeFile(uploads, 'in the way');
    const answer = producer({ attempts: 3, backoffMs: 1_500 }).processImage(await smallPng());
    // Freed while the job waits out its backoff (the second attempt comes after 1.5 s).
    await eventually(async () => expect(await queue.getDelayedCount()).toBe(1), 10_000);
    await rm(uploads);
    const image = await answer;
    expect(existsSync(join(uploads, image.path))).toBe(true);
    expect((await failures.list()).total).toBe(0);
  });

  it('keeps a job that failed every attempt as a dead letter for the status panel', async () => {
    await rm(uploads, { recursive: true, force: true });
    await writeFile(uploads, 'in the way');
    try {
      await expect(producer({ attempts: 2, backoffMs: 10 }).processImage(await smallPng())).rejects.toThrow();
      const dead = await failures.list();
      expect(dead.total).toBe(1);
      expect(dead.jobs[0]).toMatchObject({ attempts: 2, reason: expect.stringMatching(/EEXIST|ENOTDIR/) });
      const metrics = await (await fetch(`${worker.url}/metrics`)).text();
      expect(metrics).toMatch(/pass_image_jobs_total\{outcome="dead"[^}]*\} 1/);
    } finally {
      await rm(uploads, { force: true });
    }
  });
});
