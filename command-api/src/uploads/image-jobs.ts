import type { Image } from '@pass/events';
import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { ImageDecodeError, processImage } from './process-image';

/**
 * The job port for image processing: the same handler (`processImage`) runs in this process
 * (standalone) or on BullMQ workers sharing the uploads folder (distributed, REDIS_URL set).
 * The request waits for the result either way: the certificate needs the stored image's path.
 */
export interface ImageJobs {
  readonly kind: 'in-process' | 'bullmq';
  processImage(input: Buffer): Promise<Image>;
  close(): Promise<void>;
}

export class InProcessImageJobs implements ImageJobs {
  readonly kind = 'in-process' as const;
  constructor(private readonly uploadsDir: string) {}
  processImage(input: Buffer): Promise<Image> {
    return processImage(this.uploadsDir, input);
  }
  async close(): Promise<void> {}
}

const QUEUE = 'image-processing';
const UNREADABLE = 'UNREADABLE_IMAGE';

export interface BullMqImageJobsOptions {
  redisUrl: string;
  uploadsDir: string;
  logger: Logger;
  /** Queue key prefix, to isolate deployments and tests sharing one Redis. */
  prefix?: string;
  /** Run a worker in this process (default true); a dedicated worker process sets false on the web side. */
  runWorker?: boolean;
  timeoutMs?: number;
}

function connectionOf(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 6379),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

export class BullMqImageJobs implements ImageJobs {
  readonly kind = 'bullmq' as const;
  private readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly worker: Worker | undefined;
  private readonly timeoutMs: number;

  constructor(options: BullMqImageJobsOptions) {
    const connection = connectionOf(options.redisUrl);
    const prefix = options.prefix ?? 'pass:bull';
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.queue = new Queue(QUEUE, { connection, prefix });
    this.events = new QueueEvents(QUEUE, { connection, prefix });
    if (options.runWorker ?? true) {
      this.worker = new Worker(
        QUEUE,
        async (job: Job<{ image: string }>) => {
          try {
            return await processImage(options.uploadsDir, Buffer.from(job.data.image, 'base64'));
          } catch (error) {
            // Tell the waiting request it was the image, not the worker, that failed.
            if (error instanceof ImageDecodeError) throw new Error(UNREADABLE, { cause: error });
            throw error;
          }
        },
        { connection, prefix, concurrency: 2 },
      );
      this.worker.on('failed', (job, error) => options.logger.warn({ err: error, jobId: job?.id }, 'image job failed'));
    }
  }

  async processImage(input: Buffer): Promise<Image> {
    await this.events.waitUntilReady();
    const job = await this.queue.add('process', { image: input.toString('base64') }, { removeOnComplete: 100, removeOnFail: 100, attempts: 1 });
    try {
      return (await job.waitUntilFinished(this.events, this.timeoutMs)) as Image;
    } catch (error) {
      if (error instanceof Error && error.message.includes(UNREADABLE)) throw new ImageDecodeError(error);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.events.close();
    await this.queue.close();
  }
}
