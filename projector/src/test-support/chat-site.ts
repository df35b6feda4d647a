import type { DomainEvent } from '@pass/events';

/**
 * Events of a small, chatty site on a clock of its own: registrations (900 points each), chat
 * lines numbered `line 1`, `line 2`… with the member's id as nickname, cards, pass claims,
 * erasures and clears. `sent` is the number of the last line made.
 */
export function chattySite() {
  let clock = Date.UTC(2026, 0, 1);
  let sent = 0;
  const at = () => new Date((clock += 1_000)).toISOString();
  return {
    get sent() {
      return sent;
    },
    register: (userId: string): DomainEvent => ({ type: 'UserRegistered', data: { userId, email: `${userId}@example.com`, passwordHash: 'h', points: 900, priority: '', registeredAt: at() } }),
    say: (userId: string, n: number): DomainEvent[] =>
      Array.from({ length: n }, () => ({
        type: 'ChatMessageSent',
        data: { userId, messageId: `m-${++sent}`, nickname: userId, message: `line ${sent}`, priority: '', pointsSpent: 1, sentAt: at() },
      })),
    card: (userId: string, country: string): DomainEvent => ({
      type: 'CertificateUpdated',
      data: { userId, fullname: `Member ${userId}`, country, email: `${userId}@example.com`, link: '', image: { path: `${userId}.webp`, public_id: userId, url: `/uploads/${userId}.webp` }, message: 'hi', updatedAt: at() },
    }),
    claim: (userId: string): DomainEvent => ({ type: 'PassesClaimed', data: { userId, reservationId: `r-${userId}`, passes: 2, pointsSpent: 40, claimedAt: at() } }),
    erase: (userId: string): DomainEvent => ({ type: 'MemberErased', data: { userId, requestedBy: 'member', erasedAt: at() } }),
    clear: (): DomainEvent => ({ type: 'ChatCleared', data: { clearedBy: 'admin-1', clearedAt: at() } }),
  };
}
