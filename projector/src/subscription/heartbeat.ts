import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { ProjectorHealth } from './health';

/** What the projector process stores in Redis on every beat. */
export interface Heartbeat extends ProjectorHealth {
  beatAt: string;
  /** The key's time to live: a projector that stops beating (stopped, paused, cut off) vanishes after it. */
  ttlMs: number;
}

/** A heartbeat as a reader finds it, with its age measured on Redis's clock (machine clocks may differ). */
export interface HeartbeatReading extends Heartbeat {
  ageMs: number;
}

export interface HeartbeatOptions {
  redis: Redis | Cluster;
  key: string;
  ttlMs: number;
  /** The projector feeding readers now; undefined while there is none (not started yet). */
  source: () => ProjectorHealth | undefined;
  logger: Logger;
  registry?: Registry;
  /**
   * Whether stopping deletes the key (default), so readers know at once. A projector that stands
   * down for a new leader keeps it: the new leader's beats replace it.
   */
  deleteOnStop?: boolean;
}

/**
 * Beats four times per time to live, so one lost write never makes the key expire. Each beat is
 * a SET with an expiry: readers never compare clocks across machines, a missing key means no beat
 * within the time to live. Stopping deletes it, so readers know at once.
 */
export function startHeartbeat(options: HeartbeatOptions): { stop(): Promise<void> } {
  const { redis, key, ttlMs, logger } = options;
  const beats = heartbeatGauge(options.registry);
  let failing = false;
  const beat = async () => {
    const health = options.source();
    if (!health) return;
    const stored: Heartbeat = { ...health, beatAt: new Date().toISOString(), ttlMs };
    try {
      await redis.set(key, JSON.stringify(stored), 'PX', ttlMs);
      beats?.set(Date.now() / 1000);
      if (failing) logger.info('projector heartbeat stored again');
      failing = false;
    } catch (error) {
      // One line per outage; readiness elsewhere reports Redis itself.
      if (!failing) logger.warn({ err: error }, 'projector heartbeat not stored');
      failing = true;
    }
  };
  const timer = setInterval(() => void beat(), Math.max(250, Math.floor(ttlMs / 4)));
  timer.unref();
  void beat();
  return {
    stop: async () => {
      clearInterval(timer);
      if (options.deleteOnStop !== false) await redis.del(key).catch(() => undefined);
    },
  };
}

export async function readHeartbeat(redis: Redis | Cluster, key: string): Promise<HeartbeatReading | null> {
  const res = (await redis.multi().get(key).pttl(key).exec()) ?? [];
  for (const [err] of res) if (err) throw err;
  const raw = res[0]?.[1] as string | null;
  const pttl = Number(res[1]?.[1]);
  if (!raw || pttl < 0) return null;
  const beat = JSON.parse(raw) as Heartbeat;
  return { ...beat, ageMs: Math.max(0, beat.ttlMs - pttl) };
}

function heartbeatGauge(registry: Registry | undefined): Gauge | undefined {
  if (!registry) return undefined;
  const name = 'pass_projector_heartbeat_timestamp_seconds';
  return (
    (registry.getSingleMetric(name) as Gauge | undefined) ??
    new Gauge({ name, help: 'When the projector last stored its heartbeat in Redis', registers: [registry] })
  );
}
