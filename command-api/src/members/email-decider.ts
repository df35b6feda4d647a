import { DomainError, assertNever, isEventOf, type CommandOf, type EmailCommand, type EmailEvent } from '@pass/events';
import type { Decider } from '../kernel/decider';

/** One account per e-mail: the stream `email-{hash}` holds at most one reservation. */
export interface EmailState {
  userId: string | null;
  email: string;
  reservedAt: string | null;
}

export function decideReserveEmail(command: CommandOf<'ReserveEmail'>, state: EmailState): EmailEvent[] {
  if (state.userId) throw new DomainError('already_exists', 'This email is already registered');
  return [{ type: 'EmailReserved', data: { email: command.data.email, userId: command.data.userId, reservedAt: command.now.toISOString() } }];
}

/** Only the member holding the reservation releases it; for anyone else it is already free or taken anew. */
export function decideReleaseEmail(command: CommandOf<'ReleaseEmail'>, state: EmailState): EmailEvent[] {
  if (state.userId !== command.data.userId) return [];
  return [{ type: 'EmailReleased', data: { userId: command.data.userId, releasedAt: command.now.toISOString() } }];
}

export function decideEmail(command: EmailCommand, state: EmailState): EmailEvent[] {
  switch (command.type) {
    case 'ReserveEmail':
      return decideReserveEmail(command, state);
    case 'ReleaseEmail':
      return decideReleaseEmail(command, state);
    default:
      return assertNever(command);
  }
}

export const emailDecider: Decider<EmailCommand, EmailState, EmailEvent> = {
  name: 'email',
  initialState: () => ({ userId: null, email: '', reservedAt: null }),
  isEvent: isEventOf('email'),
  // The first reservation wins; the store's `no_stream` check makes a second one impossible anyway.
  evolve: (state, event) => {
    // Released (its member erased): free again, for a new member.
    if (event.type === 'EmailReleased') return { userId: null, email: '', reservedAt: null };
    return state.userId ? state : { userId: event.data.userId, email: event.data.email, reservedAt: event.data.reservedAt };
  },
  decide: decideEmail,
};
