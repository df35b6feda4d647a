import { createAction } from '@reduxjs/toolkit';

export const liveConnected = createAction('live/connected');
export const liveDisconnected = createAction('live/disconnected');
/** Ask the server to push `updatedMainData` again. */
export const liveMainDataRequested = createAction('live/mainDataRequested');
/** Ask the server to push the newest global post (`globalMember`). */
export const liveGlobalMemberRequested = createAction('live/globalMemberRequested');
