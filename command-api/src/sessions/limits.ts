/**
 * Every throttle's numbers, in one place (docs/architecture.md lists them). The throttles
 * themselves are `login-throttle.ts` and `action-throttle.ts`, both on rate-limiter-flexible.
 */

/** `max` attempts per key in a fixed window of `windowMs` that starts with the key's first attempt. */
export interface RateLimit {
  max: number;
  windowMs: number;
}

/**
 * Login (the join form's login and the admin login), after OWASP's authentication cheat sheet:
 * failures are counted per (account, client), per client, and per account from clients without
 * a device cookie for it. The account's ceiling never shuts out its owner: a browser that signed
 * in to it before has its own budget, and a reset by mail clears the count.
 */
export interface LoginLimits {
  /** Every join (registration or login) and admin login attempt per client address. */
  attemptsPerIp: RateLimit;
  /** Consecutive wrong passwords per (account, client address); a right one clears the count. */
  failuresPerAccountAndIp: RateLimit;
  /** Wrong passwords per client address, over every account. */
  failuresPerIp: RateLimit;
  /**
   * Per account (the normalised e-mail, registered or not), from clients without a device cookie
   * for it: once `after` wrong passwords in `windowMs` are taken, such clients are refused for
   * `firstDelayMs`; past it one attempt per delay is checked, the delay doubling with each
   * further wrong password up to `maxDelayMs`. A password reset by mail clears it.
   */
  accountCeiling: { after: number; windowMs: number; firstDelayMs: number; maxDelayMs: number };
  /**
   * Wrong passwords per device cookie (a browser that signed in to the account before), which
   * the account's ceiling does not stop; past it the device counts as any other client.
   */
  failuresPerDevice: RateLimit;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  // The old per-address allowance: a school or an office joining at once fits.
  attemptsPerIp: { max: 60, windowMs: 15 * 60_000 },
  failuresPerAccountAndIp: { max: 10, windowMs: 60 * 60_000 },
  failuresPerIp: { max: 100, windowMs: 24 * 60 * 60_000 },
  // Past 20 in a day, each guess on the account waits longer, up to an hour.
  accountCeiling: { after: 20, windowMs: 24 * 60 * 60_000, firstDelayMs: 60_000, maxDelayMs: 60 * 60_000 },
  failuresPerDevice: { max: 10, windowMs: 60 * 60_000 },
};

/**
 * Burst limits on the member actions a script could hammer (chat and the free point, per member
 * and per client address; payment order creation, per member; password reset mails, per e-mail
 * address and per client address), over HTTP and over the sockets
 * alike. A human never reaches them: the free point is once per 30 s by its own rule, and chat
 * allows a quick burst of messages.
 */
export interface ActionLimits {
  chatPerUser: RateLimit;
  chatPerIp: RateLimit;
  freePointPerUser: RateLimit;
  freePointPerIp: RateLimit;
  /**
   * Payment orders created per member (no address limit: creating one needs a session). Each
   * creation asks the provider for an order, so a script must not make them in a loop.
   */
  ordersPerUser: RateLimit;
  /**
   * Password reset links asked for per e-mail address (normalised) and per client address,
   * registered or not (the answer is the same either way). Absent: the defaults below.
   */
  passwordResetPerEmail?: RateLimit;
  passwordResetPerIp?: RateLimit;
}

export const DEFAULT_ACTION_LIMITS: ActionLimits = {
  chatPerUser: { max: 5, windowMs: 10_000 },
  chatPerIp: { max: 30, windowMs: 10_000 },
  // The decider allows one point per 30 s; this only stops a client asking in a tight loop.
  freePointPerUser: { max: 10, windowMs: 60_000 },
  // Members behind one address (a school, an office) each get theirs.
  freePointPerIp: { max: 60, windowMs: 60_000 },
  // Ten checkouts in ten minutes: more than a member buying points ever starts.
  ordersPerUser: { max: 10, windowMs: 10 * 60_000 },
  // A member who lost a mail asks again once or twice; more is someone filling an inbox.
  passwordResetPerEmail: { max: 3, windowMs: 60 * 60_000 },
  // A school or an office behind one address still gets its few.
  passwordResetPerIp: { max: 20, windowMs: 60 * 60_000 },
};
