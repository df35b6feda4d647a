import type { UserEvent } from '@pass/events';
import { describe, expect, it } from 'vitest';
import { fold } from '../kernel/decider';
import { userDecider } from '../members/decider';
import { at, memberSpec as spec, registered, t0, userId } from '../test-support/member-events';

const HOUR = 60 * 60_000;
/** A link recorded when links were still recorded: history, which sets nothing now. */
const requested = (tokenHash: string, ms = 0): UserEvent => ({
  type: 'PasswordResetRequested',
  data: { userId, tokenHash, expiresAt: at(ms + HOUR).toISOString(), requestedAt: at(ms).toISOString() },
});
const changed = (passwordHash: string, ms: number): UserEvent => ({
  type: 'PasswordChanged',
  data: { userId, passwordHash, via: 'change', changedAt: at(ms).toISOString() },
});
/** A signed link made at `issuedMs`, used at `ms`. */
const reset = (issuedMs: number, ms: number) =>
  ({ type: 'ResetPassword', data: { userId, tokenHash: 'th', passwordHash: 'new', issuedAt: at(issuedMs).toISOString() }, now: at(ms) }) as const;

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
  it('sets the new password with a link made within the hour, recording only its hash', () => {
    spec
      .given([registered])
      .when(reset(0, HOUR - 1))
      .then([{ type: 'PasswordChanged', data: { userId, passwordHash: 'new', via: 'reset', tokenHash: 'th', changedAt: at(HOUR - 1).toISOString() } }]);
  });
  it('refuses an expired link, and one dated later than now until its time comes', () => {
    spec.given([registered]).when(reset(0, HOUR)).thenThrows('invalid', /not valid/);
    spec.given([registered]).when(reset(10, 9)).thenThrows('invalid');
    spec.given([registered]).when(reset(10, 10)).then([expect.objectContaining({ type: 'PasswordChanged' }) as UserEvent]);
  });
  it('refuses a link used once already', () => {
    spec
      .given([registered, { type: 'PasswordChanged', data: { userId, passwordHash: 'new', via: 'reset', tokenHash: 'th', changedAt: at(10).toISOString() } }])
      .when(reset(5, 20))
      .thenThrows('invalid');
  });
  it('refuses every link made before a password change or in its millisecond, and any link for no member', () => {
    spec.given([registered, changed('h2', 10)]).when(reset(5, 20)).thenThrows('invalid');
    spec.given([registered, changed('h2', 10)]).when(reset(10, 20)).thenThrows('invalid');
    spec.given([]).when(reset(0, 1)).thenThrows('invalid');
    spec.given([registered, { type: 'MemberErased', data: { userId, requestedBy: 'member', erasedAt: at(3).toISOString() } }]).when(reset(5, 6)).thenThrows('invalid');
  });
  it('keeps a link made after a change working; links recorded before they were signed set nothing', () => {
    spec.given([registered, changed('h2', 10)]).when(reset(11, 30)).thenState((state) => expect(state.passwordHash).toBe('new'));
    expect(fold(userDecider, [registered, requested('old')])).toEqual(fold(userDecider, [registered]));
  });
});
