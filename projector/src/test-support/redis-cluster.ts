import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { canConnect, freePort, recordSkippedSuite } from '@pass/events/test-support';

const run = promisify(execFile);
const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';

/** True when Debian's redis-server and redis-cli are installed; otherwise records the suite as skipped. */
export function requireRedisServer(suite: string): boolean {
  if (existsSync(REDIS_SERVER) && existsSync(REDIS_CLI)) return true;
  recordSkippedSuite(suite, `${REDIS_SERVER} or ${REDIS_CLI} is not installed`);
  return false;
}

/**
 * A Redis Cluster of the suite's own: `masters` redis-server processes in cluster mode on free
 * loopback ports, no replicas and nothing persisted, joined by `redis-cli --cluster create`.
 */
export class OwnRedisCluster {
  private readonly children: ChildProcess[] = [];
  readonly dir = mkdtempSync(join(tmpdir(), 'pass-redis-cluster-'));
  ports: number[] = [];

  constructor(private readonly masters = 3) {}

  get nodes(): Array<{ host: string; port: number }> {
    return this.ports.map((port) => ({ host: '127.0.0.1', port }));
  }

  async start(): Promise<void> {
    for (let i = 0; i < this.masters; i++) this.ports.push(await freePort());
    for (const port of this.ports) {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', join(this.dir, `nodes-${port}.conf`)];
      args.push('--dir', this.dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no');
      this.children.push(spawn(REDIS_SERVER, args, { stdio: 'ignore' }));
    }
    for (const port of this.ports) await this.waitForPort(port);
    const addresses = this.ports.map((port) => `127.0.0.1:${port}`);
    await run(REDIS_CLI, ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    for (const port of this.ports) await this.waitForState(port);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async waitForPort(port: number): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (await canConnect('127.0.0.1', port, 200)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not start on ${port}`);
  }

  /** Every node must see every slot served before a client is told the cluster's layout. */
  private async waitForState(port: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { stdout } = await run(REDIS_CLI, ['-p', String(port), 'cluster', 'info']);
      if (stdout.includes('cluster_state:ok')) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the cluster node on ${port} did not reach cluster_state:ok`);
  }
}
