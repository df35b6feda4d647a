import { createAction } from '@reduxjs/toolkit';
import type { SignedOutReason } from '@pass/events/kernel';

// The live connection's actions (features/page-frame/live-sagas.ts opens it): announced on connect
// and disconnect, and asked for by whoever needs the server to push its data again.

export const liveConnected = createAction('live/connected');
/** The server says this member's session ended elsewhere (signed out everywhere, deleted, password changed). */
export const liveSignedOut = createAction<SignedOutReason>('live/signedOut');
export const liveDisconnected = createAction('live/disconnected');
/** Ask the server to push `updatedMainData` again. */
export const liveMainDataRequested = createAction('live/mainDataRequested');
/** Ask the server to push the newest global post (`globalMember`). */
export const liveGlobalMemberRequested = createAction('live/globalMemberRequested');
