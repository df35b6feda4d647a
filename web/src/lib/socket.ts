import type { Socket } from 'socket.io-client';
import type { SagaIterator } from 'redux-saga';
import { call, delay, race } from 'redux-saga/effects';
import { TIMERS } from '@pass/events/kernel';
import type { ClientToServerEvents, ServerToClientEvents } from '@pass/events/kernel';

type Listener<E extends keyof ServerToClientEvents> = ServerToClientEvents[E];

/** What the sagas need of a Socket.IO client; tests pass a fake. */
export interface LiveSocket {
  readonly connected: boolean;
  on<E extends keyof ServerToClientEvents>(event: E, listener: Listener<E>): void;
  onLifecycle(event: 'connect' | 'disconnect', listener: () => void): void;
  emit<E extends keyof ClientToServerEvents>(event: E, ...args: Parameters<ClientToServerEvents[E]>): void;
  /** A new handshake, so the server sees the session cookie set (or cleared) since the last one. */
  reconnect(): void;
  disconnect(): void;
}

/**
 * Socket.IO on the page's own origin, with the defaults of docs/product.md §7. The client library
 * loads on its own, after the entry script: until it has, the listeners and emits wait in order
 * and are handed to the socket as soon as it exists (Socket.IO itself buffers emits until it
 * connects), and `connected` reads false, as it does before any handshake.
 */
export function createLiveSocket(): LiveSocket {
  let socket: Socket<ServerToClientEvents, ClientToServerEvents> | undefined;
  const pending: ((client: Socket<ServerToClientEvents, ClientToServerEvents>) => void)[] = [];
  const whenReady = (use: (client: Socket<ServerToClientEvents, ClientToServerEvents>) => void) => {
    if (socket) use(socket);
    else pending.push(use);
  };
  // A chunk that fails to load (a network blip) is asked for again, as a lost socket reconnects.
  const load = (): void => {
    import('socket.io-client').then(
      ({ io }) => {
        socket = io({
          withCredentials: true,
          reconnectionDelay: TIMERS.socketReconnectDelayMs,
          reconnectionDelayMax: TIMERS.socketReconnectDelayMaxMs,
          timeout: TIMERS.socketTimeoutMs,
        });
        for (const use of pending.splice(0)) use(socket);
      },
      () => setTimeout(load, TIMERS.socketReconnectDelayMs),
    );
  };
  load();
  return {
    get connected() {
      return socket?.connected ?? false;
    },
    on(event, listener) {
      // socket.io's typed `on` cannot be called with a generic event name without a cast.
      whenReady((client) => (client.on as (e: string, l: (...args: never[]) => void) => void)(event, listener));
    },
    onLifecycle(event, listener) {
      whenReady((client) => client.on(event, listener));
    },
    emit(event, ...args) {
      whenReady((client) => (client.emit as (e: string, ...a: unknown[]) => void)(event, ...args));
    },
    reconnect() {
      whenReady((client) => client.disconnect().connect());
    },
    disconnect() {
      whenReady((client) => client.disconnect());
    },
  };
}

/** An acknowledged emit's answer, as the server's socket handlers send it. */
/** `retryAfterSeconds`: a 429's wait, as the server sent it (socket ack or HTTP body). */
export type AckAnswer<T> = { ok: true; data: T } | { ok: false; error: string; status: number; retryAfterSeconds?: number };

function ackOf<T>(send: (ack: (answer: AckAnswer<T>) => void) => void): Promise<AckAnswer<T>> {
  return new Promise((resolve) => send(resolve));
}

/** Emits with an acknowledgement, giving up after the socket timeout (docs/product.md §7) with a 408. */
export function* awaitAck<T>(send: (ack: (answer: AckAnswer<T>) => void) => void): SagaIterator {
  const { answer } = yield race({ answer: call(ackOf<T>, send), timeout: delay(TIMERS.socketTimeoutMs) });
  return (answer as AckAnswer<T> | undefined) ?? { ok: false, error: 'timeout', status: 408 };
}
