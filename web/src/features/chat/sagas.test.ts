import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../lib/http';
import { JOIN_REASONS, joinReasonText } from '../../lib/join-reason';
import { chatMessage as message, startApp, sampleUser } from '../../testing/fake-services';
import { chatActions } from './slice';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('sending a chat message', () => {
  it('guests are sent to join, with the reason join says in its line', async () => {
    const app = startApp();
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.navigate).toHaveBeenCalledWith('/content/join', { state: { joinReason: 'chat' } });
    expect(joinReasonText(app.navigate.mock.calls[0]![1]!.state)).toBe(JOIN_REASONS.chat);
    expect(app.socket.emittedNames()).not.toContain('sendChatMessage');
  });

  it('a Send that leads to join or to the free points closes the panel (a phone would show it over that page); the draft stays', async () => {
    const guest = startApp();
    guest.store.dispatch(chatActions.chatToggled());
    guest.store.dispatch(chatActions.draftChanged('hello'));
    guest.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    expect(guest.state().chat).toMatchObject({ isOpened: false, sending: false, chatInfo: { message: 'hello' } });
    const member = startApp({ userId: 'u1' }, (h) => h.api.verifyAccess.mockResolvedValue({ ...sampleUser, chatCount: 0 }));
    await vi.advanceTimersByTimeAsync(0);
    member.store.dispatch(chatActions.chatToggled());
    member.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    expect(member.navigate).toHaveBeenCalledWith('/content/check');
    expect(member.state().chat.isOpened).toBe(false);
  });

  it('members without points are sent to /content/check', async () => {
    const app = startApp({ userId: 'u1' }, (h) => h.api.verifyAccess.mockResolvedValue({ ...sampleUser, chatCount: 0 }));
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.navigate).toHaveBeenCalledWith('/content/check');
  });

  it('sends over the socket, updates the points, clears the draft, adds the message once', async () => {
    const app = startApp({ userId: 'u1' }, (h) => h.api.verifyAccess.mockResolvedValue({ ...sampleUser, priority: 'specialUser' }));
    const sent = message('m9', 'u1');
    app.socket.acks.sendChatMessage = () => ({ ok: true, data: { message: sent, user: { ...sampleUser, priority: 'specialUser', chatCount: 29 } } });
    app.socket.connect();
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(chatActions.draftChanged('hello'));
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    app.socket.serverEmit('chatMessage', sent);
    await vi.advanceTimersByTimeAsync(0);
    const state = app.state();
    expect(app.socket.emitted.find((e) => e.event === 'sendChatMessage')?.args[0]).toEqual({ message: 'hello', requestId: expect.stringMatching(/^[\w-]{36}$/) });
    expect(state.user.user.chatCount).toBe(29);
    expect(state.chat.chatInfo.message).toBe('');
    expect(state.chat.globalMessages.filter((m) => m.id === 'm9')).toHaveLength(1);
    // A member with a priority also sends decreaseChatCount (docs/product.md §4).
    expect(app.socket.emittedNames()).toContain('decreaseChatCount');
  });

  it('without the live connection it sends over HTTP and counts the message itself', async () => {
    const sent = message('m7', 'u1');
    const app = startApp({ userId: 'u1' }, (h) => h.api.sendChatMessage.mockResolvedValue({ message: sent, user: { ...sampleUser, chatCount: 29 } }));
    await vi.advanceTimersByTimeAsync(0);
    const before = app.state().mainData.data.globalMessages;
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().chat.globalMessages.map((m) => m.id)).toEqual(['m7']);
    expect(app.state().mainData.data.globalMessages).toBe(before + 1);
  });

  it('a 402 answer sends the member to /content/check with 0 points, so its out-of-points line shows', async () => {
    const app = startApp({ userId: 'u1' });
    app.socket.acks.sendChatMessage = () => ({ ok: false, error: 'No points left', status: 402 });
    app.socket.connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().user.user.chatCount).toBe(30);
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.navigate).toHaveBeenCalledWith('/content/check');
    expect(app.state().user.user.chatCount).toBe(0);
    expect(app.state().chat.sending).toBe(false);
  });

  it('a message refused by the chat limit over the socket is a toast with the wait; the draft stays', async () => {
    const app = startApp({ userId: 'u1' });
    const tooFast = 'You are sending messages too fast. Please wait 7 seconds and try again.';
    app.socket.acks.sendChatMessage = () => ({ ok: false, error: tooFast, status: 429, retryAfterSeconds: 7 });
    app.socket.connect();
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(chatActions.draftChanged('hello'));
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.toasts).toEqual([{ kind: 'error', message: tooFast }]);
    expect(app.state().chat.chatInfo.message).toBe('hello');
    expect(app.state().chat.sending).toBe(false);
    expect(app.api.sendChatMessage).not.toHaveBeenCalled();
  });

  it('a message refused by the chat limit over HTTP is the same toast; without the server’s words, the wait alone', async () => {
    const app = startApp({ userId: 'u1' }, (h) =>
      h.api.sendChatMessage
        .mockRejectedValueOnce(new HttpError(429, { error: 'You are sending messages too fast. Please wait 3 seconds and try again.', retryAfterSeconds: 3 }))
        .mockRejectedValueOnce(new HttpError(429, { error: '', retryAfterSeconds: 1 })),
    );
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(0);
    expect(app.toasts).toEqual([
      { kind: 'error', message: 'You are sending messages too fast. Please wait 3 seconds and try again.' },
      { kind: 'error', message: 'You are sending messages too fast. Please wait 1 second and try again.' },
    ]);
    expect(app.state().chat.globalMessages).toEqual([]);
  });

  it('asks again over HTTP with the same request id when the socket never answers (posted once by the server)', async () => {
    const sent = message('m5', 'u1');
    const app = startApp({ userId: 'u1' }, (h) => h.api.sendChatMessage.mockResolvedValue({ message: sent, user: { ...sampleUser, chatCount: 29 } }));
    app.socket.connect();
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(19_999);
    expect(app.state().chat.sending).toBe(true);
    expect(app.api.sendChatMessage).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    const { requestId } = app.socket.emitted.find((e) => e.event === 'sendChatMessage')!.args[0] as { requestId: string };
    expect(app.api.sendChatMessage).toHaveBeenCalledWith('hello', requestId);
    expect(app.state().chat.sending).toBe(false);
    expect(app.state().chat.globalMessages.map((m) => m.id)).toEqual(['m5']);
    // The late push of the same message lists it once.
    app.socket.serverEmit('chatMessage', sent);
    await vi.advanceTimersByTimeAsync(0);
    expect(app.state().chat.globalMessages.map((m) => m.id)).toEqual(['m5']);
  });

  it('gives up when the HTTP retry fails too', async () => {
    const app = startApp({ userId: 'u1' }, (h) => h.api.sendChatMessage.mockRejectedValue(new TypeError('Failed to fetch')));
    app.socket.connect();
    await vi.advanceTimersByTimeAsync(0);
    app.store.dispatch(chatActions.sendRequested('hello'));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(app.state().chat.sending).toBe(false);
    expect(app.logError).toHaveBeenCalled();
  });
});
