import { eventChannel, type EventChannel, type SagaIterator } from 'redux-saga';
import { call, delay, fork, put, race, select, take, takeEvery } from 'redux-saga/effects';
import type { Action } from '@reduxjs/toolkit';
import { TIMERS } from '@pass/events/kernel';
import type { ChatMessageView, FreePointResponse, SendChatMessageResponse, UserView } from '@pass/events/kernel';
import type { LiveSocket } from '../../api/socket';
import { HttpError } from '../../api/http';
import type { Services } from '../../app/services';
import type { RootState } from '../../app/store';
import { chatActions } from '../chat/slice';
import { checkActions } from '../check/slice';
import { connectedUsersActions } from '../site/connectedUsersSlice';
import { mainDataActions } from '../site/mainDataSlice';
import { globalPostActions } from '../globalPost/slice';
import { userActions } from '../user/slice';
import { liveConnected, liveDisconnected, liveGlobalMemberRequested, liveMainDataRequested } from './actions';

type AckAnswer<T> = { ok: true; data: T } | { ok: false; error: string; status: number };

/** Server → client events become actions. */
export function liveChannel(socket: LiveSocket): EventChannel<Action> {
  return eventChannel<Action>((emit) => {
    socket.onLifecycle('connect', () => emit(liveConnected()));
    socket.onLifecycle('disconnect', () => emit(liveDisconnected()));
    socket.on('connectedUsers', (count) => emit(connectedUsersActions.connectedUsersReceived(count)));
    socket.on('updatedMainData', (payload) => emit(mainDataActions.updatedMainDataReceived(payload)));
    socket.on('globalMember', (post) => emit(globalPostActions.globalPostReceived(post)));
    socket.on('globalMessage', (post) => emit(globalPostActions.globalPostReceived(post)));
    socket.on('chatMessage', (message) => emit(chatMessageArrived(message)));
    socket.on('chatMessages', (history) => emit(chatActions.chatHistoryReceived(history)));
    return () => socket.disconnect();
  });
}

/** Internal: a live chat message, listed once even if the ack delivered it first. */
const chatMessageArrived = (message: ChatMessageView) => ({ type: 'live/chatMessageArrived', payload: message });

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

/** Emits with an acknowledgement, giving up after the socket timeout. */
function ackOf<T>(send: (ack: (answer: AckAnswer<T>) => void) => void): Promise<AckAnswer<T>> {
  return new Promise((resolve) => send(resolve));
}

function* awaitAck<T>(send: (ack: (answer: AckAnswer<T>) => void) => void): SagaIterator {
  const { answer } = yield race({ answer: call(ackOf<T>, send), timeout: delay(TIMERS.socketTimeoutMs) });
  return (answer as AckAnswer<T> | undefined) ?? { ok: false, error: 'timeout', status: 408 };
}

/** Socket answers that say nothing about whether the message was posted. */
const RETRY_OVER_HTTP = new Set([0, 408, 503]);

const newRequestId = () => crypto.randomUUID();

function* sendChat(s: Services, socket: LiveSocket, action: ReturnType<typeof chatActions.sendRequested>): SagaIterator {
  const user: UserView = yield select((st: RootState) => st.user.user);
  // Guests go to join, members without points to the free-points page (spec §6).
  if (!user.email) {
    yield put(chatActions.sendFinished({ sent: false }));
    s.navigate('/content/join');
    return;
  }
  if (user.chatCount <= 0) {
    yield put(chatActions.sendFinished({ sent: false }));
    s.navigate('/content/check');
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
      const data: SendChatMessageResponse = yield call(s.api.sendChatMessage, draft.message, draft.requestId);
      answer = { ok: true, data };
    } catch (error) {
      answer = { ok: false, error: String(error), status: error instanceof HttpError ? error.status : 0 };
    }
  }
  if (answer.ok) {
    yield put(userActions.userSet(answer.data.user));
    yield call(addChatMessage, answer.data.message, !live);
    yield put(chatActions.sendFinished({ sent: true }));
    if (user.priority && answer.data.user.chatCount > 0 && socket.connected) {
      // Kept for the spec's client; the server answers the current user and changes nothing.
      socket.emit('decreaseChatCount');
    }
    return;
  }
  yield put(chatActions.sendFinished({ sent: false }));
  if (answer.status === 402) s.navigate('/content/check');
  else s.logError('Sending the chat message failed', answer.error);
}

/** A refusal's message is the server's, written for the member (e.g. the countdown did not run). */
function freePointRefused(s: Services, message: string, detail: unknown): void {
  s.toast.error(message || 'The free point could not be added, please try again');
  s.logError('The free point was refused', detail);
}

function* awardFreePoint(s: Services, socket: LiveSocket, action: ReturnType<typeof checkActions.freePointRequested>): SagaIterator {
  if (socket.connected) {
    const answer: AckAnswer<FreePointResponse> = yield call(awaitAck<FreePointResponse>, (ack) =>
      socket.emit('increaseChatCount', action.payload, ack),
    );
    if (answer.ok) yield put(userActions.userSet(answer.data.user));
    else freePointRefused(s, answer.status === 408 ? '' : answer.error, answer.error);
    return;
  }
  try {
    const answer: FreePointResponse = yield call(s.api.freePoint, action.payload.ticket);
    yield put(userActions.userSet(answer.user));
  } catch (error) {
    freePointRefused(s, error instanceof HttpError ? error.body.error : '', error);
  }
}

export function* socketSaga(s: Services): SagaIterator {
  const socket = s.createSocket();
  const channel: EventChannel<Action> = yield call(liveChannel, socket);
  yield takeEvery(chatActions.sendRequested.type, sendChat, s, socket);
  yield takeEvery(checkActions.freePointRequested.type, awardFreePoint, s, socket);
  // The server reads the user from the handshake's session cookie: sign-in and sign-out need a new one.
  yield takeEvery([userActions.registerSucceeded.type, userActions.userReset.type], () => socket.reconnect());
  yield takeEvery(liveMainDataRequested.type, () => {
    if (socket.connected) socket.emit('getUpdatedMainData');
  });
  yield takeEvery(liveGlobalMemberRequested.type, () => {
    if (socket.connected) socket.emit('getGlobalMember');
  });
  try {
    while (true) {
      const action: Action = yield take(channel);
      if (action.type === 'live/chatMessageArrived') {
        yield fork(addChatMessage, (action as ReturnType<typeof chatMessageArrived>).payload);
        continue;
      }
      yield put(action);
      if (liveConnected.match(action)) {
        socket.emit('getChatMessages');
        socket.emit('getUpdatedMainData');
        socket.emit('getGlobalMember');
      }
    }
  } finally {
    channel.close();
  }
}
