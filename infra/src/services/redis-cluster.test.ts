import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { OwnRedisCluster, requireRedisServer } from '@pass/projector/test-support';
import { Browser } from '../test-support/client';
import { distributedDeployment, pollUntil } from '../test-support/distributed';
import { spawnService, type SpawnedService } from '../test-support/spawn-process';

const pgUp = await requireService('infra: read models on a Redis Cluster (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra: read models on a Redis Cluster (Redis)', testRedisUrl(), 6379);
const installed = requireRedisServer('infra: read models on a Redis Cluster (redis-server in cluster mode)');


/**
 * REDIS_CLUSTER_NODES puts the read models on a Redis Cluster (three masters started by the
 * suite): the projector process writes its batches there and query-api answers from there,
 * while sessions and Socket.IO stay on REDIS_URL.
 */
describe.skipIf(!pgUp || !redisUp || !installed)('distributed processes with the read models on a Redis Cluster', () => {
  const deployment = distributedDeployment('cluster');
  const { prefix } = deployment;
  const cluster = new OwnRedisCluster(3);
  const services: SpawnedService[] = [];
  let commandApi: SpawnedService;
  let queryApi: SpawnedService;

  beforeAll(async () => {
    await cluster.start();
    const env = { ...deployment.env, REDIS_CLUSTER_NODES: cluster.ports.map((p) => `127.0.0.1:${p}`).join(',') };
    commandApi = await spawnService('command-api', env);
    services.push(commandApi);
    services.push(await spawnService('projector', env));
    queryApi = await spawnService('query-api', { ...env, COMMAND_API_URL: commandApi.url });
    services.push(queryApi);
  }, 120_000);

  afterAll(async () => {
    const codes = await Promise.all(services.map((s) => s.stop('SIGTERM')));
    await cluster.close();
    await deployment.cleanUp();
    expect(codes, services.map((s) => `${s.name}: ${s.stderr.join('')}`).join('\n')).toEqual(services.map(() => 0));
  }, 30_000);

  it('members who join and chat show in the ranking, the registry, the figures and the chat read from the cluster', async () => {
    const ready = await pollUntil(() => fetch(`${queryApi.url}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as { checks: Array<{ name: string; ok: boolean }> } })), (r) => r.status === 200);
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toContainEqual({ name: 'redis-read-models', ok: true });

    const before = (await (await fetch(`${queryApi.url}/api/main-data`)).json()) as { globalMessages: number };
    const ana = new Browser(commandApi.url);
    expect((await ana.request('POST', '/api/register-user', { email: 'ana@example.com', password: 'pass1' })).status).toBeLessThan(300);
    expect((await ana.request('POST', '/api/chat-messages', { message: 'Hello from the cluster' })).status).toBe(201);
    const ben = new Browser(commandApi.url);
    expect((await ben.request('POST', '/api/register-user', { email: 'ben@example.com', password: 'pass1' })).status).toBeLessThan(300);

    const registry = await pollUntil(
      () => fetch(`${queryApi.url}/api/registry?pageSize=10`).then((r) => r.json() as Promise<{ total: number }>),
      (r) => r.total === 2,
    );
    expect(registry.total).toBe(2);
    const chat = (await (await fetch(`${queryApi.url}/api/chat-messages?limit=50`)).json()) as { messages: Array<{ message: string }> };
    expect(chat.messages.map((m) => m.message)).toContain('Hello from the cluster');
    const main = (await (await fetch(`${queryApi.url}/api/main-data`)).json()) as { globalMessages: number };
    expect(main.globalMessages).toBe(before.globalMessages + 1);
    expect((await fetch(`${queryApi.url}/api/ranking?page=1`)).status).toBe(200);

    // The read models are on the cluster, not on REDIS_URL's server.
    const onCluster = new Cluster(cluster.nodes);
    const single = new Redis(testRedisUrl());
    try {
      expect(await onCluster.get(`${prefix}rm:active`)).toBe('ks0');
      expect(await onCluster.exists(`${prefix}rm:{ks0}:checkpoint`)).toBe(1);
      expect(await single.keys(`${prefix}rm:*`)).toEqual([]);
    } finally {
      onCluster.disconnect();
      single.disconnect();
    }
  }, 60_000);
});
