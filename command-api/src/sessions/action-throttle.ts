import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { DomainError } from '@pass/events';
import { DEFAULT_ACTION_LIMITS, type ActionLimits } from './limits';
import { inMemoryStore, openLimiter, tryConsume, type LimiterStore } from './limiter-store';
import { pairedConsume, type PairedConsume } from './paired-consume';

export type ThrottledAction = 'chat' | 'freePoint' | 'orders' | 'passwordReset';

export function tooManyActionsMessage(action: ThrottledAction, seconds: number): string {
  const wait = `${seconds} second${seconds === 1 ? '' : 's'}`;
  if (action === 'chat') return `You are sending messages too fast. Please wait ${wait} and try again.`;
  if (action === 'passwordReset') {
    const minutes = Math.ceil(seconds / 60);
    return `Too many password reset requests. Please wait ${seconds < 60 ? wait : `${minutes} minute${minutes === 1 ? '' : 's'}`} and try again.`;
  }
  if (action === 'orders') {
    const minutes = Math.ceil(seconds / 60);
    const later = seconds < 60 ? wait : `${minutes} minute${minutes === 1 ? '' : 's'}`;
    return `Too many payment orders started. Please wait ${later} and try again.`;
  }
  return `Too many requests for free points. Please wait ${wait} and try again.`;
}

/** An action's limiters: per member, and per client address where the action has one. */
interface ActionLimiters {
  user: RateLimiterAbstract;
  ip?: RateLimiterAbstract;
}

function limitersOf(store: LimiterStore, limits: ActionLimits): Record<ThrottledAction, ActionLimiters> {
  return {
    chat: { user: openLimiter(store, 'chat:user', limits.chatPerUser), ip: openLimiter(store, 'chat:ip', limits.chatPerIp) },
    freePoint: { user: openLimiter(store, 'free:user', limits.freePointPerUser), ip: openLimiter(store, 'free:ip', limits.freePointPerIp) },
    orders: { user: openLimiter(store, 'orders:user', limits.ordersPerUser) },
    // Keyed by the normalised e-mail address in place of a member id.
    passwordReset: {
      user: openLimiter(store, 'reset:email', limits.passwordResetPerEmail ?? DEFAULT_ACTION_LIMITS.passwordResetPerEmail!),
      ip: openLimiter(store, 'reset:ip', limits.passwordResetPerIp ?? DEFAULT_ACTION_LIMITS.passwordResetPerIp!),
    },
  };
}

/**
 * Burst limits on chat, the free point, payment orders and reset mails (numbers in `limits.ts`), over HTTP
 * and the sockets alike. An attempt consumes before the action runs, so a burst sent at once
 * gets exactly the allowance through.
 */
export class ActionThrottle {
  private constructor(
    private readonly limiters: Record<ThrottledAction, ActionLimiters>,
    private readonly consumeBoth: PairedConsume,
  ) {}

  static inMemory(limits: ActionLimits = DEFAULT_ACTION_LIMITS): ActionThrottle {
    return new ActionThrottle(limitersOf(inMemoryStore, limits), pairedConsume(inMemoryStore));
  }

  /** Shared by every command-api process; keys `<prefix>chat:user:<id>`, `<prefix>chat:ip:<address>`, ... */
  static onRedis(redis: Redis, prefix: string, limits: ActionLimits = DEFAULT_ACTION_LIMITS): ActionThrottle {
    const store: LimiterStore = { kind: 'redis', redis, prefix };
    return new ActionThrottle(limitersOf(store, limits), pairedConsume(store));
  }

  /**
   * Counts one attempt of `action`; returns the wait in seconds when refused. The member is
   * consumed first and the address only when the member may go on, and a member refused by the
   * address gets the point back: a member's refused burst never uses up the address's allowance
   * that others behind it share. Both are counted in one round trip to Redis (paired-consume.ts).
   */
  async attempt(action: ThrottledAction, userId: string, ip: string | undefined): Promise<number> {
    const { user, ip: byIp } = this.limiters[action];
    if (byIp && ip) return this.consumeBoth(user, userId, byIp, ip);
    const mine = await tryConsume(user, userId);
    return mine.allowed ? 0 : mine.waitSeconds;
  }

  /** `attempt`, refused as a 429 (with Retry-After) when the member or their address is over the limit. */
  async enforce(action: ThrottledAction, userId: string, ip: string | undefined): Promise<void> {
    const wait = await this.attempt(action, userId, ip);
    if (wait > 0) throw new DomainError('too_soon', tooManyActionsMessage(action, wait), { retryAfterSeconds: wait });
  }
}
