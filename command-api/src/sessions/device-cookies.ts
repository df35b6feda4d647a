import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Response } from 'express';
import { normalizeEmail, type Principal } from '@pass/events';
import type { Clock } from '../kernel/clock';
import { parseCookies } from './sessions';

/** One per kind of account: a browser may hold a member's and the admin's. */
export const DEVICE_COOKIES = { user: 'pass_device', admin: 'pass_admin_device' } as const;
export const DEVICE_COOKIE_TTL_MS = 90 * 24 * 60 * 60_000;

export interface DeviceCookiesOptions {
  /** The session secret; the cookies are signed with a key derived from it. */
  secret: string;
  cookieSecure: boolean;
  clock: Clock;
}

/**
 * Device cookies, after OWASP's "slow down online guessing attacks with device cookies": a
 * browser that signs in to an account (or sets its password by the reset mail) gets a cookie
 * bound to that account, which lets it past the account's ceiling on its own failure budget
 * (`login-throttle.ts`). The value is `<nonce>.<issued, s>.<HMAC>`, the HMAC over the kind, the
 * normalised e-mail, the nonce and the time: it names no account, checks out only for the one
 * it was issued for, and nothing is stored on the server. The nonce is the device's id.
 */
export class DeviceCookies {
  private readonly key: Buffer;

  constructor(private readonly options: DeviceCookiesOptions) {
    this.key = createHmac('sha256', options.secret).update('device-cookie').digest();
  }

  /** The device's id when the Cookie header holds a live device cookie issued for this account. */
  trusted(cookieHeader: string | undefined, kind: Principal['kind'], email: string): string | undefined {
    const value = parseCookies(cookieHeader).get(DEVICE_COOKIES[kind]);
    const [nonce, issued, mac, ...rest] = value?.split('.') ?? [];
    if (!nonce || !issued || !mac || rest.length > 0 || !/^\d{1,12}$/.test(issued)) return undefined;
    if (Number(issued) * 1000 + DEVICE_COOKIE_TTL_MS <= this.options.clock().getTime()) return undefined;
    const given = Buffer.from(mac);
    const expected = Buffer.from(this.sign(kind, email, nonce, issued));
    return given.length === expected.length && timingSafeEqual(given, expected) ? nonce : undefined;
  }

  /** A new device cookie for this account on the response (a new nonce: a fresh failure budget). */
  issue(res: Response, kind: Principal['kind'], email: string): void {
    const nonce = randomBytes(16).toString('base64url');
    const issued = String(Math.floor(this.options.clock().getTime() / 1000));
    res.cookie(DEVICE_COOKIES[kind], `${nonce}.${issued}.${this.sign(kind, email, nonce, issued)}`, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.options.cookieSecure,
      // Only the routes that check a password read it.
      path: '/api',
      maxAge: DEVICE_COOKIE_TTL_MS,
    });
  }

  private sign(kind: Principal['kind'], email: string, nonce: string, issued: string): string {
    return createHmac('sha256', this.key).update(`${kind}\n${normalizeEmail(email)}\n${nonce}\n${issued}`).digest('base64url');
  }
}
