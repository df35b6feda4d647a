/**
 * Fixed-window counters for login attempts, per e-mail and per client address. In memory: in
 * distributed mode each process limits on its own, which still bounds guessing to
 * (processes × limit) per window.
 */
export interface RateLimit {
  max: number;
  windowMs: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly limit: RateLimit) {}

  /** Seconds until `key` may try again, or 0 when it may try now. Does not count. */
  retryAfterSeconds(key: string, now = Date.now()): number {
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now || w.count < this.limit.max) return 0;
    return Math.max(1, Math.ceil((w.resetAt - now) / 1000));
  }

  hit(key: string, now = Date.now()): void {
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      this.windows.set(key, { count: 1, resetAt: now + this.limit.windowMs });
      this.sweep(now);
    } else {
      w.count++;
    }
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  /** Drops finished windows now and then, so the map stays small. */
  private sweep(now: number): void {
    if (this.windows.size < 10_000) return;
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}

export interface LoginLimits {
  /** Failed passwords per e-mail. */
  perEmail: RateLimit;
  /** Every join/login attempt per client address. */
  perIp: RateLimit;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perEmail: { max: 5, windowMs: 15 * 60_000 },
  perIp: { max: 60, windowMs: 15 * 60_000 },
};

export function tooManyAttemptsMessage(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return `Too many login attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** Spanish for the admin dashboard. */
export function tooManyAdminAttemptsMessage(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return `Demasiados intentos. Intente de nuevo en ${minutes} minuto${minutes === 1 ? '' : 's'}.`;
}

export class LoginThrottle {
  private readonly emails: RateLimiter;
  private readonly ips: RateLimiter;

  constructor(limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.emails = new RateLimiter(limits.perEmail);
    this.ips = new RateLimiter(limits.perIp);
  }

  /** Counts an attempt from `ip` for `email`; returns the wait in seconds when refused. */
  attempt(email: string, ip: string): number {
    const key = email.trim().toLowerCase();
    const wait = Math.max(this.emails.retryAfterSeconds(key), this.ips.retryAfterSeconds(ip));
    if (wait > 0) return wait;
    this.ips.hit(ip);
    return 0;
  }

  failed(email: string): void {
    this.emails.hit(email.trim().toLowerCase());
  }

  succeeded(email: string): void {
    this.emails.reset(email.trim().toLowerCase());
  }
}
