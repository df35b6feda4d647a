import type { FailedImageJob, FailedImageJobs, Image } from '@pass/events';
import { Queue, QueueEvents, UnrecoverableError, Worker, type Job } from 'bullmq';
import { redisConnectionOptions } from '@pass/events/redis';
import type { Logger } from 'pino';
import { HttpError } from '../http/errors';
import { ImageDecodeError, processImage } from './process-image';

/**
 * The job port for image processing: the same handler (`processImage`) runs in this process
 * (standalone) or on BullMQ workers sharing the uploads folder (distributed: the image-worker
 * process, `startImageWorker`). The request waits for the result either way: the certificate
 * needs the stored image's path.
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
/** The failure reason of an unreadable image: the member's mistake, answered 400, never retried. */
const UNREADABLE = 'UNREADABLE_IMAGE';
/** Longest failure reason the dead-letter view shows (errors can carry long stacks of context). */
const REASON_CHARS = 300;

export interface ImageJobRetries {
  /** Tries per job, the first included. */
  attempts: number;
  /** Exponential backoff: the first retry waits this long, each next one twice as long. */
  backoffMs: number;
}

/** 1 s then 2 s: a Redis fail-over or a full disk freed meanwhile, within the request's wait. */
export const DEFAULT_IMAGE_JOB_RETRIES: ImageJobRetries = { attempts: 3, backoffMs: 1_000 };

export const IMAGE_JOBS_UNAVAILABLE = 'The image could not be processed right now, please try again in a moment';

/** Dead letters are kept a week (at most 1,000) for the admin's status panel. */
const KEEP_FAILED = { age: 7 * 24 * 3600, count: 1_000 };

interface ImageJobData {
  /** The upload, base64; emptied once the job is done or dead (nobody will run it again). */
  image: string;
}

export interface BullMqImageJobsOptions {
  redisUrl: string;
  uploadsDir: string;
  logger: Logger;
  /** Queue key prefix, to isolate deployments and tests sharing one Redis. */
  prefix?: string;
  /**
   * Also run a worker in this process (default true: tests and one-process use). The distributed
   * command-api passes false: its jobs run in the image-worker process.
   */
  runWorker?: boolean;
  retries?: ImageJobRetries;
  /** How long a request waits for its job, retries included. */
  timeoutMs?: number;
}

export class BullMqImageJobs implements ImageJobs {
  readonly kind = 'bullmq' as const;
  private readonly queue: Queue<ImageJobData>;
  private readonly events: QueueEvents;
  private readonly worker: ImageWorker | undefined;
  private readonly retries: ImageJobRetries;
  private readonly timeoutMs: number;
  private readonly logger: Logger;

  constructor(options: BullMqImageJobsOptions) {
    this.logger = options.logger;
    const connection = redisConnectionOptions(options.redisUrl);
    const prefix = options.prefix ?? 'pass:bull';
    this.retries = options.retries ?? DEFAULT_IMAGE_JOB_RETRIES;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.queue = new Queue(QUEUE, { connection, prefix });
    this.events = new QueueEvents(QUEUE, { connection, prefix });
    if (options.runWorker ?? true) {
      this.worker = startImageWorker({ redisUrl: options.redisUrl, uploadsDir: options.uploadsDir, logger: options.logger, prefix });
    }
  }

  async processImage(input: Buffer): Promise<Image> {
    await this.events.waitUntilReady();
    const job = await this.queue.add(
      'process',
      { image: input.toString('base64') },
      {
        attempts: this.retries.attempts,
        backoff: { type: 'exponential', delay: this.retries.backoffMs },
        // Kept a minute, so a request that looks just after completion still finds the answer.
        removeOnComplete: { age: 60, count: 100 },
        removeOnFail: KEEP_FAILED,
      },
    );
    try {
      return (await job.waitUntilFinished(this.events, this.timeoutMs)) as Image;
    } catch (error) {
      if (error instanceof Error && error.message.includes(UNREADABLE)) {
        // Not a dead letter: the member is told, and the bytes leave Redis now.
        await job.remove().catch(() => undefined);
        throw new ImageDecodeError(error);
      }
      // Every attempt failed, or no worker answered in time: the member may try again later.
      this.logger.warn({ err: error, jobId: job.id }, 'image job gave no image');
      throw Object.assign(new HttpError(503, IMAGE_JOBS_UNAVAILABLE, undefined, { 'Retry-After': '10' }), { cause: error });
    }
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.events.close();
    await this.queue.close();
  }
}

export interface ImageWorkerOptions {
  redisUrl: string;
  uploadsDir: string;
  logger: Logger;
  prefix?: string;
  /** Jobs run at once; sharp uses its own threads for each. */
  concurrency?: number;
  /** The job's work (tests replace it to fail on purpose); default `processImage`. */
  process?: (uploadsDir: string, input: Buffer) => Promise<Image>;
  /** Each attempt's outcome, for the worker's metrics. */
  onOutcome?: (outcome: ImageJobOutcome) => void;
}

export type ImageJobOutcome = 'completed' | 'retrying' | 'dead' | 'unreadable';

export interface ImageWorker {
  /** Resolves once connected to Redis and taking jobs. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** A BullMQ worker for image jobs: the image-worker process, or a producer's own (`runWorker`). */
export function startImageWorker(options: ImageWorkerOptions): ImageWorker {
  const run = options.process ?? processImage;
  const worker = new Worker<ImageJobData, Image>(
    QUEUE,
    async (job) => {
      try {
        return await run(options.uploadsDir, Buffer.from(job.data.image, 'base64'));
      } catch (error) {
        // Another try would read the same bytes: fail now, and tell the waiting request why.
        if (error instanceof ImageDecodeError) throw new UnrecoverableError(UNREADABLE);
        throw error;
      }
    },
    { connection: redisConnectionOptions(options.redisUrl), prefix: options.prefix ?? 'pass:bull', concurrency: options.concurrency ?? 2 },
  );
  worker.on('completed', (job) => {
    options.onOutcome?.('completed');
    // The answer travels in the completion event: the member's bytes need not wait for the job's removal.
    void job.updateData({ image: '' }).catch(() => undefined);
  });
  worker.on('failed', (job, error) => void onFailed(job, error, options));
  // Connection trouble: BullMQ reconnects on its own; unhandled, the event would end the process.
  worker.on('error', (error) => options.logger.warn({ err: error }, 'image worker: redis problem'));
  return { ready: () => worker.waitUntilReady().then(() => undefined), close: () => worker.close() };
}

async function onFailed(job: Job<ImageJobData> | undefined, error: Error, options: ImageWorkerOptions): Promise<void> {
  if (error.message === UNREADABLE) return options.onOutcome?.('unreadable');
  const dead = !job || job.attemptsMade >= (job.opts.attempts ?? 1);
  options.onOutcome?.(dead ? 'dead' : 'retrying');
  options.logger.warn({ err: error, jobId: job?.id, attempt: job?.attemptsMade, dead }, dead ? 'image job failed every attempt' : 'image job failed, will retry');
  // The dead letter keeps when and why, not the member's image.
  if (dead && job) await job.updateData({ image: '' }).catch(() => undefined);
}

/** Reads the dead letters for the admin's status panel (query-api, distributed). */
export class ImageJobFailures {
  private readonly queue: Queue<ImageJobData>;
  constructor(options: { redisUrl: string; prefix?: string }) {
    this.queue = new Queue(QUEUE, { connection: redisConnectionOptions(options.redisUrl), prefix: options.prefix ?? 'pass:bull' });
  }

  async list(limit = 50): Promise<FailedImageJobs> {
    const [total, jobs] = await Promise.all([this.queue.getFailedCount(), this.queue.getFailed(0, limit - 1)]);
    return { queue: 'bullmq', total, jobs: jobs.filter((job): job is Job<ImageJobData> => Boolean(job)).map(deadLetterOf) };
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

function deadLetterOf(job: Job<ImageJobData>): FailedImageJob {
  return {
    id: String(job.id),
    failedAt: new Date(job.finishedOn ?? job.processedOn ?? job.timestamp).toISOString(),
    attempts: job.attemptsMade,
    reason: (job.failedReason ?? '').slice(0, REASON_CHARS),
  };
}
