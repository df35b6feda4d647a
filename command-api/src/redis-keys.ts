/**
 * Where command-api's Redis adapters keep their keys under a deployment's prefix (REDIS_PREFIX).
 * Every command-api instance uses the same keys, and query-api verifies cookies against the
 * same session records.
 */
export function commandApiRedisKeys(prefix = 'pass:') {
  return {
    sessions: `${prefix}sessions:`,
    loginLimits: `${prefix}login:`,
    actionLimits: `${prefix}limits:`,
    aggregateSnapshots: `${prefix}aggregate-snapshots:`,
    /** BullMQ's queue prefix for image jobs. */
    imageJobs: `${prefix}bull`,
  };
}
