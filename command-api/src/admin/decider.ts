import { DomainError, assertNever, isEventOf, type AdminCommand, type AdminEvent, type CommandOf } from '@pass/events';
import type { Decider } from '../kernel/decider';

export interface AdminState {
  exists: boolean;
  adminId: string;
  email: string;
  passwordHash: string;
}

export function decideRegisterAdmin(command: CommandOf<'RegisterAdmin'>, state: AdminState): AdminEvent[] {
  if (state.exists) throw new DomainError('already_exists', 'This admin is already registered');
  const { adminId, email, passwordHash } = command.data;
  return [{ type: 'AdminRegistered', data: { adminId, email, passwordHash, registeredAt: command.now.toISOString() } }];
}

export function decideAdmin(command: AdminCommand, state: AdminState): AdminEvent[] {
  switch (command.type) {
    case 'RegisterAdmin':
      return decideRegisterAdmin(command, state);
    default:
      return assertNever(command.type);
  }
}

export const adminDecider: Decider<AdminCommand, AdminState, AdminEvent> = {
  name: 'admin',
  initialState: () => ({ exists: false, adminId: '', email: '', passwordHash: '' }),
  isEvent: isEventOf('admin'),
  evolve: (_state, event) => ({ exists: true, adminId: event.data.adminId, email: event.data.email, passwordHash: event.data.passwordHash }),
  decide: decideAdmin,
};
