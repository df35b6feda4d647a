import { Gauge, Histogram, type Registry } from 'prom-client';

interface QueryMetrics {
  querySeconds: Histogram<'route' | 'status'>;
  sockets: Gauge;
}

const cache = new WeakMap<Registry, QueryMetrics>();

export function queryMetrics(registry: Registry): QueryMetrics {
  let metrics = cache.get(registry);
  if (metrics) return metrics;
  metrics = {
    querySeconds: new Histogram({
      name: 'pass_query_seconds',
      help: 'Latency of read requests',
      labelNames: ['route', 'status'],
      buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    }),
    sockets: new Gauge({ name: 'pass_sockets_connected', help: 'Socket.IO connections on this instance', registers: [registry] }),
  };
  cache.set(registry, metrics);
  return metrics;
}
