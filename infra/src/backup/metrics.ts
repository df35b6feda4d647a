/**
 * The standalone's disk and backup gauges, read when Prometheus scrapes: free and total bytes of
 * the filesystem under DATA_DIR (the store, uploads and snapshots grow there), and when the last
 * backup succeeded (0: never), from the record the backup CLI leaves in DATA_DIR.
 */
import { statfs } from 'node:fs/promises';
import { Gauge, type Registry } from 'prom-client';
import { readLastBackup } from './data-dir';

export function registerDataDirMetrics(registry: Registry, dataDir: string): void {
  const disk = async () => {
    const stats = await statfs(dataDir);
    return { free: stats.bavail * stats.bsize, total: stats.blocks * stats.bsize };
  };
  new Gauge({
    name: 'pass_data_dir_free_bytes',
    help: 'Bytes free for this process on the filesystem holding DATA_DIR',
    registers: [registry],
    async collect() {
      this.set((await disk()).free);
    },
  });
  new Gauge({
    name: 'pass_data_dir_size_bytes',
    help: 'Size in bytes of the filesystem holding DATA_DIR',
    registers: [registry],
    async collect() {
      this.set((await disk()).total);
    },
  });
  new Gauge({
    name: 'pass_backup_last_success_timestamp_seconds',
    help: 'When the last backup (npm run backup) of this DATA_DIR succeeded, Unix seconds; 0 when none has',
    registers: [registry],
    async collect() {
      const last = await readLastBackup(dataDir);
      this.set(last ? Date.parse(last.at) / 1000 : 0);
    },
  });
}
