import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireService, testRedisUrl } from '@pass/events/test-support';
import { jpegWithExif } from '../test-support/images';
import { BullMqImageJobs, InProcessImageJobs, type ImageJobs } from './image-jobs';
import { ImageDecodeError } from './process-image';
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

describe('content sniffing', () => {
  it('tells images, PDFs and executables apart by their bytes', () => {
    expect(sniffContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('jpeg');
    expect(sniffContentType(Buffer.from('%PDF-1.4 ...'))).toBe('pdf');
    expect(sniffContentType(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]))).toBe('executable');
    expect(sniffContentType(Buffer.from('#!/bin/sh\nrm -rf /'))).toBe('executable');
    expect(sniffContentType(Buffer.from('just text'))).toBe('unknown');
  });
});
