import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { randomBytes } from 'node:crypto';
import { DomainError, emailStreams, isDomainError, type EmailStreamNamer } from '@pass/events';
import { DEFAULT_LOGIN_LIMITS, type LoginLimits } from './limits';
import { inMemoryStore, openLimiter, tryConsume, wholeSeconds, type LimiterStore } from './limiter-store';

/** What refused an attempt: this client's own limits, or the account's ceiling. */
export type RefusedBy = 'client' | 'account';

/** The 429's text for a wait in seconds. */
export type TooManyMessage = (seconds: number, refusedBy: RefusedBy) => string;

function inWords(seconds: number, second: string, minute: string): string {
  if (seconds < 60) return `${seconds} ${second}${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minute}${minutes === 1 ? '' : 's'}`;
}

/** The same words for every account, registered or not: a refusal tells nothing about it. */
export function tooManyAttemptsMessage(seconds: number, refusedBy: RefusedBy = 'client'): string {
  const wait = inWords(seconds, 'second', 'minute');
  if (refusedBy === 'account') return `Too many failed sign-ins on this account. Please try again in ${wait}, or reset your password with "Forgot your password?".`;
  return `Too many login attempts. Please try again in ${wait}.`;
}

/** Spanish for the admin dashboard (which has no reset by mail). */
export function tooManyAdminAttemptsMessage(seconds: number, refusedBy: RefusedBy = 'client'): string {
  const wait = inWords(seconds, 'segundo', 'minuto');
  if (refusedBy === 'account') return `Demasiados intentos fallidos en esta cuenta. Intente de nuevo en ${wait}.`;
  return `Demasiados intentos. Intente de nuevo en ${wait}.`;
}

interface LoginLimiters {
  attemptsPerIp: RateLimiterAbstract;
  failuresPerPair: RateLimiterAbstract;
  failuresPerIp: RateLimiterAbstract;
  /** Wrong passwords on the account from clients without its device cookie, taken before the check. */
  accountFailures: RateLimiterAbstract;
  /** Past the ceiling, one checked attempt per delay; each delay's length is set as it opens. */
  accountDelay: RateLimiterAbstract;
  /** Wrong passwords per device cookie, by the cookie's nonce. */
  deviceFailures: RateLimiterAbstract;
}

function limitersOf(store: LimiterStore, limits: LoginLimits): LoginLimiters {
  const { after, windowMs } = limits.accountCeiling;
  return {
    attemptsPerIp: openLimiter(store, 'attempts:ip', limits.attemptsPerIp),
    failuresPerPair: openLimiter(store, 'failures:pair', limits.failuresPerAccountAndIp),
    failuresPerIp: openLimiter(store, 'failures:ip', limits.failuresPerIp),
    accountFailures: openLimiter(store, 'failures:account', { max: after, windowMs }),
    accountDelay: openLimiter(store, 'gap:account', { max: 1, windowMs: limits.accountCeiling.firstDelayMs }),
    deviceFailures: openLimiter(store, 'failures:device', limits.failuresPerDevice),
  };
}

/** The (account, client) key: addresses hold no '/', so no two pairs share one. */
const pairOf = (account: string, ip: string) => `${ip}/${account}`;

/**
 * An attempt's admission: refused (a wait in seconds, and by what), or let through with its
 * failure point taken on the device (`device`) or else on the account.
 */
interface Admission {
  wait: number;
  refusedBy: RefusedBy;
  device?: string;
}

const PROCESS_ACCOUNT_KEY = emailStreams(randomBytes(32));

/**
 * Login limits after OWASP (numbers in `limits.ts`): wrong passwords are counted per (account,
 * client) and per client, and per account from clients without a device cookie for it, which
 * past its ceiling wait a delay that grows with each further failure. A device cookie (a
 * browser that signed in to the account before) has its own budget instead, so failing on
 * purpose cannot lock the owner out. Points are consumed before the password is checked, so
 * guesses sent at once are counted, and given back when it was right.
 */
export class LoginThrottle {
  private constructor(
    private readonly limiters: LoginLimiters,
    private readonly ceiling: LoginLimits['accountCeiling'],
    // Until keyedBy: a key of this process only (enough for limits held in its memory).
    private readonly accountKey: EmailStreamNamer = PROCESS_ACCOUNT_KEY,
  ) {}

  /**
   * The same limits, naming each account by the installation's keyed e-mail digest (the e-mail
   * stream's name): every instance sharing Redis counts an account under one key, and Redis holds
   * nothing a dictionary of addresses reverses.
   */
  keyedBy(accountKey: EmailStreamNamer): LoginThrottle {
    return new LoginThrottle(this.limiters, this.ceiling, accountKey);
  }

  static inMemory(limits: LoginLimits = DEFAULT_LOGIN_LIMITS): LoginThrottle {
    return new LoginThrottle(limitersOf(inMemoryStore, limits), limits.accountCeiling);
  }

  static onRedis(redis: Redis, prefix: string, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): LoginThrottle {
    return new LoginThrottle(limitersOf({ kind: 'redis', redis, prefix }, limits), limits.accountCeiling);
  }

  /**
   * Runs `check` (a login) under the limits: refused as a 429 with `tooMany`'s message and the
   * wait; a wrong password (`unauthorized`) stays counted, a right one clears the client's
   * consecutive failures on the account. `device`: the id of a device cookie the request
   * carries for this very account (`device-cookies.ts`), if any.
   */
  async guard<T>(account: string, ip: string, tooMany: TooManyMessage, check: () => Promise<T>, device?: string): Promise<T> {
    // The account by its e-mail stream's name (a keyed digest of the normalised address): Redis
    // keeps no member's address in clear while a window lasts.
    const key = this.accountKey(account);
    const { wait, refusedBy, device: trusted } = await this.admit(key, ip, device);
    if (wait > 0) throw new DomainError('too_soon', tooMany(wait, refusedBy), { retryAfterSeconds: wait });
    let result: T;
    try {
      result = await check();
    } catch (error) {
      if (!isDomainError(error, 'unauthorized')) await this.giveBack(key, ip, trusted);
      throw error;
    }
    await this.settleSuccess(key, ip, trusted);
    return result;
  }

  /** A password reset by mail: the account's count and delay start over (the per-client counts stay). */
  async clearAccount(account: string): Promise<void> {
    const key = this.accountKey(account);
    await Promise.all([this.limiters.accountFailures.delete(key), this.limiters.accountDelay.delete(key)]);
  }

  /** Consumes this attempt's points; refused: the wait in seconds (what it took given back). */
  private async admit(key: string, ip: string, device: string | undefined): Promise<Admission> {
    const limiters = this.limiters;
    const attempts = await tryConsume(limiters.attemptsPerIp, ip);
    if (!attempts.allowed) return { wait: attempts.waitSeconds, refusedBy: 'client' };
    const pair = await tryConsume(limiters.failuresPerPair, pairOf(key, ip));
    if (!pair.allowed) return { wait: pair.waitSeconds, refusedBy: 'client' };
    const client = await tryConsume(limiters.failuresPerIp, ip);
    if (!client.allowed) {
      await limiters.failuresPerPair.reward(pairOf(key, ip));
      return { wait: client.waitSeconds, refusedBy: 'client' };
    }
    // A device past its own budget is any other client (OWASP's lockout list of device cookies).
    if (device !== undefined && (await tryConsume(limiters.deviceFailures, device)).allowed) return { wait: 0, refusedBy: 'account', device };
    const wait = await this.accountAdmits(key);
    if (wait > 0) await Promise.all([limiters.failuresPerPair.reward(pairOf(key, ip)), limiters.failuresPerIp.reward(ip)]);
    return { wait, refusedBy: 'account' };
  }

  /**
   * The account's ceiling for a client without its device cookie: the attempt that takes the
   * last point opens the first delay; past it, one attempt per delay is checked, the delay
   * doubling with each wrong password beyond the ceiling. A refused attempt counts for nothing.
   */
  private async accountAdmits(key: string): Promise<number> {
    const { after, firstDelayMs, maxDelayMs } = this.ceiling;
    const { accountFailures, accountDelay } = this.limiters;
    const taken = await tryConsume(accountFailures, key);
    if (taken.allowed) {
      if (taken.used >= after) await accountDelay.penalty(key, 1, { customDuration: wholeSeconds(firstDelayMs) });
      return 0;
    }
    await accountFailures.reward(key);
    const beyond = taken.used - 1 - after;
    const delayMs = Math.min(maxDelayMs, firstDelayMs * 2 ** (beyond + 1));
    const slot = await tryConsume(accountDelay, key, wholeSeconds(delayMs));
    if (!slot.allowed) return slot.waitSeconds;
    await accountFailures.penalty(key);
    return 0;
  }

  /** Not a wrong password (a conflict, the store down): no guess, every point given back. */
  private async giveBack(key: string, ip: string, device: string | undefined): Promise<void> {
    const limiters = this.limiters;
    await Promise.all([
      limiters.failuresPerPair.reward(pairOf(key, ip)),
      limiters.failuresPerIp.reward(ip),
      device === undefined ? limiters.accountFailures.reward(key) : limiters.deviceFailures.reward(device),
    ]);
  }

  private async settleSuccess(key: string, ip: string, device: string | undefined): Promise<void> {
    const limiters = this.limiters;
    await Promise.all([
      limiters.failuresPerPair.delete(pairOf(key, ip)),
      limiters.failuresPerIp.reward(ip),
      device === undefined ? limiters.accountFailures.reward(key) : limiters.deviceFailures.delete(device),
    ]);
  }
}
