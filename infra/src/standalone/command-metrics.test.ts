import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../test-support/client';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

/**
 * command-api's Prometheus series, read from the standalone process's /metrics over real HTTP
 * after a few commands: `pass_commands_total{type,outcome}` counts each decided command once,
 * accepted and refused apart; `pass_command_duration_seconds{type}` times every one of them.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'standalone-command-metrics-'));
let app: SpawnedService;

beforeAll(async () => {
  app = await spawnStandalone({ DATA_DIR: dataDir, WEB_DIST_DIR: join(dataDir, 'no-web-build'), EVENT_STORE_URL: 'pglite:memory' });
}, 60_000);
afterAll(async () => {
  await app?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** The value of one series in Prometheus text (labels in any order), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe('command-api metrics on /metrics', () => {
  it('counts commands by type and outcome and times them', { timeout: 60_000 }, async () => {
    const metrics = async () => (await fetch(`${app.url}/metrics`)).text();
    const before = await metrics();

    const a = new Browser(app.url);
    const b = new Browser(app.url);
    expect((await a.request('POST', '/api/register-user', { email: 'metrics-a@example.com', password: 'pass1234' })).status).toBe(201);
    expect((await b.request('POST', '/api/register-user', { email: 'metrics-b@example.com', password: 'pass1234' })).status).toBe(201);
    expect((await a.request('POST', '/api/chat-messages', { message: 'counted' })).status).toBe(201);
    // A free point asked for as soon as its countdown starts: the decider refuses it (too soon).
    const ticket = await a.request('POST', '/api/free-point/ticket', {});
    expect(ticket.status).toBe(200);
    const early = await a.request('POST', '/api/free-point', { ticket: ticket.body.ticket });
    expect(early.status).toBeGreaterThanOrEqual(400);
    expect(early.status).toBeLessThan(500);

    const after = await metrics();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(after).toMatch(/^# TYPE pass_commands_total counter$/m);
    expect(after).toMatch(/^# TYPE pass_command_duration_seconds histogram$/m);
    expect(delta('pass_commands_total', { type: 'RegisterUser', outcome: 'accepted' })).toBe(2);
    expect(delta('pass_commands_total', { type: 'AwardFreePoint', outcome: 'rejected' })).toBe(1);
    expect(delta('pass_commands_total', { type: 'AwardFreePoint', outcome: 'accepted' })).toBe(0);
    expect(delta('pass_commands_total', { type: 'RegisterUser', outcome: 'rejected' })).toBe(0);
    expect(delta('pass_command_duration_seconds_count', { type: 'RegisterUser' })).toBe(2);
    expect(delta('pass_command_duration_seconds_count', { type: 'AwardFreePoint' })).toBe(1);
    expect(delta('pass_command_duration_seconds_bucket', { type: 'RegisterUser', le: '+Inf' })).toBe(2);
    expect(sample(after, 'pass_commands_total', { type: 'RegisterUser', outcome: 'accepted', service: 'standalone' })).toBeGreaterThanOrEqual(2);
    expect(delta('pass_commands_total', { type: 'SendChatMessage', outcome: 'accepted' })).toBe(1);
  });
});
