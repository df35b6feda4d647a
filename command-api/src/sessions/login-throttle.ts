import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { DomainError, isDomainError, streams } from '@pass/events';
import { DEFAULT_LOGIN_LIMITS, type LoginLimits } from './limits';
import { inMemoryStore, openLimiter, tryConsume, wholeSeconds, type LimiterStore } from './limiter-store';

function inWords(seconds: number, second: string, minute: string): string {
  if (seconds < 60) return `${seconds} ${second}${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minute}${minutes === 1 ? '' : 's'}`;
}

export function tooManyAttemptsMessage(seconds: number): string {
  return `Too many login attempts. Please try again in ${inWords(seconds, 'second', 'minute')}.`;
}

/** Spanish for the admin dashboard. */
export function tooManyAdminAttemptsMessage(seconds: number): string {
  return `Demasiados intentos. Intente de nuevo en ${inWords(seconds, 'segundo', 'minuto')}.`;
}

interface LoginLimiters {
  attemptsPerIp: RateLimiterAbstract;
  failuresPerPair: RateLimiterAbstract;
  failuresPerIp: RateLimiterAbstract;
  /** Counted (penalty) and read (get), never consumed: the account is slowed down, not locked. */
  accountFailures: RateLimiterAbstract;
  /** One attempt per gap on an account over its slow-down threshold; each gap's length is set as it opens. */
  accountGap: RateLimiterAbstract;
}

function limitersOf(store: LimiterStore, limits: LoginLimits): LoginLimiters {
  const { after, windowMs } = limits.accountSlowdown;
  return {
    attemptsPerIp: openLimiter(store, 'attempts:ip', limits.attemptsPerIp),
    failuresPerPair: openLimiter(store, 'failures:pair', limits.failuresPerAccountAndIp),
    failuresPerIp: openLimiter(store, 'failures:ip', limits.failuresPerIp),
    accountFailures: openLimiter(store, 'failures:account', { max: after, windowMs }),
    accountGap: openLimiter(store, 'gap:account', { max: 1, windowMs: 1_000 }),
  };
}

/** The (account, client) key: addresses hold no '/', so no two pairs share one. */
const pairOf = (account: string, ip: string) => `${ip}/${account}`;

/**
 * Login limits after OWASP (numbers in `limits.ts`): wrong passwords are counted per (account,
 * client) and per client, and refused there; the account alone is only slowed down for clients
 * that have failed on it, so failing on purpose cannot lock the member out, and a member on a
 * clean client with the right password gets in. Points are consumed before the password is
 * checked, so guesses sent at once are counted, and given back when it was right.
 */
export class LoginThrottle {
  private constructor(
    private readonly limiters: LoginLimiters,
    private readonly slowdown: LoginLimits['accountSlowdown'],
  ) {}

  static inMemory(limits: LoginLimits = DEFAULT_LOGIN_LIMITS): LoginThrottle {
    return new LoginThrottle(limitersOf(inMemoryStore, limits), limits.accountSlowdown);
  }

  static onRedis(redis: Redis, prefix: string, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): LoginThrottle {
    return new LoginThrottle(limitersOf({ kind: 'redis', redis, prefix }, limits), limits.accountSlowdown);
  }

  /**
   * Runs `check` (a login) under the limits: refused as a 429 with `tooMany`'s message and the
   * wait; a wrong password (`unauthorized`) stays counted, a right one clears the client's
   * consecutive failures on the account.
   */
  async guard<T>(account: string, ip: string, tooMany: (seconds: number) => string, check: () => Promise<T>): Promise<T> {
    // The account by its e-mail stream's name (a SHA-256 of the normalised address): Redis keeps
    // no member's address in clear while a window lasts.
    const key = streams.email(account);
    const wait = await this.admit(key, ip);
    if (wait > 0) throw new DomainError('too_soon', tooMany(wait), { retryAfterSeconds: wait });
    let result: T;
    try {
      result = await check();
    } catch (error) {
      await this.settleFailure(key, ip, isDomainError(error, 'unauthorized'));
      throw error;
    }
    await this.settleSuccess(key, ip);
    return result;
  }

  /** Consumes this attempt's points; the wait in seconds when refused (what it took given back). */
  private async admit(key: string, ip: string): Promise<number> {
    const limiters = this.limiters;
    const attempts = await tryConsume(limiters.attemptsPerIp, ip);
    if (!attempts.allowed) return attempts.waitSeconds;
    const pair = await tryConsume(limiters.failuresPerPair, pairOf(key, ip));
    if (!pair.allowed) return pair.waitSeconds;
    const client = await tryConsume(limiters.failuresPerIp, ip);
    if (!client.allowed) {
      await limiters.failuresPerPair.reward(pairOf(key, ip));
      return client.waitSeconds;
    }
    // A client's first attempt on the account is never slowed down by other clients' failures.
    const wait = pair.used > 1 ? await this.accountGap(key) : 0;
    if (wait > 0) await Promise.all([limiters.failuresPerPair.reward(pairOf(key, ip)), limiters.failuresPerIp.reward(ip)]);
    return wait;
  }

  /** Past the threshold, one attempt per gap of 1 s doubling per further failure, up to the ceiling. */
  private async accountGap(key: string): Promise<number> {
    const failures = (await this.limiters.accountFailures.get(key))?.consumedPoints ?? 0;
    const over = failures - this.slowdown.after;
    if (over < 0) return 0;
    const gapMs = Math.min(this.slowdown.maxDelayMs, 1000 * 2 ** over);
    return (await tryConsume(this.limiters.accountGap, key, wholeSeconds(gapMs))).waitSeconds;
  }

  /** A wrong password stays counted (and counts for the account); anything else was no guess. */
  private async settleFailure(key: string, ip: string, wrongPassword: boolean): Promise<void> {
    const limiters = this.limiters;
    if (wrongPassword) await limiters.accountFailures.penalty(key);
    else await Promise.all([limiters.failuresPerPair.reward(pairOf(key, ip)), limiters.failuresPerIp.reward(ip)]);
  }

  private async settleSuccess(key: string, ip: string): Promise<void> {
    await Promise.all([this.limiters.failuresPerPair.delete(pairOf(key, ip)), this.limiters.failuresPerIp.reward(ip)]);
  }
}

