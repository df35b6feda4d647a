import { Counter, Histogram, type Registry } from 'prom-client';
import type { CommandLogLine } from '@pass/events';

/** Every way a command that reached the handler ends: decided (as logged), or `failed` (not decided or not stored). */
export type CommandOutcome = CommandLogLine['outcome'] | 'failed';

/** Prometheus series of the commands the handler decides, registered on the process's registry. */
export interface CommandMetrics {
  commands: Counter<'type' | 'outcome'>;
  seconds: Histogram<'type'>;
}

const cache = new WeakMap<Registry, CommandMetrics>();

/** One set per registry (a second command-api on the same registry shares it). */
export function commandMetrics(registry: Registry): CommandMetrics {
  let metrics = cache.get(registry);
  if (metrics) return metrics;
  metrics = {
    commands: new Counter({
      name: 'pass_commands_total',
      help: 'Commands decided by command-api, by command type and outcome (accepted, unchanged, rejected, failed)',
      labelNames: ['type', 'outcome'],
      registers: [registry],
    }),
    seconds: new Histogram({
      name: 'pass_command_duration_seconds',
      help: 'From queued to decided and stored (or refused), by command type',
      labelNames: ['type'],
      buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
  cache.set(registry, metrics);
  return metrics;
}
