import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Prometheus series of one projector, registered on the process's registry. */
export interface ProjectorMetrics {
  eventsProjected: Counter<'keyspace'>;
  batchSeconds: Histogram<'keyspace'>;
  errors: Counter<'keyspace'>;
  lagEvents: Gauge<'keyspace'>;
  lagSeconds: Gauge<'keyspace'>;
}

const cache = new WeakMap<Registry, ProjectorMetrics>();

export function projectorMetrics(registry: Registry): ProjectorMetrics {
  let m = cache.get(registry);
  if (m) return m;
  const registers = [registry];
  m = {
    eventsProjected: new Counter({ name: 'pass_projector_events_total', help: 'Events applied to the read models', labelNames: ['keyspace'], registers }),
    batchSeconds: new Histogram({
      name: 'pass_projector_batch_seconds',
      help: 'Time to load, project and store one batch',
      labelNames: ['keyspace'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    }),
    errors: new Counter({ name: 'pass_projector_errors_total', help: 'Failed batches (the subscription restarts from the checkpoint)', labelNames: ['keyspace'], registers }),
    lagEvents: new Gauge({ name: 'pass_projector_lag_events', help: 'Events in the store not yet projected (capped)', labelNames: ['keyspace'], registers }),
    lagSeconds: new Gauge({ name: 'pass_projector_lag_seconds', help: 'Age of the oldest event not yet projected', labelNames: ['keyspace'], registers }),
  };
  cache.set(registry, m);
  return m;
}
