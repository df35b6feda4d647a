import type { Redis } from 'ioredis';
import { Emitter } from '@socket.io/redis-emitter';
import { CHAT_PANEL_MESSAGES, type ServerToClientEvents } from '@pass/events';
import type { LiveNotice } from '../projections/types';
import type { Keyspace } from '../read-models/port';
import type { CountriesRecord } from '../read-models/types';
import { updatedMainData } from '../read-models/views';

/** One Socket.IO broadcast, typed by the wire contract. */
export type LiveEvent = {
  [K in keyof ServerToClientEvents]: { name: K; payload: Parameters<ServerToClientEvents[K]>[0] };
}[keyof ServerToClientEvents];

/** Where the projector sends live events once a batch is stored. */
export interface LivePublisher {
  publish(events: LiveEvent[]): void | Promise<void>;
}

/** Anything that broadcasts like `io.emit`: a Socket.IO server (standalone) or a Redis emitter. */
export interface Broadcaster {
  emit(event: string, ...args: unknown[]): unknown;
}

export function broadcastPublisher(target: Broadcaster): LivePublisher {
  return {
    publish(events) {
      for (const event of events) target.emit(event.name, event.payload);
    },
  };
}

/**
 * Distributed mode: the projector has no sockets of its own; it publishes through Redis to every
 * query-api instance running `@socket.io/redis-adapter` on the same `key`.
 *
 * A batch's broadcasts (a chat message makes two) go out as one pipeline, so Redis hands them to
 * each query-api in one read and it writes them to each socket in one system call (query-api's
 * coalesceWrites). Not awaited: a missed broadcast is repaired by the next one or a reload.
 */
export function redisEmitterPublisher(redis: Redis, options: { key?: string } = {}): LivePublisher {
  const settings = options.key ? { key: options.key } : {};
  return {
    publish(events) {
      const pipeline = redis.pipeline();
      broadcastPublisher(new Emitter<ServerToClientEvents>(pipeline as unknown as Redis, settings) as unknown as Broadcaster).publish(events);
      void pipeline.exec();
    },
  };
}

/**
 * Distributed mode: a Redis emitter on the query-api instances' adapter `key`, for a process with
 * no sockets of its own that sends to a room (command-api's notices of ended sessions).
 */
export function redisRoomEmitter(redis: Redis, options: { key?: string } = {}): Emitter<ServerToClientEvents> {
  return new Emitter<ServerToClientEvents>(redis, options.key ? { key: options.key } : {});
}

/** What a broadcast reads from the read models once its batch is stored. */
export interface LiveReads {
  /** The top countries of the figures broadcast and how many there are, as stored now. */
  countries(): Promise<CountriesRecord>;
  chat: Keyspace['chat'];
}

/**
 * Turns a stored batch's notices into broadcasts, so that what browsers see is what a reload
 * would show: the figures as the batch stored them, the countries and the chat history read from
 * the read models. A clear sends the whole (short) history instead of the single messages of that
 * batch, so nothing arrives twice.
 */
export async function liveEventsFor(notices: LiveNotice[], reads: LiveReads): Promise<LiveEvent[]> {
  const events: LiveEvent[] = [];
  const cleared = notices.some((notice) => notice.kind === 'chatCleared');
  for (const notice of notices) {
    switch (notice.kind) {
      case 'mainData':
        events.push({ name: 'updatedMainData', payload: updatedMainData(notice.main, await reads.countries()) });
        break;
      case 'globalMember':
      case 'globalMessage':
        events.push({ name: notice.kind, payload: notice.post });
        break;
      case 'chatMessage':
        if (!cleared) events.push({ name: 'chatMessage', payload: notice.message });
        break;
      case 'chatCleared':
        if (!events.some((event) => event.name === 'chatMessages')) {
          events.push({ name: 'chatMessages', payload: await reads.chat(CHAT_PANEL_MESSAGES) });
        }
        break;
      case 'progress':
        // The current day of GET /api/progress, as the batch stored it: no read.
        events.push({ name: 'progress', payload: notice.day });
        break;
    }
  }
  return events;
}
