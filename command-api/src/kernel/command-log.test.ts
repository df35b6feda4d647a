import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CommandLog } from './command-log';
import { commandMetrics } from './command-metrics';

const queued = (type: string) => ({ command: { type }, ctx: { correlationId: 'c' } as never, enqueuedAt: performance.now() });

describe('CommandLog metrics', () => {
  it('counts each command once by type and outcome (failed included) and times it', async () => {
    const registry = new Registry();
    const log = new CommandLog(pino({ level: 'silent' }), commandMetrics(registry));
    log.decided(queued('RegisterUser'), 'user-1', 'accepted', { attempts: 1, events: 1 });
    log.decided(queued('RegisterUser'), 'user-2', 'accepted', { attempts: 1, events: 1 });
    log.decided(queued('AwardFreePoint'), 'user-1', 'rejected', { attempts: 1, code: 'too_soon' });
    log.failed(queued('AwardFreePoint'), 'user-1', new Error('store unavailable'), 3);

    const text = await registry.metrics();
    expect(text).toContain('pass_commands_total{type="RegisterUser",outcome="accepted"} 2');
    expect(text).toContain('pass_commands_total{type="AwardFreePoint",outcome="rejected"} 1');
    expect(text).toContain('pass_commands_total{type="AwardFreePoint",outcome="failed"} 1');
    expect(text).toContain('pass_command_duration_seconds_count{type="RegisterUser"} 2');
    expect(text).toContain('pass_command_duration_seconds_count{type="AwardFreePoint"} 2');
    // The same registry gets the same series (a second command-api in one process shares them).
    expect(commandMetrics(registry)).toBe(commandMetrics(registry));
  });

  it('logs without metrics when given none', () => {
    expect(() => new CommandLog(pino({ level: 'silent' })).decided(queued('RegisterUser'), 'user-1', 'accepted', { attempts: 1 })).not.toThrow();
  });
});

describe('CommandLog lines', () => {
  it("name an e-mail's stream by its kind only: the id is derived from the address, and logs outlive an erasure", () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _e, done) => done(void lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>)) });
    const log = new CommandLog(pino(sink));
    log.decided(queued('ReserveEmail'), 'email-6b1e0f4c2a', 'accepted', { attempts: 1, events: 1 });
    log.failed(queued('ReleaseEmail'), 'email-6b1e0f4c2a', new Error('store unavailable'), 3);
    log.decided(queued('RegisterUser'), 'user-1', 'accepted', { attempts: 1, events: 1 });
    expect(lines.map((l) => l.stream)).toEqual(['email', 'email', 'user-1']);
    expect(JSON.stringify(lines)).not.toContain('6b1e0f4c2a');
  });
});
