import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A reset link's token: `<member id>.<secret>`, the secret 43 base64url characters (32 bytes). */
const TOKEN = /^([\w-]{1,64})\.([\w-]{43})$/;
/** The secret: when the link was made (ms, 6 bytes) and the signature's first 26 bytes. */
const TIME_BYTES = 6;
const SIGNATURE_BYTES = 26;

/** What a token says once its signature holds. */
export interface OpenedResetLink {
  userId: string;
  issuedAt: Date;
  /** SHA-256 of the secret: what the event records of the link used. */
  tokenHash: string;
}

/**
 * Signed reset links: the token carries the member id and the time it was made, signed with a
 * key of the installation, so asking for one records nothing and a request costs the same
 * whether or not the address is registered (docs/architecture.md, "Personal data"). Whether the
 * link still holds (an hour, no password set since) is the member's state to say
 * (`resetLinkHolds`). The key derives from the session secret, so every instance checks every
 * link, and a rotated secret ends the links with the sessions.
 */
export class ResetLinks {
  private readonly key: Buffer;

  constructor(sessionSecret: string) {
    // A key of its own: a link's signature never stands in for a cookie's or an ad-view ticket's.
    this.key = createHmac('sha256', sessionSecret).update('password-reset-link/v1').digest();
  }

  /** The token of a link for `userId`, made at `now`. */
  make(userId: string, now: Date): string {
    const time = Buffer.alloc(TIME_BYTES);
    time.writeUIntBE(now.getTime(), 0, TIME_BYTES);
    return `${userId}.${Buffer.concat([time, this.sign(userId, now.getTime())]).toString('base64url')}`;
  }

  /** What `token` says, or undefined when it is malformed or its signature does not hold. */
  open(token: string): OpenedResetLink | undefined {
    const match = TOKEN.exec(token);
    if (!match) return undefined;
    const [, userId, secret] = match as unknown as [string, string, string];
    const bytes = Buffer.from(secret, 'base64url');
    // Re-encoded to compare: base64url ignores a last character's spare bits, one secret has one spelling.
    if (bytes.length !== TIME_BYTES + SIGNATURE_BYTES || bytes.toString('base64url') !== secret) return undefined;
    const ms = bytes.readUIntBE(0, TIME_BYTES);
    if (!timingSafeEqual(bytes.subarray(TIME_BYTES), this.sign(userId, ms))) return undefined;
    return { userId, issuedAt: new Date(ms), tokenHash: createHash('sha256').update(secret).digest('base64url') };
  }

  private sign(userId: string, ms: number): Buffer {
    return createHmac('sha256', this.key).update(`${userId}\n${ms}`).digest().subarray(0, SIGNATURE_BYTES);
  }
}
