import { afterAll, describe, expect, it } from 'vitest';
import { silentLongPolling, silentWebSocket, type SilentClient } from '@pass/query-api/test-support';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { distributedDeployment } from '../test-support/distributed';
import { spawnService, type SpawnedService } from '../test-support/spawn-process';

const pgUp = await requireService('infra: query-api stop (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra: query-api stop (Redis)', testRedisUrl(), 6379);

/**
 * A distributed query-api process stopped with clients attached that never read (a WebSocket
 * that upgraded and sent `40`, a long-polling guest holding a poll): it must cut them off and
 * exit 0 within 5 s, on SIGTERM and on SIGINT.
 */
describe.skipIf(!pgUp || !redisUp)('query-api stops within 5 s with clients that never read', { timeout: 60_000 }, () => {
  const deployment = distributedDeployment('qstop');
  const started: SpawnedService[] = [];
  afterAll(async () => {
    for (const s of started) await s.stop('SIGKILL');
    await deployment.cleanUp();
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('%s', async (signal) => {
    // No command-api is needed to hold sockets open; commands would be refused.
    const queryApi = await spawnService('query-api', { ...deployment.env, COMMAND_API_URL: 'http://127.0.0.1:9' });
    started.push(queryApi);
    const url = queryApi.url.replace('localhost', '127.0.0.1');
    const clients: SilentClient[] = [await silentWebSocket(url), await silentLongPolling(url, { address: '198.51.100.30' })];
    await clients[0]!.send(Array.from({ length: 50 }, () => '42["getChatMessages"]'));
    const sentAt = performance.now();
    const code = await Promise.race([queryApi.stop(signal), new Promise<'hung'>((done) => setTimeout(() => done('hung'), 25_000))]);
    const ms = performance.now() - sentAt;
    for (const client of clients) client.destroy();
    const tail = queryApi.logs.slice(-5).join('\n');
    expect(code, tail).toBe(0);
    expect(ms, tail).toBeLessThan(5_000);
  });
});
