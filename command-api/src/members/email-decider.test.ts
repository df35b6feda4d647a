import { describe, it } from 'vitest';
import { deciderSpec } from '../kernel/decider-spec';
import { emailDecider } from './email-decider';

const now = new Date('2026-01-01T10:00:00.000Z');
const iso = now.toISOString();

describe('email reservation', () => {
  const spec = deciderSpec(emailDecider);
  it('reserves an email for one account only', () => {
    const reserve = { type: 'ReserveEmail', data: { email: 'ana@example.com', userId: 'u1' }, now } as const;
    spec.given([]).when(reserve).then([{ type: 'EmailReserved', data: { email: 'ana@example.com', userId: 'u1', reservedAt: iso } }]);
    spec.given([{ type: 'EmailReserved', data: { email: 'ana@example.com', userId: 'u0', reservedAt: iso } }]).when(reserve).thenThrows('already_exists');
  });
});
