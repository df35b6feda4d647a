import { Cluster, type Redis } from 'ioredis';

/** How long a start waits for the first subscription before going on unsubscribed. */
const SUBSCRIBE_WAIT_MS = 2_000;

/** The two log calls a listener makes (pino's logger fits). */
export interface AnnouncementLogger {
  info(msg: string): void;
  warn(obj: unknown, msg?: string): void;
}

export interface AnnouncementOptions {
  channel: string;
  /** CLIENT SETNAME of the subscriber connection, for operators reading CLIENT LIST. */
  connectionName: string;
  logger: AnnouncementLogger;
  onMessage(message: string): void;
  /** Subscribed (again): from now on every announcement is heard. */
  onHeard(): void;
  /** The subscriber connection dropped: announcements published meanwhile are lost. */
  onUnheard(): void;
  /** Log lines for the two changes, saying what they mean to this process. */
  says: { heard: string; unheard: string };
}

export interface AnnouncementListener {
  /** Redis's id of the subscriber connection (CLIENT LIST / CLIENT KILL ID); changes on reconnect. */
  readonly clientId: number | undefined;
  close(): Promise<void>;
}

/**
 * Listens on a Redis channel for announcements that keep a process's local copy exact (a logout,
 * a read model that moved on). Pub/sub keeps nothing for an absent subscriber, so the owner is
 * told both when it hears again and when it may have missed one; between the two it must not
 * trust what it copied. The subscriber connects (and reconnects) in the background and is
 * subscribed by hand on every ready, so `onHeard` comes only once announcements flow. A start
 * without Redis goes on after a short wait (readiness reports Redis); `onHeard` follows later.
 */
export async function listenToAnnouncements(redis: Redis | Cluster, options: AnnouncementOptions): Promise<AnnouncementListener> {
  const { channel, logger, says } = options;
  const subscriber = subscriberOf(redis, options.connectionName);
  const state = { heard: false, clientId: undefined as number | undefined };
  subscriber.on('message', (from: string, message: string) => {
    if (from === channel) options.onMessage(message);
  });
  subscriber.on('close', () => {
    if (!state.heard) return;
    state.heard = false;
    options.onUnheard();
    logger.warn({ channel }, says.unheard);
  });
  subscriber.on('error', (err: Error) => logger.warn({ err, channel }, 'announcement subscriber error'));
  const listen = async (): Promise<void> => {
    state.clientId = Number(await subscriber.client('ID'));
    await subscriber.subscribe(channel);
    state.heard = true;
    options.onHeard();
    logger.info(says.heard);
  };
  let firstHeard!: () => void;
  const heardOnce = new Promise<void>((resolve) => (firstHeard = resolve));
  subscriber.on('ready', () => {
    if (!state.heard) listen().then(firstHeard, (err: unknown) => logger.warn({ err, channel }, 'could not subscribe to announcements'));
  });
  await Promise.race([heardOnce, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  return {
    get clientId() {
      return state.clientId;
    },
    close: async () => {
      subscriber.removeAllListeners('close');
      state.heard = false;
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}

/**
 * A connection of its own for subscribing, never resubscribed behind the listener's back. On a
 * Redis Cluster a PUBLISH reaches every node, so the subscriber may sit on any of them.
 */
function subscriberOf(redis: Redis | Cluster, connectionName: string): Redis | Cluster {
  if (!(redis instanceof Cluster)) return redis.duplicate({ autoResubscribe: false, connectionName });
  return redis.duplicate([], { redisOptions: { ...redis.options.redisOptions, autoResubscribe: false, connectionName } });
}
