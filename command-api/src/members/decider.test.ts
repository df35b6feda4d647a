import { describe, it } from 'vitest';
import { memberSpec as spec, registered, t0, userId } from '../test-support/member-events';

describe('user: register', () => {
  it('starts a new member with 10 points and no priority', () => {
    spec.given([]).when({ type: 'RegisterUser', data: { userId, email: 'ana@example.com', passwordHash: 'h' }, now: t0 }).then([registered]);
  });
  it('refuses to register the same member twice', () => {
    spec.given([registered]).when({ type: 'RegisterUser', data: { userId, email: 'ana@example.com', passwordHash: 'h' }, now: t0 }).thenThrows('already_exists');
  });
});
