import { randomUUID } from 'node:crypto';
import { streams, type CommandContext } from '@pass/events';
import type { CommandHandler } from '../kernel/command-handler';
import { userDecider } from '../members/decider';

/** The context of a command a test sends as the system, at `now`. */
export const testContext = (now: Date): CommandContext => ({ correlationId: randomUUID(), causationId: randomUUID(), actor: { type: 'system', id: 'test' }, now });

/** A new member holding `points` (the 10 of joining, the rest bought), straight on the handler. */
export async function memberWithPoints(handler: CommandHandler, points: number, clock: () => Date): Promise<string> {
  const userId = randomUUID();
  await handler.handle(userDecider, streams.user(userId), { type: 'RegisterUser', data: { userId, email: `${userId}@example.com`, passwordHash: 'x' }, now: clock() }, testContext(clock()));
  if (points > 10) {
    const amountUsd = (points - 10) / 100;
    await handler.handle(
      userDecider,
      streams.user(userId),
      { type: 'CreditPurchase', data: { userId, provider: 'simulated', orderId: randomUUID(), captureId: randomUUID(), amountUsd, points: points - 10 }, now: clock() },
      testContext(clock()),
    );
  }
  return userId;
}
