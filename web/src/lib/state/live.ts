import { createAction } from '@reduxjs/toolkit';

// The live connection's actions (features/page-frame/live-sagas.ts opens it): announced on connect
// and disconnect, and asked for by whoever needs the server to push its data again.

export const liveConnected = createAction('live/connected');
export const liveDisconnected = createAction('live/disconnected');
/** Ask the server to push `updatedMainData` again. */
export const liveMainDataRequested = createAction('live/mainDataRequested');
/** Ask the server to push the newest global post (`globalMember`). */
export const liveGlobalMemberRequested = createAction('live/globalMemberRequested');
