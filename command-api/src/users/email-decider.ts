import { assertNever, type DomainEvent, type EmailCommand } from '@pass/events';
import { eventGuard, type Decider } from '../kernel/decider';
import { DomainError } from '@pass/events';

export type EmailEvent = Extract<DomainEvent, { type: 'EmailReserved' }>;

/** One account per e-mail: the stream `email-{hash}` holds at most one reservation. */
export interface EmailState {
  userId: string | null;
  email: string;
  reservedAt: string | null;
}

export function decideEmail(command: EmailCommand, state: EmailState): EmailEvent[] {
  switch (command.type) {
    case 'ReserveEmail':
      if (state.userId) throw new DomainError('already_exists', 'This email is already registered');
      return [{ type: 'EmailReserved', data: { email: command.data.email, userId: command.data.userId, reservedAt: command.now.toISOString() } }];
    default:
      return assertNever(command.type);
  }
}

export const emailDecider: Decider<EmailCommand, EmailState, EmailEvent> = {
  name: 'email',
  initialState: () => ({ userId: null, email: '', reservedAt: null }),
  isEvent: eventGuard(['EmailReserved']),
  // The first reservation wins; the store's `no_stream` check makes a second one impossible anyway.
  evolve: (state, event) => (state.userId ? state : { userId: event.data.userId, email: event.data.email, reservedAt: event.data.reservedAt }),
  decide: decideEmail,
};
