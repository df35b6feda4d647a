import { io, type Socket } from 'socket.io-client';
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

/** Socket.IO on the page's own origin, with the spec's defaults (§7). */
export function createLiveSocket(): LiveSocket {
  const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io({
    withCredentials: true,
    reconnectionDelay: TIMERS.socketReconnectDelayMs,
    reconnectionDelayMax: TIMERS.socketReconnectDelayMaxMs,
    timeout: TIMERS.socketTimeoutMs,
  });
  return {
    get connected() {
      return socket.connected;
    },
    on(event, listener) {
      // socket.io's typed `on` cannot be called with a generic event name without a cast.
      (socket.on as (e: string, l: (...args: never[]) => void) => void)(event, listener);
    },
    onLifecycle(event, listener) {
      socket.on(event, listener);
    },
    emit(event, ...args) {
      (socket.emit as (e: string, ...a: unknown[]) => void)(event, ...args);
    },
    reconnect() {
      socket.disconnect().connect();
    },
    disconnect() {
      socket.disconnect();
    },
  };
}
