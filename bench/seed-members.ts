/**
 * Members for the HTTP benches, without their cost: each one's UserRegistered (10 points, enough
 * for 5 chat messages) appended straight to `store` (give it the personal-data decorator for the
 * e-mail to be sealed as a join stores it) and a session issued into the Redis
 * session store command-api reads, so argon2id hashing and the join limits per address are not
 * part of what is measured (registration's own cost is bench/commands.ts's "register" row).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { streams, USER_SESSION_COOKIE, type DomainEvent, type EventStore } from '@pass/events';
import { testRedisUrl } from '@pass/events/test-support';
import { RedisSessionStore } from '@pass/command-api';
import { Sessions } from '../command-api/src/sessions/sessions';
import { toNewEvent } from '@pass/projector/test-support';

export interface SeededMember {
  userId: string;
  /** The Cookie header a signed-in browser sends. */
  cookie: string;
}

export async function seedSignedInMembers(options: { store: EventStore; sessionsPrefix: string; secret: string; count: number; emailTag: string }): Promise<SeededMember[]> {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 2 });
  const sessions = new Sessions({ store: new RedisSessionStore(redis, options.sessionsPrefix), secret: options.secret, cookieSecure: false, clock: () => new Date() });
  const members = new Array<SeededMember>(options.count);
  let next = 0;
  const registeredAt = new Date().toISOString();
  try {
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < options.count; i = next++) {
          const userId = randomUUID();
          const event = { type: 'UserRegistered', data: { userId, email: `m${i}-${options.emailTag}@bench.io`, passwordHash: 'seeded', points: 10, priority: '', registeredAt } } as DomainEvent;
          await options.store.append(streams.user(userId), [toNewEvent(event)], 'no_stream');
          const { cookieValue } = await sessions.issue('user', userId);
          members[i] = { userId, cookie: `${USER_SESSION_COOKIE}=${cookieValue}` };
        }
      }),
    );
  } finally {
    redis.disconnect();
  }
  return members;
}
