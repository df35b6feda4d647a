/**
 * Wake-ups between processes for the PostgreSQL store: the appending process NOTIFYs after each
 * acknowledged append (coalesced: one NOTIFY in flight at a time), and only a process with a
 * subscription LISTENs, since PostgreSQL wakes every listening backend on every NOTIFY. The NOTIFY
 * follows the commit, never inside the append: a notifying transaction takes a cluster-wide lock
 * through its commit, which would serialise concurrent appends (no group commit).
 */
import pg from 'pg';
import type { EventStoreLogger } from './sql/client';
import { quoteIdent } from './sql/identifiers';
import { sqlFile } from './sql/sql-file';

const sql = sqlFile(new URL('./postgres-notifications.sql', import.meta.url));
const NOTIFY = sql('notify');

/** The channel a store's schema notifies on (PostgreSQL's identifiers hold 63 bytes). */
export const notificationChannel = (schema: string): string => `es_${schema}`.slice(0, 63);

export interface AppendListenerSettings {
  connectionString: string;
  connectTimeoutMs: number;
  schema: string;
  logger: EventStoreLogger | undefined;
}

/**
 * A dedicated connection for LISTEN, opened with the first subscription (`listen`); if it drops,
 * subscriptions keep polling while it reconnects. `wake` wakes this process's subscriptions.
 */
export class AppendListener {
  private closed = false;
  private listener: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectDelay = 0;

  constructor(
    private readonly settings: AppendListenerSettings,
    private readonly wake: () => void,
  ) {}

  /** The LISTEN connection while it is open; idle otherwise, so the NOTIFY can go out on it. */
  get connection(): pg.Client | undefined {
    return this.listener;
  }

  readonly listen = async (): Promise<void> => {
    if (this.closed) return;
    const { connectionString, connectTimeoutMs, schema } = this.settings;
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: connectTimeoutMs, application_name: `event-store-listen:${schema}` });
    this.listener = client;
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', () => this.wake());
    try {
      await client.connect();
      await client.query(sql('listen', { channel: quoteIdent(notificationChannel(schema)) }));
      this.reconnectDelay = 0;
      if (this.closed) await client.end();
      // Appends acknowledged before the LISTEN took effect were notified to no one.
      else this.wake();
    } catch (error) {
      this.lost(client, error);
    }
  };

  private lost(client: pg.Client, error?: unknown): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.reconnectDelay = Math.min(Math.max(this.reconnectDelay * 2, 200), 10_000);
    this.settings.logger?.warn({ err: error, retryInMs: this.reconnectDelay }, 'postgres event store: LISTEN connection lost, reconnecting');
    this.reconnectTimer = setTimeout(() => void this.listen(), this.reconnectDelay);
    // Catch up on anything appended while we were not listening.
    this.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => undefined);
  }
}

/**
 * At most one NOTIFY per interval: the first append after a quiet spell notifies at once, a
 * burst costs one more at the end of each interval instead of one per append.
 */
export class CoalescedNotify {
  private closed = false;
  private pending = false;
  private inFlight = false;
  private lastSent = 0;
  private timer: NodeJS.Timeout | undefined;

  /** `connection` answers where to send it: the LISTEN connection when open, else the pool. */
  constructor(
    private readonly connection: () => pg.Client | pg.Pool,
    private readonly channel: string,
    private readonly intervalMs: number,
    private readonly logger: EventStoreLogger | undefined,
  ) {}

  /** An append was acknowledged. */
  readonly appended = (): void => {
    this.pending = true;
    this.schedule();
  };

  private schedule(): void {
    if (this.closed || this.inFlight || this.timer || !this.pending) return;
    const wait = this.lastSent + this.intervalMs - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.schedule();
      }, wait);
      return;
    }
    this.pending = false;
    this.inFlight = true;
    this.lastSent = performance.now();
    this.connection()
      .query({ name: 'es_notify', text: NOTIFY, values: [this.channel, ''] })
      .catch((error: unknown) => {
        // Subscribers still find the events by their fallback poll.
        if (!this.closed) this.logger?.warn({ err: error }, 'postgres event store: NOTIFY failed');
      })
      .finally(() => {
        this.inFlight = false;
        this.schedule();
      });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}
