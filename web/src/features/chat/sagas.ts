import { eventChannel, type EventChannel, type SagaIterator } from 'redux-saga';
import { call, fork, put, select, take, takeEvery } from 'redux-saga/effects';
import type { ChatHistory, ChatMessageView, SendChatMessageResponse, UserView } from '@pass/events/kernel';
import { canAffordChatMessage, contentPath, httpStatusOf } from '@pass/events/kernel';
import { HttpError } from '../../lib/http';
import type { JoinRedirectState } from '../../lib/join-reason';
import type { Services } from '../../lib/services';
import { awaitAck, type AckAnswer, type LiveSocket } from '../../lib/socket';
import { liveConnected } from '../../lib/state/live';
import { userActions } from '../../lib/state/session';
import { chatHistoryReceived, mainDataActions } from '../../lib/state/site';
import type { RootState } from '../../lib/store-types';
import { chatActions } from './slice';

/** What the chat hears on the live connection. */
type ChatEvent = { kind: 'message'; message: ChatMessageView } | { kind: 'history'; history: ChatHistory };

/** The chat's server → client events (docs/product.md §4): a new message, or the whole history. */
function chatChannel(socket: LiveSocket): EventChannel<ChatEvent> {
  return eventChannel<ChatEvent>((emit) => {
    socket.on('chatMessage', (message) => emit({ kind: 'message', message }));
    socket.on('chatMessages', (history) => emit({ kind: 'history', history }));
    // The page frame's live connection closes the socket.
    return () => {};
  });
}

/**
 * Lists a chat message once. The count is the server's: over the live connection every new
 * message comes with an `updatedMainData` carrying the new total (sent before the message
 * itself), so counting it here as well would count it twice. Only a message sent over HTTP
 * while the live connection is down is counted locally (`count`).
 */
function* addChatMessage(message: ChatMessageView, count = false): SagaIterator {
  const state: RootState = yield select();
  if (state.chat.globalMessages.some((m) => m.id === message.id)) return;
  yield put(chatActions.chatMessageReceived(message));
  if (count) yield put(mainDataActions.globalMessagesCounted(state.mainData.data.globalMessages + 1));
}

/** Socket answers that say nothing about whether the message was posted (none, a timeout, a server fault). */
const RETRY_OVER_HTTP = new Set([0, 408, 503]);

const newRequestId = () => crypto.randomUUID();

type Refusal = Extract<AckAnswer<SendChatMessageResponse>, { ok: false }>;

/** A send refused over HTTP, as the socket's answer would have said it. */
function refusalOf(error: unknown): Refusal {
  if (!(error instanceof HttpError)) return { ok: false, error: String(error), status: 0 };
  const wait = error.body.retryAfterSeconds;
  return { ok: false, error: error.body.error, status: error.status, ...(wait ? { retryAfterSeconds: wait } : {}) };
}

/** The toast of a message refused by the chat limit: the server's words say the wait; the wait alone if it sent none. */
function tooFastText(refusal: Refusal): string {
  if (refusal.error) return refusal.error;
  const wait = refusal.retryAfterSeconds ?? 1;
  return `You are sending messages too fast. Please wait ${wait} second${wait === 1 ? '' : 's'} and try again.`;
}

/** A guest who tries to chat is sent to join with this state: join says why. */
export const CHAT_JOIN_STATE: JoinRedirectState = { joinReason: 'chat' };
/** Where a member out of points goes: /content/check says so, with a Buy Points link (free-points/texts.ts). */
export const OUT_OF_POINTS_PAGE = contentPath('check');

/**
 * Send leads to a page that says what to do first (join, or get points): the panel closes, as on
 * a phone it would cover that page; the draft stays for when the member opens the chat again.
 */
function* leaveChatFor(services: Services, path: string, state?: JoinRedirectState): SagaIterator {
  yield put(chatActions.sendFinished({ sent: false }));
  yield put(chatActions.chatClosed());
  if (state) services.navigate(path, { state });
  else services.navigate(path);
}

function* sendChat(services: Services, socket: LiveSocket, action: ReturnType<typeof chatActions.sendRequested>): SagaIterator {
  const user: UserView = yield select((state: RootState) => state.user.user);
  // Guests go to join, which says why (lib/join-reason.ts); members without points to the
  // free-points page, which says what to do (docs/product.md §6).
  if (!user.email) {
    yield call(leaveChatFor, services, contentPath('join'), CHAT_JOIN_STATE);
    return;
  }
  if (!canAffordChatMessage(user.chatCount)) {
    yield call(leaveChatFor, services, OUT_OF_POINTS_PAGE);
    return;
  }
  // One id for this draft, sent again with any retry: the server posts the message once.
  const requestId: string = yield call(newRequestId);
  const draft = { message: action.payload, requestId };
  let answer: AckAnswer<SendChatMessageResponse> | undefined;
  let live = socket.connected;
  if (live) {
    answer = yield call(awaitAck<SendChatMessageResponse>, (ack) => socket.emit('sendChatMessage', draft, ack));
    // No answer (lost with the connection, or too slow): asked again over HTTP, the same draft.
    if (!answer!.ok && RETRY_OVER_HTTP.has(answer!.status)) {
      answer = undefined;
      live = false;
    }
  }
  if (!answer) {
    try {
      const data: SendChatMessageResponse = yield call(services.api.sendChatMessage, draft.message, draft.requestId);
      answer = { ok: true, data };
    } catch (error) {
      answer = refusalOf(error);
    }
  }
  if (answer.ok) {
    yield put(userActions.userSet(answer.data.user));
    yield call(addChatMessage, answer.data.message, !live);
    yield put(chatActions.sendFinished({ sent: true, message: action.payload }));
    if (user.priority && answer.data.user.chatCount > 0 && socket.connected) {
      // Kept for the spec's client; the server answers the current user and changes nothing.
      socket.emit('decreaseChatCount');
    }
    return;
  }
  if (answer.status === httpStatusOf('insufficient_points')) {
    // The server's count is the truth: the free-points page shows its out-of-points line for 0 points.
    const current: UserView = yield select((state: RootState) => state.user.user);
    if (current.chatCount > 0) yield put(userActions.userSet({ ...current, chatCount: 0 }));
    yield call(leaveChatFor, services, OUT_OF_POINTS_PAGE);
    return;
  }
  yield put(chatActions.sendFinished({ sent: false }));
  if (answer.status === httpStatusOf('too_soon')) services.toast.error(tooFastText(answer));
  else services.logError('Sending the chat message failed', answer.error || `HTTP ${answer.status}`);
}

/** History over HTTP too, so the chat shows before (or without) the live connection. */
function* fetchChatHistory(services: Services): SagaIterator {
  try {
    const history: ChatHistory = yield call(services.api.chatMessages);
    yield put(chatHistoryReceived(history));
  } catch (error) {
    services.logError('Fetching the chat failed', error);
  }
}

export function* chatSaga(services: Services, socket: LiveSocket): SagaIterator {
  const channel: EventChannel<ChatEvent> = yield call(chatChannel, socket);
  yield takeEvery(chatActions.sendRequested.type, sendChat, services, socket);
  // Asked first on every connect (getChatMessages), before the page frame's own requests.
  yield takeEvery(liveConnected.type, () => socket.emit('getChatMessages'));
  yield fork(fetchChatHistory, services);
  try {
    while (true) {
      const event: ChatEvent = yield take(channel);
      if (event.kind === 'message') yield fork(addChatMessage, event.message);
      else yield put(chatHistoryReceived(event.history));
    }
  } finally {
    channel.close();
  }
}
