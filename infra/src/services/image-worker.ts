/**
 * The image worker as its own process (distributed mode): takes the image jobs command-api
 * queues on BullMQ (Redis), re-encodes each upload into the uploads folder it shares with
 * command-api, and retries transient failures with backoff (the attempts and the backoff travel
 * with each job); jobs that failed every attempt stay in Redis as dead letters, which the
 * admin's status panel lists. Run as many as needed. A small HTTP port (IMAGE_WORKER_PORT)
 * serves /healthz, /readyz (Redis answers) and /metrics.
 */
import { createServer } from 'node:http';
import express from 'express';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { commandApiRedisKeys, startImageWorker, type ImageJobOutcome } from '@pass/command-api';
import { requireSettings, type Settings } from '../config/settings';
import { accessLog } from '../http/access-log';
import { listen, stopAccepting } from '../wiring/http';
import { isEntryPoint, Resources } from '../wiring/lifecycle';
import { createRegistry, opsRouter, redisCheck } from '../wiring/ops';
import { runService } from '../wiring/process';
import { closeRedis, openRedis } from '../wiring/redis';
import { imageWorkerRequires } from './requirements';

/** `pass_image_jobs_total{outcome}`: completed, retrying, dead (every attempt failed), unreadable. */
function outcomeCounter(registry: Registry): (outcome: ImageJobOutcome) => void {
  const counter = new Counter({ name: 'pass_image_jobs_total', help: 'Image job attempts by outcome', labelNames: ['outcome'], registers: [registry] });
  return (outcome) => counter.inc({ outcome });
}

export async function startImageWorkerService(settings: Settings, logger: Logger) {
  const resources = new Resources();
  try {
    // Readiness pings Redis on a connection of its own: the worker's is busy with blocking reads.
    const redis = openRedis(settings.redisUrl!, 'image-worker', logger);
    resources.add(() => closeRedis(redis));
    const registry = createRegistry('image-worker');
    const worker = startImageWorker({
      redisUrl: settings.redisUrl!,
      uploadsDir: settings.uploadsDir,
      prefix: commandApiRedisKeys(settings.redisPrefix).imageJobs,
      logger,
      onOutcome: outcomeCounter(registry),
    });
    // Closing waits for the jobs in hand, so a stop never leaves a request without its answer.
    resources.add(() => worker.close());
    await worker.ready();

    const app = express();
    app.disable('x-powered-by');
    app.use(accessLog({ logger }));
    app.use(opsRouter({ service: 'image-worker', mode: 'distributed', registry, logger, checks: [redisCheck('redis', redis)] }));
    const server = createServer(app);
    const url = await listen(server, settings.host, settings.imageWorkerPort);
    resources.add(() => stopAccepting(server));
    return { url, close: resources.close };
  } catch (error) {
    await resources.close().catch(() => undefined);
    throw error;
  }
}

if (isEntryPoint(import.meta.url)) {
  await runService('image-worker', startImageWorkerService, {
    validate: (settings) => requireSettings(settings, 'image-worker', imageWorkerRequires),
  });
}
