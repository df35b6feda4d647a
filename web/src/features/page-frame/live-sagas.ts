import { eventChannel, type EventChannel, type SagaIterator } from 'redux-saga';
import { call, put, take, takeEvery } from 'redux-saga/effects';
import type { Action } from '@reduxjs/toolkit';
import type { Services } from '../../lib/services';
import type { LiveSocket } from '../../lib/socket';
import { liveConnected, liveDisconnected, liveGlobalMemberRequested, liveMainDataRequested, liveSignedOut } from '../../lib/state/live';
import { userActions } from '../../lib/state/session';
import { mainDataActions } from '../../lib/state/site';
import { connectedUsersActions } from './connected-users-slice';
import { globalPostActions } from './global-post-slice';

/** The site's server → client events (docs/product.md §4) become actions; the chat listens for its own. */
export function liveChannel(socket: LiveSocket): EventChannel<Action> {
  return eventChannel<Action>((emit) => {
    socket.onLifecycle('connect', () => emit(liveConnected()));
    socket.onLifecycle('disconnect', () => emit(liveDisconnected()));
    socket.on('connectedUsers', (count) => emit(connectedUsersActions.connectedUsersReceived(count)));
    socket.on('updatedMainData', (payload) => emit(mainDataActions.updatedMainDataReceived(payload)));
    socket.on('globalMember', (post) => emit(globalPostActions.globalPostReceived(post)));
    socket.on('globalMessage', (post) => emit(globalPostActions.globalPostReceived(post)));
    socket.on('signedOut', (notice) => emit(liveSignedOut(notice.reason)));
    return () => socket.disconnect();
  });
}

/**
 * The live connection (docs/product.md §4, §7): its lifecycle, and what the whole site shows from it. On
 * connect (announced as liveConnected, on which the chat asks for its history first) it asks for
 * main data and the newest global post.
 */
export function* liveSaga(_services: Services, socket: LiveSocket): SagaIterator {
  const channel: EventChannel<Action> = yield call(liveChannel, socket);
  // The server reads the user from the handshake's session cookie: sign-in and sign-out need a new one.
  yield takeEvery([userActions.registerSucceeded.type, userActions.userReset.type, userActions.sessionEnded.type], () => socket.reconnect());
  yield takeEvery(liveMainDataRequested.type, () => {
    if (socket.connected) socket.emit('getUpdatedMainData');
  });
  yield takeEvery(liveGlobalMemberRequested.type, () => {
    if (socket.connected) socket.emit('getGlobalMember');
  });
  try {
    while (true) {
      const action: Action = yield take(channel);
      yield put(action);
      if (liveConnected.match(action)) {
        socket.emit('getUpdatedMainData');
        socket.emit('getGlobalMember');
      }
    }
  } finally {
    channel.close();
  }
}
