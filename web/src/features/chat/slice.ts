import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ChatMessageView, Priority } from '@pass/events/kernel';
import { ANONYMOUS_NICKNAME } from '@pass/events/kernel';
import { chatHistoryReceived } from '../../lib/state/site';
import type { RootState } from '../../lib/store-types';

/** Messages kept in memory; older ones scroll away. */
export const CHAT_KEEP = 200;

export interface ChatState {
  isOpened: boolean;
  chatInfo: { nickname: string; message: string; priority: Priority };
  globalMessages: ChatMessageView[];
  sending: boolean;
}

declare module '../../lib/store-types' {
  interface RootState {
    chat: ChatState;
  }
}

const initialState: ChatState = {
  isOpened: false,
  chatInfo: { nickname: ANONYMOUS_NICKNAME, message: '', priority: '' },
  globalMessages: [],
  sending: false,
};

const chatSlice = createSlice({
  name: 'chat',
  initialState,
  reducers: {
    chatToggled(state) {
      state.isOpened = !state.isOpened;
    },
    chatClosed(state) {
      state.isOpened = false;
    },
    draftChanged(state, action: PayloadAction<string>) {
      state.chatInfo.message = action.payload;
    },
    sendRequested(state, _action: PayloadAction<string>) {
      state.sending = true;
    },
    /**
     * A sent message clears the draft only if the draft is still that message: what the member
     * typed while it was on its way stays in the input.
     */
    sendFinished(state, action: PayloadAction<{ sent: true; message: string } | { sent: false }>) {
      state.sending = false;
      // The message goes trimmed (the form's rule); the draft holds it as typed.
      if (action.payload.sent && state.chatInfo.message.trim() === action.payload.message.trim()) state.chatInfo.message = '';
    },
    chatMessageReceived(state, action: PayloadAction<ChatMessageView>) {
      if (state.globalMessages.some((m) => m.id === action.payload.id)) return;
      state.globalMessages.push(action.payload);
      if (state.globalMessages.length > CHAT_KEEP) state.globalMessages.splice(0, state.globalMessages.length - CHAT_KEEP);
    },
  },
  extraReducers: (builder) => {
    // Shared with main data, which takes the message total from it (lib/state/site.ts).
    builder.addCase(chatHistoryReceived, (state, action) => {
      state.globalMessages = action.payload.messages.slice(-CHAT_KEEP);
    });
  },
});

export const chatActions = { ...chatSlice.actions, chatHistoryReceived };
export const chatReducer = chatSlice.reducer;

export const selectChatOpen = (state: RootState) => state.chat.isOpened;
