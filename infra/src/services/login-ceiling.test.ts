import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireService, testPostgresUrl, testRedisUrl } from '@pass/events/test-support';
import { distributedDeployment } from '../test-support/distributed';
import { Actor } from '../test-support/hostile/client';
import { spawnService, type SpawnedService } from '../test-support/spawn-process';

const pgUp = await requireService('infra: login ceiling across command-api processes (PostgreSQL)', testPostgresUrl(), 5432);
const redisUp = await requireService('infra: login ceiling across command-api processes (Redis)', testRedisUrl(), 6379);

/**
 * Two command-api processes on one store and one Redis prefix, as the distributed layout scales
 * them: the per-account ceiling on wrong passwords is one count, and a device cookie issued by
 * one process vouches on the other.
 */
describe.skipIf(!pgUp || !redisUp)('distributed: the login ceiling across command-api processes', () => {
  const deployment = distributedDeployment('ceiling');
  const ADMIN = { email: 'admin@example.com', password: 'admin-pass-123' };
  const processes: SpawnedService[] = [];

  beforeAll(async () => {
    const env = { ...deployment.env, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password };
    processes.push(await spawnService('command-api', env));
    processes.push(await spawnService('command-api', env));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGTERM')));
    await deployment.cleanUp();
  }, 30_000);

  it('30 guesses on one member from 30 addresses, spread over both processes at once: at most 20 checked; the owner’s device signs in on the other', { timeout: 90_000 }, async () => {
    const [one, two] = processes as [SpawnedService, SpawnedService];
    const owner = new Actor(one.url);
    expect((await owner.send('POST', '/api/register-user', { json: { email: 'spread@example.com', password: 'right1' } })).status).toBe(201);

    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => new Actor(i % 2 ? one.url : two.url, `172.20.0.${i + 1}`).send('POST', '/api/register-user', { json: { email: 'spread@example.com', password: `bad${i}` } })),
    );
    expect(answers.filter((a) => a.status === 401).length).toBeLessThanOrEqual(20);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(10);

    expect((await new Actor(two.url).send('POST', '/api/register-user', { json: { email: 'spread@example.com', password: 'right1' } })).status).toBe(429);
    const onTheOther = new Actor(two.url, owner.address);
    for (const [name, value] of owner.cookies) onTheOther.cookies.set(name, value);
    expect((await onTheOther.send('POST', '/api/register-user', { json: { email: 'spread@example.com', password: 'right1' } })).status).toBe(200);
  });
});
