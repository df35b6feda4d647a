import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canConnect, freePort } from '@pass/events/test-support';

/**
 * A redis-server of the suite's own, on a free port (never the machine's shared 6379), so it can
 * be killed and restarted. `aof`: append-only file, fsynced every second as the deployment's
 * compose file runs it; otherwise nothing is persisted.
 */
export class OwnRedis {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'pass-faults-redis-'));
  port = 0;

  constructor(private readonly aof: boolean) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it, unless it is running already (a teardown's start must not orphan the running one). */
  async start(): Promise<void> {
    if (this.running) return;
    this.port ||= await freePort();
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--dir', this.dir];
    args.push(...(this.aof ? ['--appendonly', 'yes', '--appendfsync', 'everysec'] : ['--appendonly', 'no']));
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (await canConnect('127.0.0.1', this.port, 200)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not start on ${this.port}`);
  }

  private get running(): boolean {
    const child = this.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill(signal);
    await exited;
  }

  async close(): Promise<void> {
    await this.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
