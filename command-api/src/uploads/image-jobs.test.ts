import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Image } from '@pass/events';
import sharp from 'sharp';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, requireService, testRedisUrl } from '@pass/events/test-support';
import { jpegWithExif } from '../test-support/images';
import { BullMqImageJobs, IMAGE_JOBS_UNAVAILABLE, ImageJobFailures, InProcessImageJobs, startImageWorker, type ImageJobs } from './image-jobs';
import { ImageDecodeError, processImage } from './process-image';
import { sniffContentType } from './content-type';

const redisUrl = testRedisUrl();
const redisUp = await requireService('command-api BullMQ image jobs', redisUrl, 6379);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pass-jobs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function behavesAsTheImageJob(jobs: ImageJobs) {
  const image = await jobs.processImage(await jpegWithExif(3000, 1500));
  const stored = await readFile(join(dir, image.path));
  const meta = await sharp(stored).metadata();
  expect(meta).toMatchObject({ format: 'webp', width: 1024, height: 512 });
  expect(meta.exif).toBeUndefined();
  await expect(jobs.processImage(Buffer.from('RIFF0000WEBPnot really'))).rejects.toBeInstanceOf(ImageDecodeError);
}

describe('image jobs', () => {
  it('in process: re-encodes, bounds the size, drops metadata, refuses undecodable bytes', async () => {
    await behavesAsTheImageJob(new InProcessImageJobs(dir));
  });

  it.skipIf(!redisUp)('on BullMQ: the same handler through a Redis queue', async () => {
    const jobs = new BullMqImageJobs({ redisUrl, uploadsDir: dir, logger: pino({ level: 'silent' }), prefix: `test:${randomUUID()}` });
    try {
      await behavesAsTheImageJob(jobs);
    } finally {
      await jobs.close();
    }
  });
});

describe.skipIf(!redisUp)('image jobs on BullMQ: retries and dead letters', () => {
  const logger = pino({ level: 'silent' });
  const quick = { attempts: 3, backoffMs: 20 };
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close();
  });

  /** A producer (no worker of its own), a worker running `work`, and the dead-letter reader, on a fresh queue. */
  async function queueWith(work: (uploadsDir: string, input: Buffer) => Promise<Image>) {
    const prefix = `test:${randomUUID()}`;
    const worker = startImageWorker({ redisUrl, uploadsDir: dir, logger, prefix, process: work });
    const jobs = new BullMqImageJobs({ redisUrl, uploadsDir: dir, logger, prefix, runWorker: false, retries: quick });
    const failures = new ImageJobFailures({ redisUrl, prefix });
    const queue = new Queue<{ image: string }>('image-processing', { connection: { host: new URL(redisUrl).hostname, port: Number(new URL(redisUrl).port || 6379) }, prefix });
    // Closed in reverse: the queue's keys go last, once nothing uses them.
    opened.push({ close: () => queue.obliterate({ force: true }).finally(() => queue.close()) }, worker, jobs, failures);
    await worker.ready();
    return { jobs, failures, queue };
  }

  it('retries a transient failure and answers the request with the stored image', async () => {
    let calls = 0;
    const { jobs, failures, queue } = await queueWith(async (uploads, input) => {
      calls++;
      if (calls === 1) throw new Error('EIO: disk hiccup');
      return processImage(uploads, input);
    });
    const image = await jobs.processImage(await jpegWithExif(400, 200));
    expect(calls).toBe(2);
    expect((await sharp(await readFile(join(dir, image.path))).metadata()).format).toBe('webp');
    expect(await failures.list()).toEqual({ queue: 'bullmq', total: 0, jobs: [] });
    // The member's bytes do not stay in Redis once the job is done.
    await eventually(async () => {
      const done = await queue.getCompleted();
      expect(done.map((j) => j.data.image)).toEqual(['']);
    });
  });

  it('does not retry an unreadable image, answers it as one, and keeps no dead letter', async () => {
    let calls = 0;
    const { jobs, failures } = await queueWith(async (uploads, input) => {
      calls++;
      return processImage(uploads, input);
    });
    await expect(jobs.processImage(Buffer.from('RIFF0000WEBPnot really'))).rejects.toBeInstanceOf(ImageDecodeError);
    expect(calls).toBe(1);
    expect((await failures.list()).total).toBe(0);
  });

  it('lists a job that failed every attempt as a dead letter: when, attempts, reason, not the image', async () => {
    const { jobs, failures, queue } = await queueWith(async () => {
      throw new Error('ENOSPC: no space left on device');
    });
    // The member is asked to try again later (503), not told the image was at fault.
    await expect(jobs.processImage(await jpegWithExif(40, 20))).rejects.toMatchObject({ status: 503, message: IMAGE_JOBS_UNAVAILABLE });
    const dead = await failures.list();
    expect(dead).toMatchObject({ queue: 'bullmq', total: 1, jobs: [{ attempts: 3, reason: 'ENOSPC: no space left on device' }] });
    expect(Date.parse(dead.jobs[0]!.failedAt)).not.toBeNaN();
    expect(JSON.stringify(dead)).not.toMatch(/image|base64/i);
    await eventually(async () => expect((await queue.getFailed()).map((j) => j.data.image)).toEqual(['']));
  });
});

describe('content sniffing', () => {
  it('tells images, PDFs and executables apart by their bytes', () => {
    expect(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('jpeg');
    expect(sniffContentType(Buffer.from('%PDF-1.4 ...'))).toBe('pdf');
    expect(sniffContentType(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]))).toBe('executable');
    expect(sniffContentType(Buffer.from('#!/bin/sh\nrm -rf /'))).toBe('executable');
    expect(sniffContentType(Buffer.from('just text'))).toBe('unknown');
  });
});
