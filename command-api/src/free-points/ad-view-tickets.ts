import { createHmac, timingSafeEqual } from 'node:crypto';
import { AD_VIEW_MIN_MS, AD_VIEW_TTL_MS, type AdViewTicketResponse } from '@pass/events';

const FORMAT = /^v1\.(\d{1,15})\.([\w-]{43})$/;

/**
 * Proof that a member opened the ad countdown of /content/check at a given time: issued when
 * the countdown starts, shown back with the award. Stateless: `v1.<issued-at ms>.<HMAC>` over
 * the member id and the issued-at, keyed from the session secret (every command-api instance
 * shares it), so any instance can check a ticket another one issued. The time rules (old enough,
 * not too old, newer than the last award) are award.ts's; this only proves who and when.
 */
export class AdViewTickets {
  private readonly key: Buffer;

  constructor(sessionSecret: string) {
    // A key of its own: a ticket's MAC can never stand in for a session cookie's, or the reverse.
    this.key = createHmac('sha256', sessionSecret).update('ad-view-ticket/v1').digest();
  }

  /** A ticket for `memberId` whose ad view started at `at` (business time). */
  issue(memberId: string, at: Date): AdViewTicketResponse {
    const ms = at.getTime();
    return {
      ticket: `v1.${ms}.${this.mac(memberId, ms)}`,
      issuedAt: at.toISOString(),
      readyAt: new Date(ms + AD_VIEW_MIN_MS).toISOString(),
      expiresAt: new Date(ms + AD_VIEW_TTL_MS).toISOString(),
    };
  }

  /** When the ad view started, if this ticket was issued to `memberId`; null for anything else. */
  startedAt(memberId: string, ticket: unknown): Date | null {
    if (typeof ticket !== 'string') return null;
    const match = FORMAT.exec(ticket);
    if (!match) return null;
    const ms = Number(match[1]);
    const expected = Buffer.from(this.mac(memberId, ms));
    const given = Buffer.from(match[2]!);
    return given.length === expected.length && timingSafeEqual(given, expected) ? new Date(ms) : null;
  }

  private mac(memberId: string, ms: number): string {
    return createHmac('sha256', this.key).update(`${memberId}\n${ms}`).digest('base64url');
  }
}
