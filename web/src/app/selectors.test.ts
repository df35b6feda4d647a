import { describe, expect, it } from 'vitest';
import { guestUser } from '../lib/state/session';
import {
  selectAdminAuthorized,
  selectCertificateHref,
  selectGetPassHref,
  selectHasUserOrStored,
  selectIsMember,
  selectIsRegistered,
  selectJoinButtonHref,
} from '../lib/state/session-selectors';
import { selectFundsText, selectGlobalMessagesBadge, selectMembersText } from '../lib/state/site-selectors';
import { selectConnectedUsersText, selectDayCounter } from '../features/page-frame';
import { rootReducer, type RootState } from './store';

const base = rootReducer(undefined, { type: '@@init' });
function state(patch: { user?: Partial<RootState['user']['user']>; storedId?: string; main?: Partial<RootState['mainData']['data']>; connected?: number; adminStored?: string }): RootState {
  return {
    ...base,
    user: { ...base.user, user: { ...guestUser, ...patch.user }, storedId: patch.storedId ?? '' },
    mainData: { ...base.mainData, data: { ...base.mainData.data, ...patch.main } },
    connectedUsers: { count: patch.connected ?? 0 },
    admin: { ...base.admin, storedId: patch.adminStored ?? '' },
  };
}

describe('selectors', () => {
  it('registered = non-empty email; member = passes > 0', () => {
    expect(selectIsRegistered(state({}))).toBe(false);
    expect(selectIsRegistered(state({ user: { email: 'a@b.com' } }))).toBe(true);
    expect(selectIsMember(state({ user: { passes: 0 } }))).toBe(false);
    expect(selectIsMember(state({ user: { passes: 2 } }))).toBe(true);
    expect(selectHasUserOrStored(state({ storedId: 'u1' }))).toBe(true);
  });

  it('navigation targets follow the spec', () => {
    const guest = state({});
    const registered = state({ user: { email: 'a@b.com' } });
    const member = state({ user: { email: 'a@b.com', passes: 1 } });
    expect(selectGetPassHref(guest)).toBe('/content/join');
    expect(selectGetPassHref(registered)).toBe('/content/post');
    expect(selectCertificateHref(guest)).toBe('/content/join');
    expect(selectCertificateHref(registered)).toBe('/content/post');
    expect(selectCertificateHref(member)).toBe('/content/certificate');
    expect(selectJoinButtonHref(guest)).toBe('/content/join');
    expect(selectJoinButtonHref(registered)).toBe('/content/check');
  });

  it('formats funds, counts and the message badge', () => {
    const figures = state({ main: { fundsRaised: 12345.678, members: 1234567, globalMessages: 1500 }, connected: 2048 });
    expect(selectFundsText(figures)).toBe('12,345.68');
    expect(selectMembersText(figures)).toBe('1,234,567');
    expect(selectGlobalMessagesBadge(figures)).toBe('+1,500');
    expect(selectGlobalMessagesBadge(state({}))).toBe('0');
    expect(selectConnectedUsersText(figures)).toBe('2,048');
  });

  it('counts whole days since startDate, 0 when empty', () => {
    expect(selectDayCounter(state({ main: { startDate: '01/01/2026' } }), Date.UTC(2026, 0, 31, 12))).toBe(30);
    expect(selectDayCounter(state({}), Date.UTC(2026, 0, 31))).toBe(0);
  });

  it('the admin guard reads the stored admin flag', () => {
    expect(selectAdminAuthorized(state({}))).toBe(false);
    expect(selectAdminAuthorized(state({ adminStored: 'a1' }))).toBe(true);
  });
});
