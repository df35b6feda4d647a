import type { UserEvent } from '@pass/events';
import { describe, expect, it } from 'vitest';
import { at, memberSpec as spec, registered, t0, userId } from '../test-support/member-events';

const HOUR = 60 * 60_000;
const requested = (tokenHash: string, ms = 0): UserEvent => ({
  type: 'PasswordResetRequested',
  data: { userId, tokenHash, expiresAt: at(ms + HOUR).toISOString(), requestedAt: at(ms).toISOString() },
});
const changed = (passwordHash: string, ms: number): UserEvent => ({
  type: 'PasswordChanged',
  data: { userId, passwordHash, via: 'change', changedAt: at(ms).toISOString() },
});
const reset = (tokenHash: string, ms: number) => ({ type: 'ResetPassword', data: { userId, tokenHash, passwordHash: 'new' }, now: at(ms) }) as const;

describe('user: change password', () => {
  it('records the new hash, which later logins check', () => {
    spec
      .given([registered])
      .when({ type: 'ChangePassword', data: { userId, passwordHash: 'h2' }, now: at(5) })
      .then([{ type: 'PasswordChanged', data: { userId, passwordHash: 'h2', via: 'change', changedAt: at(5).toISOString() } }]);
    spec
      .given([registered])
      .when({ type: 'ChangePassword', data: { userId, passwordHash: 'h2' }, now: at(5) })
      .thenState((state) => expect(state.passwordHash).toBe('h2'));
  });
  it('refuses a member that does not exist', () => {
    spec.given([]).when({ type: 'ChangePassword', data: { userId, passwordHash: 'h2' }, now: t0 }).thenThrows('not_found');
  });
});

describe('user: password reset', () => {
  it('records a link by its hash, valid for one hour', () => {
    spec.given([registered]).when({ type: 'RequestPasswordReset', data: { userId, tokenHash: 'th' }, now: t0 }).then([requested('th')]);
  });
  it('sets the new password with a link asked for within the hour', () => {
    spec
      .given([registered, requested('th')])
      .when(reset('th', HOUR - 1))
      .then([{ type: 'PasswordChanged', data: { userId, passwordHash: 'new', via: 'reset', tokenHash: 'th', changedAt: at(HOUR - 1).toISOString() } }]);
  });
  it('refuses an expired link', () => {
    spec.given([registered, requested('th')]).when(reset('th', HOUR)).thenThrows('invalid', /not valid/);
  });
  it('refuses a link used once already', () => {
    spec
      .given([registered, requested('th'), { type: 'PasswordChanged', data: { userId, passwordHash: 'new', via: 'reset', tokenHash: 'th', changedAt: at(10).toISOString() } }])
      .when(reset('th', 20))
      .thenThrows('invalid');
  });
  it('refuses every link asked for before a password change, and a forged one', () => {
    spec.given([registered, requested('a'), requested('b', 5), changed('h2', 10)]).when(reset('b', 20)).thenThrows('invalid');
    spec.given([registered, requested('a')]).when(reset('forged', 1)).thenThrows('invalid');
    spec.given([]).when(reset('a', 1)).thenThrows('invalid');
  });
  it('keeps a link asked for after a change working', () => {
    spec.given([registered, changed('h2', 10), requested('c', 20)]).when(reset('c', 30)).thenState((state) => {
      expect(state.passwordHash).toBe('new');
      expect(state.pendingResets.size).toBe(0);
    });
  });
});
