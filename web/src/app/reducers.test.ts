import { describe, expect, it } from 'vitest';
import type { ChatMessageView } from '@pass/events/kernel';
import { popupActions } from '../lib/state/popup';
import { guestUser, userActions } from '../lib/state/session';
import { loadingActions, mainDataActions, updateMainDataActions } from '../lib/state/site';
import { adminActions } from '../features/admin';
import { CHAT_KEEP, chatActions } from '../features/chat';
import { checkActions, checksecondsActions } from '../features/free-points';
import { registryActions } from '../features/registry';
import { connectedUsersActions, globalPostActions, sidebarActions } from '../features/page-frame';
import { sampleMainData, sampleUser } from '../testing/fake-services';
import { rootReducer } from './store';

const init = () => rootReducer(undefined, { type: '@@init' });
const msg = (id: string): ChatMessageView => ({ id, userId: 'u', nickname: 'N', message: 'hi', priority: '', sentAt: '' });

describe('slices', () => {
  it('has the spec names and defaults', () => {
    const s = init();
    expect(Object.keys(s).sort()).toEqual(
      // …plus `purchase`, the checkout panel's state (settings, error), which the spec's UI did not
      // have, and issue 17's `myData` ("Your data") and `passwordReset` (the reset page).
      ['admin', 'chat', 'check', 'checkseconds', 'connectedUsers', 'globalPost', 'loading', 'mainData', 'myData', 'passwordReset', 'popup', 'purchase', 'sidebar', 'updateMainData', 'user', 'users'].sort(),
    );
    expect(s.popup).toMatchObject({ showPopup: false, acceptedCookie: false, showAds: true, blockMessage: false, bannerTwoLoaded: false, bannerThree: false, seconds: 10 });
    expect(s.checkseconds.seconds).toBe(30);
    expect(s.loading.isLoading).toBe(true);
    expect(s.chat.chatInfo.nickname).toBe('Anonymous');
  });

  it('user: register, fail, claim, reset', () => {
    let s = rootReducer(init(), userActions.registerRequested({ email: 'a@b.com', password: 'pass' }));
    expect(s.user.pending).toBe(true);
    s = rootReducer(s, userActions.registerFailed('Wrong password'));
    expect(s.user).toMatchObject({ pending: false, registerError: 'Wrong password' });
    s = rootReducer(s, userActions.registerSucceeded(sampleUser));
    expect(s.user.user.email).toBe(sampleUser.email);
    expect(s.user.storedId).toBe(sampleUser.id);
    s = rootReducer(s, userActions.claimSucceeded({ ...sampleUser, passes: 2 }));
    expect(s.user.newMember).toBe(true);
    s = rootReducer(s, userActions.userReset());
    expect(s.user.user).toEqual(guestUser);
    expect(s.user.storedId).toBe('');
  });

  it('mainData: HTTP and live updates', () => {
    let s = rootReducer(init(), mainDataActions.mainDataReceived(sampleMainData));
    expect(s.mainData.loaded).toBe(true);
    s = rootReducer(s, mainDataActions.updatedMainDataReceived({ mainData: { ...sampleMainData, sold: 99 }, countries: { distinct: 2, top: [] } }));
    expect(s.mainData.data.sold).toBe(99);
    expect(s.mainData.countries.distinct).toBe(2);
    s = rootReducer(s, chatActions.chatHistoryReceived({ total: 7, messages: [] }));
    expect(s.mainData.data.globalMessages).toBe(7);
  });

  it('users: queries and pages', () => {
    let s = rootReducer(init(), registryActions.registryRequested('ann'));
    expect(s.users.registry.query).toBe('ann');
    s = rootReducer(s, registryActions.registryReceived({ total: 1, page: 1, pageSize: 50, items: [{ userId: 'u', createdAt: '', member: 'Ann', passes: 1, points: 2, priority: '' }] }));
    expect(s.users.registry).toMatchObject({ total: 1, loaded: true });
  });

  it('chat: toggle, draft, dedupe, keep the last messages', () => {
    let s = rootReducer(init(), chatActions.chatToggled());
    expect(s.chat.isOpened).toBe(true);
    s = rootReducer(s, chatActions.draftChanged('hello'));
    s = rootReducer(s, chatActions.sendFinished({ sent: false }));
    expect(s.chat.chatInfo.message).toBe('hello');
    s = rootReducer(s, chatActions.sendFinished({ sent: true }));
    expect(s.chat.chatInfo.message).toBe('');
    s = rootReducer(s, chatActions.chatMessageReceived(msg('1')));
    s = rootReducer(s, chatActions.chatMessageReceived(msg('1')));
    expect(s.chat.globalMessages).toHaveLength(1);
    for (let i = 0; i < CHAT_KEEP + 5; i++) s = rootReducer(s, chatActions.chatMessageReceived(msg(`m${i}`)));
    expect(s.chat.globalMessages).toHaveLength(CHAT_KEEP);
    s = rootReducer(s, chatActions.chatClosed());
    expect(s.chat.isOpened).toBe(false);
  });

  it('popup: show, tick, hide resets the timer and the loaded flag', () => {
    let s = rootReducer(init(), popupActions.adsShown());
    s = rootReducer(s, popupActions.adsTicked());
    s = rootReducer(s, popupActions.bannerTwoLoadedSet(true));
    expect(s.popup).toMatchObject({ showPopup: true, seconds: 9, bannerTwoLoaded: true });
    s = rootReducer(s, popupActions.adsHidden());
    expect(s.popup).toMatchObject({ showPopup: false, seconds: 10, bannerTwoLoaded: false });
    s = rootReducer(s, popupActions.cookieAccepted());
    expect(s.popup.acceptedCookie).toBe(true);
  });

  it('small slices', () => {
    let s = rootReducer(init(), connectedUsersActions.connectedUsersReceived(5));
    expect(s.connectedUsers.count).toBe(5);
    s = rootReducer(s, sidebarActions.sidebarToggled());
    expect(s.sidebar.sidebarStatus).toBe(true);
    s = rootReducer(s, sidebarActions.sidebarClosed());
    expect(s.sidebar.sidebarStatus).toBe(false);
    s = rootReducer(s, checkActions.checkSet(true));
    expect(s.check.isChecked).toBe(true);
    s = rootReducer(s, checksecondsActions.secondsTicked());
    expect(s.checkseconds.seconds).toBe(29);
    s = rootReducer(s, checksecondsActions.secondsReset());
    expect(s.checkseconds.seconds).toBe(30);
    s = rootReducer(s, loadingActions.loadingSet(false));
    expect(s.loading.isLoading).toBe(false);
    s = rootReducer(s, updateMainDataActions.updateMainDataSet(true));
    expect(s.updateMainData.updateMainData).toBe(true);
    s = rootReducer(s, globalPostActions.globalPostReceived({ user: { id: 'u', fullname: 'A', country: 'B', image: null, priority: '' }, message: 'm', postedAt: '' }));
    expect(s.globalPost.visible).toBe(true);
    s = rootReducer(s, globalPostActions.globalPostHidden());
    expect(s.globalPost.visible).toBe(false);
    s = rootReducer(s, adminActions.adminSet({ id: 'a', email: 'e', authorized: true }));
    expect(s.admin).toMatchObject({ authorized: true, storedId: 'a' });
    s = rootReducer(s, adminActions.adminReset());
    expect(s.admin.authorized).toBe(false);
  });
});
