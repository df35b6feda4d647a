import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Budget, SocketLimits } from './limits';

export type EventKind = 'read' | 'command';

/** An event's verdict: go on, or refused with the wait; `abusive` when the socket is far past its own budget. */
export type Spent = { allowed: true } | { allowed: false; waitSeconds: number; abusive: boolean };

export interface SocketBudgets {
  /** Counts one event of `kind` from the socket and its client address. */
  spend(kind: EventKind, socketId: string, address: string): Promise<Spent>;
  /** A socket that disconnected leaves nothing behind. */
  forget(socketId: string): void;
}

/**
 * Distributed: the per-client counts live in Redis (keys `<prefix>reads:<address>`,
 * `<prefix>commands:<address>`), so every query-api instance draws on the same allowance.
 */
export interface BudgetStore {
  redis: Redis;
  prefix: string;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function perSocket(budget: Budget): RateLimiterMemory {
  return new RateLimiterMemory({ points: budget.max, duration: seconds(budget.windowMs) });
}

function perClient(name: string, budget: Budget, store: BudgetStore | undefined): RateLimiterAbstract {
  const options = { points: budget.max, duration: seconds(budget.windowMs) };
  const inMemory = new RateLimiterMemory({ ...options, keyPrefix: `socket-${name}` });
  if (!store) return inMemory;
  return new RateLimiterRedis({
    ...options,
    storeClient: store.redis,
    keyPrefix: `${store.prefix}${name}`,
    // A client past its allowance is refused from memory until its window ends: a flood costs
    // Redis one round trip per window, not one per event.
    inMemoryBlockOnConsumed: budget.max + 1,
    // Redis unreachable: each instance counts on its own meanwhile, rather than refusing everyone.
    insuranceLimiter: inMemory,
  });
}

async function consume(limiter: RateLimiterAbstract, key: string): Promise<{ allowed: boolean; waitSeconds: number; used: number }> {
  try {
    const res = await limiter.consume(key);
    return { allowed: true, waitSeconds: 0, used: res.consumedPoints };
  } catch (refusal) {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    return { allowed: false, waitSeconds: seconds(refusal.msBeforeNext), used: refusal.consumedPoints };
  }
}

/**
 * Every socket read and command is counted against its socket (this process's memory: a socket
 * lives on one process) and then its client address, before any work is done for it. The
 * socket's own count goes on past its budget, so a socket that keeps sending is told apart
 * from a page that got ahead of itself.
 */
export function createSocketBudgets(limits: SocketLimits, store?: BudgetStore): SocketBudgets {
  const budgets = {
    read: { socket: limits.readsPerSocket, client: limits.readsPerClient },
    command: { socket: limits.commandsPerSocket, client: limits.commandsPerClient },
  };
  const limiters = {
    read: { socket: perSocket(limits.readsPerSocket), client: perClient('reads:', limits.readsPerClient, store) },
    command: { socket: perSocket(limits.commandsPerSocket), client: perClient('commands:', limits.commandsPerClient, store) },
  };
  return {
    async spend(kind, socketId, address) {
      const own = await consume(limiters[kind].socket, socketId);
      if (!own.allowed) return { allowed: false, waitSeconds: own.waitSeconds, abusive: own.used > budgets[kind].socket.max * limits.abuseFactor };
      const shared = await consume(limiters[kind].client, address);
      return shared.allowed ? { allowed: true } : { allowed: false, waitSeconds: shared.waitSeconds, abusive: false };
    },
    forget(socketId) {
      void limiters.read.socket.delete(socketId);
      void limiters.command.socket.delete(socketId);
    },
  };
}

/** The refusal a command's acknowledgement carries (the web shows `error` and waits `retryAfterSeconds`). */
export function tooManyEventsMessage(waitSeconds: number): string {
  return `Too many requests from this page. Please wait ${waitSeconds} second${waitSeconds === 1 ? '' : 's'} and try again.`;
}
