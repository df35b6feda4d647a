import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { userActions } from '../../lib/state/session';
import { chatMessage as message, startApp, sampleMainData, sampleUser } from '../../testing/fake-services';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('live connection', () => {
  it('asks for chat, main data and the newest post on connect', async () => {
    const app = startApp();
    app.socket.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(app.socket.emittedNames()).toEqual(['getChatMessages', 'getUpdatedMainData', 'getGlobalMember']);
  });

  it('reconnects after sign-in and sign-out so the handshake carries the new session', async () => {
    const app = startApp();
    app.socket.connect();
    app.store.dispatch(userActions.registerSucceeded(sampleUser));
    app.store.dispatch(userActions.logoutRequested());
    await vi.advanceTimersByTimeAsync(0);
    expect(app.socket.reconnects).toBe(2);
  });

  it('server events update the store; a global post shows for 10 s', async () => {
    const app = startApp();
    await vi.advanceTimersByTimeAsync(0);
    app.socket.serverEmit('connectedUsers', 42);
    // The server sends the new total first, then the message: it is listed once and counted once.
    const total = sampleMainData.globalMessages + 1;
    app.socket.serverEmit('updatedMainData', { mainData: { ...sampleMainData, sold: 31, globalMessages: total }, countries: { distinct: 3, top: [] } });
    app.socket.serverEmit('chatMessage', message('m1'));
    app.socket.serverEmit('chatMessage', message('m1'));
    app.socket.serverEmit('globalMember', { user: { id: 'u2', fullname: 'Bob', country: 'Spain', image: null, priority: '' }, message: 'Hi!', postedAt: '' });
    await vi.advanceTimersByTimeAsync(0);
    const state = app.state();
    expect(state.connectedUsers.count).toBe(42);
    expect(state.mainData.data.sold).toBe(31);
    expect(state.mainData.countries.distinct).toBe(3);
    expect(state.chat.globalMessages.map((m) => m.id)).toEqual(['m1']);
    expect(state.mainData.data.globalMessages).toBe(sampleMainData.globalMessages + 1);
    expect(state.globalPost.visible).toBe(true);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(app.state().globalPost.visible).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(app.state().globalPost.visible).toBe(false);
  });

  it('chatMessages (history, or after the admin clears) replaces the list', async () => {
    const app = startApp();
    app.socket.serverEmit('chatMessage', message('m1'));
    app.socket.serverEmit('chatMessages', { total: 0, messages: [] });
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().chat.globalMessages).toEqual([]);
    expect(app.state().mainData.data.globalMessages).toBe(0);
  });
});
