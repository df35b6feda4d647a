import { describe, it } from 'vitest';
import { deciderSpec } from '../kernel/decider-spec';
import { adminDecider } from './decider';

const now = new Date('2026-01-01T10:00:00.000Z');
const iso = now.toISOString();

describe('admin', () => {
  const spec = deciderSpec(adminDecider);
  it('registers an admin once', () => {
    const register = { type: 'RegisterAdmin', data: { adminId: 'a1', email: 'boss@example.com', passwordHash: 'h' }, now } as const;
    spec.given([]).when(register).then([{ type: 'AdminRegistered', data: { adminId: 'a1', email: 'boss@example.com', passwordHash: 'h', registeredAt: iso } }]);
    spec.given([{ type: 'AdminRegistered', data: { adminId: 'a1', email: 'boss@example.com', passwordHash: 'h', registeredAt: iso } }]).when(register).thenThrows('already_exists');
  });
});
