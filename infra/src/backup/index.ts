// Backup and restore of the standalone's DATA_DIR, the move onto PostgreSQL, and the gauges the
// standalone's /metrics adds for them.
export { backupRouter, siteSecret } from './endpoint';
export { registerDataDirMetrics } from './metrics';
