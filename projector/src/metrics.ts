import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Prometheus series of one projector, registered on the process's registry. */
export interface ProjectorMetrics {
  eventsProjected: Counter<'keyspace'>;
  batchSeconds: Histogram<'keyspace'>;
  errors: Counter<'keyspace'>;
  lagEvents: Gauge<'keyspace'>;
  lagSeconds: Gauge<'keyspace'>;
  lastErrorAt: Gauge<'keyspace'>;
  /** Running projectors whose lag is measured at each scrape. */
  running: Set<{
    status(): Promise<{ keyspace: string; lagEvents: number; lagSeconds: number }>;
    health(): { keyspace: string; lastFailure: { at: string } | null };
  }>;
}

const cache = new WeakMap<Registry, ProjectorMetrics>();

/**
 * Scrapes closer together than this share one lag measurement. Measuring reads up to
 * LAG_SCAN_LIMIT events from the store, which costs the projector about as much as projecting
 * them, so frequent scrapes would slow a catch-up. Prometheus scrapes every 15 s or more, so its
 * figures are unchanged.
 */
export const LAG_MEASURE_MIN_MS = 1_000;

export function projectorMetrics(registry: Registry): ProjectorMetrics {
  let metrics = cache.get(registry);
  if (metrics) return metrics;
  const registers = [registry];
  const running: ProjectorMetrics['running'] = new Set();
  // Lag is measured when Prometheus scrapes, so it is current even if nobody opens the admin view.
  let lagAtScrape: Promise<Array<{ keyspace: string; lagEvents: number; lagSeconds: number }>> | undefined;
  let measuredAt = -Infinity;
  const measureLag = () => {
    if (lagAtScrape && performance.now() - measuredAt < LAG_MEASURE_MIN_MS) return lagAtScrape;
    measuredAt = performance.now();
    lagAtScrape = Promise.all([...running].map((projector) => projector.status().catch(() => null))).then((all) => all.filter((status) => status !== null));
    return lagAtScrape;
  };
  metrics = {
    running,
    eventsProjected: new Counter({ name: 'pass_projector_events_total', help: 'Events applied to the read models', labelNames: ['keyspace'], registers }),
    batchSeconds: new Histogram({
      name: 'pass_projector_batch_seconds',
      help: 'Time to load, project and store one batch',
      labelNames: ['keyspace'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    }),
    errors: new Counter({ name: 'pass_projector_errors_total', help: 'Failed batches (the subscription restarts from the checkpoint)', labelNames: ['keyspace'], registers }),
    lagEvents: new Gauge({
      name: 'pass_projector_lag_events',
      help: 'Events in the store not yet projected (counted up to 10,000)',
      labelNames: ['keyspace'],
      registers,
      async collect() {
        this.reset();
        for (const status of await measureLag()) this.set({ keyspace: status.keyspace }, status.lagEvents);
      },
    }),
    lagSeconds: new Gauge({
      name: 'pass_projector_lag_seconds',
      help: 'Age of the oldest event not yet projected',
      labelNames: ['keyspace'],
      registers,
      async collect() {
        this.reset();
        for (const status of await measureLag()) this.set({ keyspace: status.keyspace }, status.lagSeconds);
      },
    }),
    lastErrorAt: new Gauge({
      name: 'pass_projector_last_error_timestamp_seconds',
      help: 'When the projector last failed a batch or a subscription (0: never since start); its message is in /status',
      labelNames: ['keyspace'],
      registers,
      collect() {
        this.reset();
        for (const projector of running) {
          const { keyspace, lastFailure } = projector.health();
          this.set({ keyspace }, lastFailure ? Date.parse(lastFailure.at) / 1000 : 0);
        }
      },
    }),
  };
  cache.set(registry, metrics);
  return metrics;
}
