import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnStandalone, type SpawnedService } from '@pass/infra/test-support';

/**
 * Runs `measure` against a standalone process (as `npm start` runs it, minus the web build) on a
 * fresh data directory, then stops it and removes the directory.
 */
export async function withBenchStandalone<T>(name: string, measure: (service: SpawnedService) => Promise<T>, env: Record<string, string> = {}): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `pass-bench-${name}-`));
  let service: SpawnedService | undefined;
  try {
    service = await spawnStandalone({ DATA_DIR: dir, WEB_DIST_DIR: join(dir, 'no-web-build'), SESSION_SECRET: `bench-secret-${randomUUID()}`, ...env });
    return await measure(service);
  } finally {
    await service?.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
