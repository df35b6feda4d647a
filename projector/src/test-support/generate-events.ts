import type { DomainEvent } from '@pass/events';

/**
 * A deterministic stream of realistic site activity for tests and benches: members register,
 * earn and buy points, claim passes, post cards and chat; now and then the admin clears the
 * chat or deletes a post. Same seed, same events.
 */

export const FIRST = ['Ana', 'Bob', 'Chen', 'Dana', 'Eli', 'Fatima', 'Gus', 'Hana', 'Ivan', 'José', 'Kim', 'Lara', 'Mia', 'Noah', 'Omar', 'Pia', 'Raúl', 'Sara', 'Tom', 'Uma', 'Vera', 'Wen', 'Yuki', 'Zoe'];
export const LAST = ['Smith', 'García', 'Li', 'Okafor', 'Müller', 'Rossi', 'Silva', 'Kowalski', 'Nguyen', 'Khan', 'Haddad', 'Brown', 'Ivanova', 'Tanaka', 'Dubois', 'Jensen'];
export const COUNTRIES = ['United States', 'Mexico', 'Peru', 'Chile', 'Spain', 'India', 'Nigeria', 'Brazil', 'Germany', 'Japan', 'France', 'Canada', 'Argentina', 'Philippines', 'Egypt', 'Kenya', 'Poland', 'Vietnam', 'Italy', 'Colombia'];

/** Small fast PRNG (mulberry32), so runs are reproducible. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GenerateOptions {
  users: number;
  seed?: number;
  /** Every user claims at least one pass and posts a card (bench seeding of N members). */
  allMembers?: boolean;
  /** Extra activity per user (free points, chat, updates); 0 for the leanest seed. */
  activity?: number;
  start?: Date;
}

export function* generateEvents(options: GenerateOptions): Generator<DomainEvent> {
  const random = rng(options.seed ?? 1);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const activity = options.activity ?? 1;
  let clock = (options.start ?? new Date(Date.UTC(2026, 0, 1))).getTime();
  const now = () => new Date((clock += 1_000 + Math.floor(random() * 60_000))).toISOString();

  yield { type: 'PassSupplySet', data: { available: Math.max(1_000_000, options.users * 10), setBy: 'admin-1', setAt: now() } };
  yield { type: 'MainDataEdited', data: { cpm: 1.75, donations: 120, startDate: '01/01/2026', editedBy: 'admin-1', editedAt: now() } };

  for (let i = 0; i < options.users; i++) {
    const userId = `user-${options.seed ?? 1}-${i}`;
    const email = `member${i}@example.com`;
    let points = 10;
    yield { type: 'UserRegistered', data: { userId, email, passwordHash: 'h', points, priority: '', registeredAt: now() } };
    const freePoints = Math.floor(random() * 4 * activity);
    for (let f = 0; f < freePoints; f++) {
      points += 1;
      yield { type: 'FreePointAwarded', data: { userId, points: 1, awardedAt: now() } };
    }
    if (options.allMembers || random() < 0.6) {
      const bought = pick([100, 500, 1000, 2000]);
      points += bought;
      yield {
        type: 'PointsPurchased',
        data: { userId, provider: 'simulated', orderId: `o-${userId}`, captureId: `c-${userId}`, amountUsd: bought / 100, points: bought, purchasedAt: now() },
      };
      const passes = 1 + Math.floor(random() * Math.min(40, Math.floor(points / 20) - 1));
      const reservationId = `r-${userId}`;
      yield { type: 'PassesReserved', data: { reservationId, userId, passes, reservedAt: now() } };
      yield { type: 'PassesClaimed', data: { userId, reservationId, passes, pointsSpent: passes * 20, claimedAt: now() } };
      points -= passes * 20;
      const card = {
        userId,
        fullname: `${pick(FIRST)} ${pick(LAST)}`,
        country: pick(COUNTRIES),
        email,
        link: `https://example.com/${i}`,
        image: { path: `${i}.webp`, public_id: `${i}`, url: `/uploads/${i}.webp` },
        message: 'Proud to hold my pass',
      };
      yield { type: 'CertificatePosted', data: { ...card, postedAt: now() } };
      if (random() < 0.05 * activity) yield { type: 'CertificateUpdated', data: { ...card, message: 'Still proud', updatedAt: now() } };
    }
    if (points > 0 && random() < 0.2 * activity) {
      yield {
        type: 'ChatMessageSent',
        data: { userId, messageId: `m-${userId}`, nickname: 'Member', message: `hello from ${i}`, priority: '', pointsSpent: 1, sentAt: now() },
      };
    }
    if (activity > 0 && i % 997 === 996) yield { type: 'ChatCleared', data: { clearedBy: 'admin-1', clearedAt: now() } };
    if (activity > 0 && i % 499 === 498) yield { type: 'MemberPostDeleted', data: { userId, deletedBy: 'admin-1', deletedAt: now() } };
    if (activity > 0 && i % 1499 === 1498) yield { type: 'AdViewsReset', data: { views: 0, resetBy: 'admin-1', resetAt: now() } };
  }
}
