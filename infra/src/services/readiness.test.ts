import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { Browser } from '../test-support/client';
import { distributedDeployment, pollUntil } from '../test-support/distributed';
import { spawnService, type SpawnedService } from '../test-support/spawn-process';

const pgUp = await requireService('infra: distributed readiness (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra: distributed readiness (Redis)', testRedisUrl(), 6379);


interface Readiness {
  status: number;
  projector: { ok: boolean; error?: string } | undefined;
}

async function readiness(url: string): Promise<Readiness> {
  const res = await fetch(`${url}/readyz`);
  const body = (await res.json()) as { checks: Array<{ name: string; ok: boolean; error?: string }> };
  return { status: res.status, projector: body.checks.find((c) => c.name === 'projector') };
}

/**
 * query-api's /readyz in the distributed layout follows a projector in another process: its
 * heartbeat in Redis, its last error and how far the read models are behind the store.
 */
describe.skipIf(!pgUp || !redisUp)('distributed readiness: query-api follows the projector process', () => {
  const deployment = distributedDeployment('ready');
  const { prefix } = deployment;
  const env = {
    ...deployment.env,
    // Short limits so the test sees them pass; the defaults are 10 s and 30 s.
    READY_MAX_HEARTBEAT_SECONDS: '2',
    READY_MAX_LAG_SECONDS: '2',
  };
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  const services: SpawnedService[] = [];
  let commandApi: SpawnedService;
  let queryApi: SpawnedService;
  let projector: SpawnedService;

  const startProjector = async () => {
    projector = await spawnService('projector', env);
    services.push(projector);
  };
  const projectorGone = () => services.splice(services.indexOf(projector), 1);

  beforeAll(async () => {
    commandApi = await spawnService('command-api', env);
    services.push(commandApi);
    queryApi = await spawnService('query-api', { ...env, COMMAND_API_URL: commandApi.url });
    services.push(queryApi);
  }, 90_000);

  afterAll(async () => {
    const codes = await Promise.all(services.map((s) => s.stop('SIGTERM')));
    redis.disconnect();
    await deployment.cleanUp();
    expect(codes, services.map((s) => `${s.name}: ${s.stderr.join('')}`).join('\n')).toEqual(services.map(() => 0));
  }, 30_000);

  it('is not ready while no projector runs, and ready once one has caught up', async () => {
    const before = await readiness(queryApi.url);
    expect(before.status).toBe(503);
    expect(before.projector).toEqual({ name: 'projector', ok: false, error: expect.stringContaining('no projector heartbeat') });

    await startProjector();
    expect((await pollUntil(() => readiness(queryApi.url), (r) => r.status === 200, 20_000)).status).toBe(200);
    const metrics = await (await fetch(`${projector.url}/metrics`)).text();
    expect(metrics).toMatch(/pass_projector_heartbeat_timestamp_seconds\{service="projector"\} [1-9]/);
  }, 60_000);

  it('a paused projector makes query-api unready once its heartbeat lapses; resumed, ready again by itself', async () => {
    projector.child.kill('SIGSTOP');
    try {
      const paused = await pollUntil(() => readiness(queryApi.url), (r) => r.status === 503, 15_000);
      expect(paused).toMatchObject({ status: 503, projector: { ok: false, error: expect.stringContaining('no projector heartbeat') } });
    } finally {
      projector.child.kill('SIGCONT');
    }
    expect((await pollUntil(() => readiness(queryApi.url), (r) => r.status === 200, 15_000)).status).toBe(200);
  }, 40_000);

  it('a stopped projector makes query-api unready; a new one brings it back', async () => {
    expect(await projector.stop('SIGTERM')).toBe(0);
    projectorGone();
    const stopped = await pollUntil(() => readiness(queryApi.url), (r) => r.status === 503, 15_000);
    expect(stopped.projector?.error).toContain('no projector heartbeat');
    await startProjector();
    expect((await pollUntil(() => readiness(queryApi.url), (r) => r.status === 200, 20_000)).status).toBe(200);
  }, 60_000);

  it('a projector that cannot store its batches shows its last error, and query-api is unready while it is behind', async () => {
    const member = new Browser(commandApi.url);
    expect((await member.request('POST', '/api/register-user', { email: 'ready@example.com', password: 'pass1' })).status).toBeLessThan(300);
    // Projected before the key is broken, so only the chat message's batch fails.
    const registry = () => fetch(`${queryApi.url}/api/registry`).then((r) => r.json() as Promise<{ total: number }>);
    expect((await pollUntil(registry, (r) => r.total === 1, 15_000)).total).toBe(1);
    // The chat list replaced by a string: the next chat message's batch fails (WRONGTYPE) and is retried.
    const chatKey = await readModelKey('chat');
    await redis.set(chatKey, 'not a list');
    try {
      expect((await member.request('POST', '/api/chat-messages', { message: 'Held back' })).status).toBe(201);
      const failing = await pollUntil(() => projectorStatus(), (s) => s.lastError !== null, 15_000);
      expect(failing.lastError).toMatch(/WRONGTYPE/);
      expect(failing.health.lastFailure).toMatchObject({ message: expect.stringMatching(/WRONGTYPE/) });
      const behind = await pollUntil(() => readiness(queryApi.url), (r) => r.status === 503, 15_000);
      expect(behind.projector?.error).toMatch(/behind by \d+ events .*last error: .*WRONGTYPE/);
      expect(await (await fetch(`${projector.url}/metrics`)).text()).toMatch(/pass_projector_last_error_timestamp_seconds\{keyspace="[^"]+",service="projector"\} [1-9]/);
    } finally {
      await redis.del(chatKey);
    }
    // The retry (backing off up to 10 s) stores the batch; everything comes back without a hand.
    expect((await pollUntil(() => readiness(queryApi.url), (r) => r.status === 200, 30_000)).status).toBe(200);
    expect((await projectorStatus()).lastError).toBeNull();
    const chat = (await (await fetch(`${queryApi.url}/api/chat-messages?limit=50`)).json()) as { messages: Array<{ message: string }> };
    expect(chat.messages.map((m) => m.message)).toContain('Held back');
  }, 90_000);

  async function projectorStatus(): Promise<{ lastError: string | null; health: { lastFailure: { message: string; at: string } | null } }> {
    return (await (await fetch(`${projector.url}/status`)).json()) as never;
  }

  /** The active keyspace's key for one read model, whatever the layout under the prefix. */
  async function readModelKey(name: string): Promise<string> {
    const active = await redis.get(`${prefix}rm:active`);
    const checkpoint = (await redis.keys(`${prefix}rm:*${active}*:checkpoint`))[0]!;
    return checkpoint.replace(/checkpoint$/, name);
  }
});
