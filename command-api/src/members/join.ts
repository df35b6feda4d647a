import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, isDomainError, normalizeEmail, streams, type CommandContext, type EmailStreamNamer, type JoinForm } from '@pass/events';
import type { Clock } from '../kernel/clock';
import type { CommandHandler } from '../kernel/command-handler';
import { hashPassword, verifyPassword } from '../sessions/passwords';
import { userDecider } from './decider';
import type { UserState } from './state';
import { emailDecider, type EmailState } from './email-decider';

export const WRONG_PASSWORD = 'This email is already registered with a different password';

/**
 * A reservation this old whose member stream is still missing was left by a crash between the
 * two appends of a registration; the next join with that e-mail completes it. Younger ones are
 * a registration in flight, which is waited for (never taken over).
 */
export const ORPHAN_RESERVATION_MS = 60_000;

export interface JoinDeps {
  handler: CommandHandler;
  clock: Clock;
  emailStream: EmailStreamNamer;
}

export interface Joined {
  user: UserState;
  /** True when this call created the account, false when it logged in. */
  registered: boolean;
}

/**
 * The join form does both (docs/product.md §2 /content/join): an unknown e-mail registers (its e-mail
 * stream is reserved with expected revision `no_stream`, so there is one account per e-mail
 * however many requests race), a known e-mail with the right password logs in, anything else is
 * one clear error.
 */
export async function join(deps: JoinDeps, form: JoinForm, ctx: CommandContext): Promise<Joined> {
  const email = normalizeEmail(form.email);
  const emailStream = deps.emailStream(email);
  const { state: existing } = await deps.handler.load(emailDecider, emailStream);
  if (existing.userId) {
    const joined = await logIn(deps, existing, form.password, ctx);
    if (joined) return joined;
    // Held by an erased member (the erasure stopped before releasing it): free, for a new member.
    await deps.handler.handle(emailDecider, emailStream, { type: 'ReleaseEmail', data: { userId: existing.userId }, now: deps.clock() }, ctx);
  }

  const userId = randomUUID();
  const passwordHash = await hashPassword(form.password);
  try {
    await deps.handler.handle(emailDecider, emailStream, { type: 'ReserveEmail', data: { email, userId }, now: deps.clock() }, ctx);
  } catch (error) {
    if (!isDomainError(error, 'already_exists')) throw error;
    // Another request registered this e-mail first: this one is a login for it.
    const { state: winner } = await deps.handler.load(emailDecider, emailStream);
    const joined = await logIn(deps, winner, form.password, ctx);
    if (!joined) throw new DomainError('conflict', 'Please try again in a moment');
    return joined;
  }
  const { state: user } = await deps.handler.handle(
    userDecider,
    streams.user(userId),
    { type: 'RegisterUser', data: { userId, email, passwordHash }, now: deps.clock() },
    ctx,
  );
  return { user, registered: true };
}

/** Logs in the reservation's member; null when that member was erased. */
async function logIn(deps: JoinDeps, reservation: EmailState, password: string, ctx: CommandContext): Promise<Joined | null> {
  const userId = reservation.userId!;
  let user = await registeredMember(deps, userId, reservation);
  if (user?.erased) return null;
  if (!user) {
    const completed = await completeOrphan(deps, reservation, password, ctx);
    if (completed) return { user: completed, registered: true };
    user = (await deps.handler.load(userDecider, streams.user(userId))).state;
    if (!user.exists) throw new DomainError('conflict', 'Your account is being created, please try again in a moment');
  }
  if (!(await verifyPassword(user.passwordHash, password))) throw new DomainError('unauthorized', WRONG_PASSWORD);
  return { user, registered: false };
}

/** The member; waits briefly for a registration in flight (reservation recorded, member not yet). */
async function registeredMember(deps: JoinDeps, userId: string, reservation: EmailState): Promise<UserState | null> {
  const orphaned = () => deps.clock().getTime() - Date.parse(reservation.reservedAt ?? '') >= ORPHAN_RESERVATION_MS;
  for (let attempt = 0; ; attempt++) {
    const { state } = await deps.handler.load(userDecider, streams.user(userId));
    if (state.exists || state.erased) return state;
    if (orphaned() || attempt >= 20) return null;
    await sleep(10 * (attempt + 1));
  }
}

/** Completes a registration whose process died between the e-mail and the member append. */
async function completeOrphan(deps: JoinDeps, reservation: EmailState, password: string, ctx: CommandContext): Promise<UserState | null> {
  const { handler, clock } = deps;
  if (clock().getTime() - Date.parse(reservation.reservedAt ?? '') < ORPHAN_RESERVATION_MS) return null;
  const userId = reservation.userId!;
  try {
    const { state } = await handler.handle(
      userDecider,
      streams.user(userId),
      { type: 'RegisterUser', data: { userId, email: reservation.email, passwordHash: await hashPassword(password) }, now: clock() },
      ctx,
    );
    return state;
  } catch (error) {
    if (isDomainError(error, 'already_exists')) return null;
    throw error;
  }
}
