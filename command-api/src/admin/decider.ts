import { assertNever, type AdminCommand, type DomainEvent } from '@pass/events';
import { eventGuard, type Decider } from '../kernel/decider';
import { DomainError } from '@pass/events';

export type AdminEvent = Extract<DomainEvent, { type: 'AdminRegistered' }>;

export interface AdminState {
  exists: boolean;
  adminId: string;
  email: string;
  passwordHash: string;
}

export function decideAdmin(command: AdminCommand, state: AdminState): AdminEvent[] {
  switch (command.type) {
    case 'RegisterAdmin': {
      if (state.exists) throw new DomainError('already_exists', 'This admin is already registered');
      const { adminId, email, passwordHash } = command.data;
      return [{ type: 'AdminRegistered', data: { adminId, email, passwordHash, registeredAt: command.now.toISOString() } }];
    }
    default:
      return assertNever(command.type);
  }
}

export const adminDecider: Decider<AdminCommand, AdminState, AdminEvent> = {
  name: 'admin',
  initialState: () => ({ exists: false, adminId: '', email: '', passwordHash: '' }),
  isEvent: eventGuard(['AdminRegistered']),
  evolve: (_state, event) => ({ exists: true, adminId: event.data.adminId, email: event.data.email, passwordHash: event.data.passwordHash }),
  decide: decideAdmin,
};
