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
    const state = init();
    expect(Object.keys(state).sort()).toEqual(
      // …plus `purchase`, the checkout panel's state (settings, error), which the spec's UI did not
      // have, the account pages' `myData` ("Your data") and `passwordReset` (the reset page),
      // `progress` (the progress page's days) and the admin dashboard's `timeMachine` (its replays of past moments).
      ['admin', 'chat', 'check', 'checkseconds', 'connectedUsers', 'globalPost', 'loading', 'mainData', 'myData', 'passwordReset', 'popup', 'progress', 'purchase', 'sidebar', 'timeMachine', 'updateMainData', 'user', 'users'].sort(),
    );
    expect(state.popup).toMatchObject({ showPopup: false, acceptedCookie: false, showAds: true, blockMessage: false, bannerTwoLoaded: false, bannerThree: false, seconds: 10 });
    expect(state.checkseconds.seconds).toBe(30);
    expect(state.loading.isLoading).toBe(true);
    expect(state.chat.chatInfo.nickname).toBe('Anonymous');
  });

  it('user: register, fail, claim, reset', () => {
    let state = rootReducer(init(), userActions.registerRequested({ email: 'a@b.com', password: 'pass' }));
    expect(state.user.pending).toBe(true);
    state = rootReducer(state, userActions.registerFailed('Wrong password'));
    expect(state.user).toMatchObject({ pending: false, registerError: 'Wrong password' });
    state = rootReducer(state, userActions.registerSucceeded(sampleUser));
    expect(state.user.user.email).toBe(sampleUser.email);
    expect(state.user.storedId).toBe(sampleUser.id);
    state = rootReducer(state, userActions.claimSucceeded({ ...sampleUser, passes: 2 }));
    expect(state.user.newMember).toBe(true);
    state = rootReducer(state, userActions.userReset());
    expect(state.user.user).toEqual(guestUser);
    expect(state.user.storedId).toBe('');
  });

  it('mainData: HTTP and live updates', () => {
    let state = rootReducer(init(), mainDataActions.mainDataReceived(sampleMainData));
    expect(state.mainData.loaded).toBe(true);
    state = rootReducer(state, mainDataActions.updatedMainDataReceived({ mainData: { ...sampleMainData, sold: 99 }, countries: { distinct: 2, top: [] } }));
    expect(state.mainData.data.sold).toBe(99);
    expect(state.mainData.countries.distinct).toBe(2);
    state = rootReducer(state, chatActions.chatHistoryReceived({ total: 7, messages: [] }));
    expect(state.mainData.data.globalMessages).toBe(7);
  });

  it('users: queries and pages', () => {
    let state = rootReducer(init(), registryActions.registryRequested('ann'));
    expect(state.users.registry.query).toBe('ann');
    state = rootReducer(state, registryActions.registryReceived({ total: 1, page: 1, pageSize: 50, items: [{ userId: 'u', createdAt: '', member: 'Ann', passes: 1, points: 2, priority: '' }] }));
    expect(state.users.registry).toMatchObject({ total: 1, loaded: true });
  });

  it('chat: toggle, draft, dedupe, keep the last messages', () => {
    let state = rootReducer(init(), chatActions.chatToggled());
    expect(state.chat.isOpened).toBe(true);
    state = rootReducer(state, chatActions.draftChanged('hello'));
    state = rootReducer(state, chatActions.sendFinished({ sent: false }));
    expect(state.chat.chatInfo.message).toBe('hello');
    state = rootReducer(state, chatActions.draftChanged('hello '));
    state = rootReducer(state, chatActions.sendFinished({ sent: true, message: 'hello' }));
    expect(state.chat.chatInfo.message).toBe('');
    // Typed while the last message was on its way: kept.
    state = rootReducer(state, chatActions.sendRequested('first'));
    state = rootReducer(state, chatActions.draftChanged('second'));
    state = rootReducer(state, chatActions.sendFinished({ sent: true, message: 'first' }));
    expect(state.chat.chatInfo.message).toBe('second');
    state = rootReducer(state, chatActions.chatMessageReceived(msg('1')));
    state = rootReducer(state, chatActions.chatMessageReceived(msg('1')));
    expect(state.chat.globalMessages).toHaveLength(1);
    for (let i = 0; i < CHAT_KEEP + 5; i++) state = rootReducer(state, chatActions.chatMessageReceived(msg(`m${i}`)));
    expect(state.chat.globalMessages).toHaveLength(CHAT_KEEP);
    state = rootReducer(state, chatActions.chatClosed());
    expect(state.chat.isOpened).toBe(false);
  });

  it('popup: show, tick, hide resets the timer and the loaded flag', () => {
    let state = rootReducer(init(), popupActions.adsShown());
    state = rootReducer(state, popupActions.adsTicked());
    state = rootReducer(state, popupActions.bannerTwoLoadedSet(true));
    expect(state.popup).toMatchObject({ showPopup: true, seconds: 9, bannerTwoLoaded: true });
    state = rootReducer(state, popupActions.adsHidden());
    expect(state.popup).toMatchObject({ showPopup: false, seconds: 10, bannerTwoLoaded: false });
    state = rootReducer(state, popupActions.cookieAccepted());
    expect(state.popup.acceptedCookie).toBe(true);
  });

  it('small slices', () => {
    let state = rootReducer(init(), connectedUsersActions.connectedUsersReceived(5));
    expect(state.connectedUsers.count).toBe(5);
    state = rootReducer(state, sidebarActions.sidebarToggled());
    expect(state.sidebar.sidebarStatus).toBe(true);
    state = rootReducer(state, sidebarActions.sidebarClosed());
    expect(state.sidebar.sidebarStatus).toBe(false);
    state = rootReducer(state, checkActions.checkSet(true));
    expect(state.check.isChecked).toBe(true);
    state = rootReducer(state, checksecondsActions.secondsTicked());
    expect(state.checkseconds.seconds).toBe(29);
    state = rootReducer(state, checksecondsActions.secondsReset());
    expect(state.checkseconds.seconds).toBe(30);
    state = rootReducer(state, loadingActions.loadingSet(false));
    expect(state.loading.isLoading).toBe(false);
    state = rootReducer(state, updateMainDataActions.updateMainDataSet(true));
    expect(state.updateMainData.updateMainData).toBe(true);
    state = rootReducer(state, globalPostActions.globalPostReceived({ user: { id: 'u', fullname: 'A', country: 'B', image: null, priority: '' }, message: 'm', postedAt: '' }));
    expect(state.globalPost.visible).toBe(true);
    state = rootReducer(state, globalPostActions.globalPostHidden());
    expect(state.globalPost.visible).toBe(false);
    state = rootReducer(state, adminActions.adminSet({ id: 'a', email: 'e', authorized: true }));
    expect(state.admin).toMatchObject({ authorized: true, storedId: 'a' });
    state = rootReducer(state, adminActions.adminReset());
    expect(state.admin.authorized).toBe(false);
  });
});
