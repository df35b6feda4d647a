import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy the fault suites control, between the services and a server (PostgreSQL).
 * - `reset()`: every connection is closed and new ones are refused at once (a server that
 *   went down, a firewall sending RST);
 * - `blackhole()`: connections stay open but nothing passes either way, and new ones are
 *   accepted but never reach the server (a network partition: the worst case for timeouts);
 * - `restore()`: traffic flows again (held connections resume where they were).
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private mode: 'open' | 'reset' | 'blackhole' = 'open';
  port = 0;

  constructor(
    private readonly target: { host: string; port: number },
  ) {}

  async start(): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', () => done()));
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(this.target);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    const pair = { client, upstream };
    this.pairs.add(pair);
    const forget = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', forget);
    upstream.on('close', forget);
    client.pipe(upstream);
    upstream.pipe(client);
    if (this.mode === 'blackhole') this.hold(pair);
  }

  private hold(pair: { client: Socket; upstream: Socket }): void {
    pair.client.unpipe(pair.upstream);
    pair.upstream.unpipe(pair.client);
    pair.client.pause();
    pair.upstream.pause();
  }

  reset(): void {
    this.mode = 'reset';
    for (const { client, upstream } of this.pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  blackhole(): void {
    this.mode = 'blackhole';
    for (const pair of this.pairs) this.hold(pair);
  }

  restore(): void {
    const wasHeld = this.mode === 'blackhole';
    this.mode = 'open';
    if (!wasHeld) return;
    for (const { client, upstream } of this.pairs) {
      client.pipe(upstream);
      upstream.pipe(client);
    }
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }

  connections(): number {
    return this.pairs.size;
  }
}
