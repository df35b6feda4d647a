import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { spawnStandalone, type SpawnedService } from './spawn-process';

/**
 * A suite's own standalone site on a fresh DATA_DIR: `start()` starts it again on the same
 * folder (a restart); after the suite every process is killed and the folder removed.
 */
export function standaloneSite(name: string): { dataDir: string; start: () => Promise<SpawnedService> } {
  const dataDir = mkdtempSync(join(tmpdir(), `standalone-${name}-`));
  const running: SpawnedService[] = [];
  afterAll(async () => {
    for (const app of running) await app.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async () => {
    const app = await spawnStandalone({ DATA_DIR: dataDir });
    running.push(app);
    return app;
  };
  return { dataDir, start };
}
